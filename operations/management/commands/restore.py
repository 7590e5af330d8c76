from django.core.management.base import BaseCommand, CommandError
from django.db import connection, connections

from operations.backups import BackupError, restore


class Command(BaseCommand):
    help = (
        "Restores a backup made by `manage.py backup` into this Parsnip's database, which must "
        "be empty unless --replace is given. Stop the web server and the worker first."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a file written by `manage.py backup`")
        parser.add_argument(
            "--replace", action="store_true",
            help="replace everything the database holds with the backup",
        )

    def handle(self, *args, path, replace=False, **options):
        connections.close_all()
        try:
            restore(path, settings_dict=connection.settings_dict, replace=replace)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"Restored {path} into {connection.settings_dict['NAME']}.")
