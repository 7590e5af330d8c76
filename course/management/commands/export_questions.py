from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from course.models import Lesson
from course.question_banks import questions_of
from course.question_banks.gift import write_gift
from course.question_banks.moodle import write_moodle

WRITERS = {"moodle": write_moodle, "gift": write_gift}


class Command(BaseCommand):
    help = (
        "Write a lesson's questions as a Moodle XML or GIFT bank, for another platform; "
        "each question the format cannot hold as it is, is listed with what is left out."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "lesson",
            metavar="COURSE/LESSON",
            help="e.g. local-models/choosing-hardware-for-local-models",
        )
        parser.add_argument("--format", choices=sorted(WRITERS), required=True)
        parser.add_argument(
            "--output", "-o", metavar="FILE", help="where to write it (by default, standard output)"
        )

    def handle(
        self, *, lesson: str, format: str, output: str | None, verbosity: int, **options
    ) -> None:
        course_slug, _slash, lesson_slug = lesson.partition("/")
        found = Lesson.objects.filter(course__slug=course_slug, slug=lesson_slug).first()
        if found is None:
            raise CommandError(
                _("there is no lesson %(lesson)s: write COURSE/LESSON, by their slugs")
                % {"lesson": lesson}
            )
        questions = questions_of(found)
        if not questions:
            raise CommandError(_("the lesson %(lesson)s has no questions") % {"lesson": lesson})
        text, notes = WRITERS[format](questions)
        if output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
        for note in notes:
            self.stderr.write(note)
