from django.core.management.base import BaseCommand

from tutor.actions.progress import recompute_all_progress


class Command(BaseCommand):
    help = "Recompute every learner's lesson progress from their stored predictions, checks and runs."

    def handle(self, *args, **options) -> None:
        count = recompute_all_progress()
        self.stdout.write(f"Recomputed {count} lesson progress rows.")
