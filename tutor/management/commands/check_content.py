from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from course.models import Snippet
from tutor import sandbox
from tutor.grading import outputs_match


class Command(BaseCommand):
    help = (
        "Run every snippet of every lesson in the sandbox and report each whose declared "
        "output differs from what it really prints. Exits non-zero when any differs."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--lesson", help="only this lesson slug")

    def handle(self, *args, **options) -> None:
        snippets = Snippet.objects.select_related("block__lesson__course").order_by(
            "block__lesson__course__position", "block__lesson__position", "block__position"
        )
        if options["lesson"]:
            snippets = snippets.filter(block__lesson__slug=options["lesson"])
        mismatches = 0
        for snippet in snippets:
            lesson = snippet.block.lesson
            where = f"{lesson.course.slug}/{lesson.slug} · {snippet.key}"
            try:
                result = sandbox.run(snippet.code, backend=settings.SANDBOX_BACKEND)
            except sandbox.SandboxUnavailable as exc:
                raise CommandError(str(exc)) from exc
            if result.status == "ok" and outputs_match(result.stdout, snippet.expected_output):
                if result.stdout != snippet.expected_output:
                    self.stdout.write(f"ok        {where} (differs only in trailing blank space)")
                else:
                    self.stdout.write(f"ok        {where}")
                continue
            mismatches += 1
            self.stdout.write(self.style.ERROR(f"MISMATCH  {where} (status: {result.status})"))
            self.stdout.write("  declared:\n" + _indent(snippet.expected_output))
            self.stdout.write("  printed:\n" + _indent(result.stdout))
            if result.stderr:
                self.stdout.write("  stderr:\n" + _indent(result.stderr))
        total = snippets.count()
        if mismatches:
            raise CommandError(f"{mismatches} of {total} snippets print something else than declared.")
        self.stdout.write(self.style.SUCCESS(f"All {total} snippets print what they declare."))


def _indent(text: str) -> str:
    return "\n".join(f"    |{line}" for line in text.split("\n"))
