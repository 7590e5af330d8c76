from django.core.management.base import BaseCommand, CommandError

from course import kinds, translations
from course.content_files.reader import COURSE_FIELDS, LESSON_FIELDS
from course.models import Course, Lesson
from tutor import practice, sandbox


def practice_lookups() -> list[str]:
    """What reading every block's values needs, loaded with the lessons."""
    select, prefetch = kinds.page_lookups()
    return ["blocks", *(f"blocks__{name}" for name in [*select, *prefetch])]


class Command(BaseCommand):
    help = (
        "Check every item of every lesson whose kind can be checked, in the sandbox, here and "
        "now: each snippet, fed its declared input, must print what it declares and end as "
        "declared (without an error, or with the exception it declares); each code "
        "exercise's solution must pass every test and its starter fail one. Each kind says "
        "how (tutor.practice: check_content). A lesson's 'What you will see' copied from a "
        "snippet's output must still be that output. A lesson's translations must fit it "
        "(no block it no longer has, no list of another length); the fields they leave in "
        "English are listed. Exits non-zero when any differs or is stale."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--lesson", help="only this lesson slug")
        parser.add_argument(
            "--translations-only",
            action="store_true",
            help="only check the lessons' translations (no sandbox needed): what a translator runs",
        )

    def check_translations(self, lessons) -> int:
        """Report each course's and lesson's stale translations (an error) and untranslated
        fields (a note); the number of courses and lessons with a stale one."""
        stale = 0
        for course in Course.objects.filter(lessons__in=lessons).distinct().order_by("slug"):
            stale += self.report(course.slug, translations.course_problems(course, COURSE_FIELDS))
        for lesson in lessons.select_related("course").prefetch_related(*practice_lookups()):
            problems = translations.lesson_problems(lesson, LESSON_FIELDS)
            stale += self.report(f"{lesson.course.slug}/{lesson.slug}", problems)
        return stale

    def report(self, where: str, problems) -> int:
        """Write a course's or a lesson's translation problems; 1 if one is stale."""
        for language, problem, items in problems:
            for item in items:
                line = f"{problem.upper()}  {where} ({language}): {item}"
                self.stdout.write(self.style.ERROR(line) if problem == "stale" else line)
        return int(any(problem == "stale" for _, problem, _ in problems))

    def handle(self, *args, **options) -> None:
        lessons = Lesson.objects.all()
        if options["lesson"]:
            lessons = lessons.filter(slug=options["lesson"])
        good, bad = [], []
        if stale := self.check_translations(lessons):
            bad.append(f"{stale} course(s)/lesson(s): a translation no longer fits the English.")
        if options["translations_only"]:
            if bad:
                raise CommandError(" ".join(bad))
            return
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
