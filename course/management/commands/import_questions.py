from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from course.content_files.errors import ContentErrors
from course.question_banks import BankRefused, checked, lesson_file
from course.question_banks.gift import read_gift
from course.question_banks.moodle import read_moodle

READERS = {"moodle": read_moodle, "gift": read_gift}


def format_of(path: Path, given: str | None) -> str:
    if given:
        return given
    if path.suffix.lower() == ".xml":
        return "moodle"
    if path.suffix.lower() in (".gift", ".txt"):
        return "gift"
    raise CommandError(
        _("say which format %(file)s is in: --format moodle or --format gift") % {"file": path}
    )


class Command(BaseCommand):
    help = (
        "Bring a question bank (Moodle XML or GIFT) into a lesson's content file: its multiple "
        "choice, true/false, numerical and short-answer questions become Parsnip's question "
        "blocks, each checked as import_content checks it; every question not brought over, "
        "or brought over changed, is listed with why. Review the file, then run import_content."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "bank", metavar="FILE", help="the bank, e.g. questions.xml or questions.gift"
        )
        parser.add_argument(
            "--lesson",
            required=True,
            metavar="LESSON_FILE",
            help="the lesson file in a course's folder, e.g. content/local-models/quiz.yaml: "
            "the questions go after its blocks; a new file is a draft lesson added to course.yaml",
        )
        parser.add_argument(
            "--format",
            choices=sorted(READERS),
            help="the bank's format (by default, from its name)",
        )
        parser.add_argument("--title", default="", help="a new lesson's title")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="report what would be brought over; write nothing",
        )

    def handle(
        self,
        *,
        bank: str,
        lesson: str,
        format: str | None,
        title: str,
        dry_run: bool,
        verbosity: int,
        **options,
    ) -> None:
        path = Path(bank)
        reader = READERS[format_of(path, format)]
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(
                _("cannot read %(file)s: %(error)s") % {"file": path, "error": error.strerror}
            ) from None
        try:
            read = checked(reader(data))
            planned = (
                lesson_file.plan(lesson, read.questions, title=title) if read.questions else None
            )
            if planned is not None and not dry_run:
                lesson_file.write(planned)
        except BankRefused as error:
            raise CommandError(f"{path}: {error}") from None
        except ContentErrors as errors:
            raise CommandError(
                _("The lesson would not import, so nothing was written:") + "\n" + errors.report()
            ) from None
        report = read.report()
        if planned is None:
            raise CommandError(
                "\n".join(
                    [_("Nothing in %(file)s could be brought over.") % {"file": path}, *report]
                )
            )
        if verbosity > 0:
            counted = len(read.questions)
            if dry_run:
                said = _("Would bring %(count)d questions into %(file)s.")
            elif planned.new_lesson:
                said = _(
                    "Brought %(count)d questions into %(file)s, a new draft lesson (added to course.yaml)."
                )
            else:
                said = _("Brought %(count)d questions into %(file)s, after its blocks.")
            self.stdout.write(self.style.SUCCESS(said % {"count": counted, "file": lesson}))
            for line in report:
                self.stdout.write(line)
            if not dry_run:
                root = Path(lesson).parent.parent
                self.stdout.write(
                    _("Review them there, then run: python manage.py import_content %(root)s")
                    % {"root": root}
                )
