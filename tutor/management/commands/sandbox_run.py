import json
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tutor import sandbox


class Command(BaseCommand):
    help = (
        "Run a Python file (or - for standard input) in the sandbox exactly as the worker "
        "would, and print the result as one JSON object. Exits 0 whenever the sandbox worked, "
        "whatever the code did."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="a Python file, or - to read the code from stdin")

    def handle(self, *args, **options) -> None:
        path = options["file"]
        try:
            if path == "-":
                code = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
            else:
                with open(path, "rb") as handle:
                    code = handle.read().decode("utf-8", "surrogateescape")
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from exc
        try:
            result = sandbox.run(code, backend=settings.SANDBOX_BACKEND)
        except sandbox.SandboxUnavailable as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False))
