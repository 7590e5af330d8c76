from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from operations.backups import BackupError, backup, default_name


class Command(BaseCommand):
    help = (
        "Writes a consistent backup of the whole database while Parsnip runs (SQLite's online "
        "backup, or pg_dump). Prints the file's path."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path", nargs="?",
            help="the file to write, or a folder (an existing one, or ending in /) for a dated "
            "file in it (default: backups/)",
        )

    def handle(self, *args, path=None, **options):
        target = Path(path or "backups")
        if path is None or target.is_dir() or path.endswith("/"):
            stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
            target = target / default_name(connection.settings_dict, stamp)
        try:
            written = backup(target)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(str(written))
