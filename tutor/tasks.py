"""Background work, all through django-q2. A task takes an id, loads the row, calls the
action. Tasks import actions; actions enqueue tasks by name through tutor.queueing."""

from tutor import practice, queueing
from tutor.actions import runs
from tutor.models import Run


def execute_run(run_id: int) -> None:
    Run.objects.fail_stale()  # a read, unless some run's worker is gone: then it fails it
    runs.execute_run(run_id=run_id)  # runs it, wakes who waits, gives the verdicts


def fail_stale_runs() -> int:
    """Scheduled every minute, the repair sweep: runs whose worker died are marked failed,
    never left running, and verdicts still waiting for a final run are given (its worker
    stopped between the two). Returns how many runs it failed."""
    failed = Run.objects.fail_stale()
    for kind in practice.every():
        kind.repair()
    return failed


def purge_old_trails() -> int:
    """Scheduled every day: editing trails older than TRAIL_RETENTION_DAYS are deleted."""
    from django.conf import settings

    from tutor.trail.actions import purge_older_than

    return purge_older_than(days=settings.TRAIL_RETENTION_DAYS)


def worker_started(**kwargs) -> None:
    """A worker process (re)started (django-q2's post_spawn): runs that a dead worker on
    this machine held are failed at once, and every queued run is handed to the queue
    again, since a broker may have lost those the dead worker had taken. A run delivered
    twice still runs once (execute_run claims it)."""
    Run.objects.fail_lost()
    Run.objects.fail_stale()
    for run_id in Run.objects.filter(status=Run.Status.QUEUED).order_by("pk").values_list(
        "pk", flat=True
    ):
        queueing.enqueue_run(run_id)
