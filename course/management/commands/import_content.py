from django.core.management.base import BaseCommand, CommandError

from course.content_files.errors import ContentErrors
from course.content_files.importer import import_content
from course.content_files.reader import read_content


class Command(BaseCommand):
    help = (
        "Check every content file in DIR (glossary.yaml and one folder per course), then "
        "import them all in one transaction; on any problem, list them all and change nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", metavar="DIR", help="the content folder, e.g. content/")

    def handle(self, *, directory: str, verbosity: int, **options) -> None:
        try:
            summary = import_content(read_content(directory))
        except ContentErrors as errors:
            raise CommandError(errors.report()) from None
        if verbosity > 0:
            self.stdout.write(self.style.SUCCESS(f"Imported the content in {directory}."))
            for line in summary.lines():
                self.stdout.write(line)
