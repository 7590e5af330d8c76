from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tutor.trail.actions import purge_older_than


class Command(BaseCommand):
    help = "Delete the editing trails nobody added to for N days (default: TRAIL_RETENTION_DAYS)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=settings.TRAIL_RETENTION_DAYS)

    def handle(self, *args, days: int, **options) -> None:
        if days < 0:
            raise CommandError("--days must be 0 or more.")
        count = purge_older_than(days=days)
        self.stdout.write(
            f"Deleted {count} trail{'s' if count != 1 else ''} older than {days} days."
        )
