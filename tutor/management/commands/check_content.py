from django.core.management.base import BaseCommand, CommandError

from course.models import Lesson
from tutor import practice, sandbox


class Command(BaseCommand):
    help = (
        "Check every item of every lesson whose kind can be checked, in the sandbox, here and "
        "now: each snippet, fed its declared input, must print what it declares and end as "
        "declared (without an error, or with the exception it declares); each code "
        "exercise's solution must pass every test and its starter fail one. Each kind says "
        "how (tutor.practice: check_content). A lesson's 'What you will see' copied from a "
        "snippet's output must still be that output. Exits non-zero when any differs."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--lesson", help="only this lesson slug")

    def handle(self, *args, **options) -> None:
        lessons = Lesson.objects.all()
        if options["lesson"]:
            lessons = lessons.filter(slug=options["lesson"])
        good, bad = [], []
        for kind in practice.every():
            if not kind.checks_content:
                continue
            try:
                checks = kind.check_content(lessons=lessons)
            except sandbox.SandboxUnavailable as exc:
                raise CommandError(str(exc)) from exc
            for check in checks:
                if check.ok:
                    self.stdout.write(f"ok        {check.where}{check.ok_note}")
                    continue
                self.stdout.write(self.style.ERROR(f"MISMATCH  {check.where}{check.mismatch_note}"))
                for line in check.report:
                    self.stdout.write(line)
            wrong = sum(not check.ok for check in checks)
            if summary := kind.check_summary(wrong=wrong, total=len(checks)):
                (bad if wrong else good).append(summary)
        previews = [
            (lesson, problem)
            for lesson in lessons.select_related("course").prefetch_related("blocks__snippet")
            if (problem := lesson.preview_mismatch())
        ]
        for lesson, problem in previews:
            self.stdout.write(self.style.ERROR(f"MISMATCH  {lesson.course.slug}/{lesson.slug}: {problem}"))
        if previews:
            bad.append(f"{len(previews)} lesson(s): 'What you will see' differs from its snippet's output.")
        if bad:
            raise CommandError(" ".join(bad))
        for summary in good:
            self.stdout.write(self.style.SUCCESS(summary))
