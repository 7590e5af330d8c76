from django.core.management.base import BaseCommand

from course.content_files.exporter import export_content


class Command(BaseCommand):
    help = (
        "Write the courses, lessons and glossary in the database as content files under DIR "
        "(the layout import_content reads). Lesson files of exported courses that match no "
        "lesson any more are removed; other files are left alone."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("directory", metavar="DIR", help="the content folder, e.g. content/")

    def handle(self, *, directory: str, verbosity: int, **options) -> None:
        summary = export_content(directory)
        if verbosity > 0:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Exported to {directory}: {len(summary.written)} files written, "
                    f"{len(summary.unchanged)} unchanged, {len(summary.removed)} removed."
                )
            )
            if verbosity > 1:
                for path in summary.written:
                    self.stdout.write(f"  wrote {path}")
                for path in summary.removed:
                    self.stdout.write(f"  removed {path}")
