from django.core.management.base import BaseCommand, CommandError

from tutor import sandbox
from tutor.content_check import check_snippets, snippets_in_order


class Command(BaseCommand):
    help = (
        "Run every snippet of every lesson in the sandbox, fed its declared input, and report "
        "each whose declared output differs from what it really prints, or that does not end "
        "as declared (without an error, or with the exception it declares). Exits non-zero "
        "when any differs."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--lesson", help="only this lesson slug")

    def handle(self, *args, **options) -> None:
        snippets = snippets_in_order()
        if options["lesson"]:
            snippets = snippets.filter(block__lesson__slug=options["lesson"])
        try:
            checks = check_snippets(snippets)
        except sandbox.SandboxUnavailable as exc:
            raise CommandError(str(exc)) from exc
        mismatches = 0
        for check in checks:
            if check.matches:
                note = "" if check.exact else " (differs only in trailing blank space)"
                self.stdout.write(f"ok        {check.where}{note}")
                continue
            mismatches += 1
            self.stdout.write(self.style.ERROR(f"MISMATCH  {check.where} (status: {check.status})"))
            if not check.ends_as_declared:
                ends = check.problems[0]
                self.stdout.write(f"  it {ends}")
            self.stdout.write("  declared:\n" + _indent(check.snippet.expected_output))
            self.stdout.write("  printed:\n" + _indent(check.printed))
            if check.stderr:
                self.stdout.write("  stderr:\n" + _indent(check.stderr))
        if mismatches:
            raise CommandError(
                f"{mismatches} of {len(checks)} snippets print something else than declared."
            )
        self.stdout.write(
            self.style.SUCCESS(f"All {len(checks)} snippets print what they declare, and end as declared.")
        )


def _indent(text: str) -> str:
    return "\n".join(f"    |{line}" for line in text.split("\n"))
