"""Background work, all through django-q2. A task takes an id, loads the row, calls the
action. Tasks import actions; actions enqueue tasks by name through tutor.queueing."""

import logging
from datetime import timedelta

from django.db import close_old_connections, connections
from django.utils import timezone

from tutor import practice, queueing
from tutor.actions import runs
from tutor.connections import DATABASE_OUTAGES, outlasting_outages
from tutor.models import Run

logger = logging.getLogger(__name__)

# A run still queued this long was probably never delivered (its message lost with a
# broker that restarted, or never sent by a web process that died first): the sweep sends
# it again. Far above a class's queue (a hundred gradings wait a few seconds); a run sent
# twice still runs once.
REQUEUE_AFTER = timedelta(seconds=30)


def execute_run(run_id: int) -> None:
    # A read, unless some run's worker is gone: then it fails it.
    outlasting_outages(Run.objects.fail_stale, seconds=runs.OUTAGE_SECONDS, what="the stale runs")
    runs.execute_run(run_id=run_id)  # runs it, wakes who waits, gives the verdicts


def fail_stale_runs() -> int:
    """Scheduled every minute, the repair sweep: runs whose worker died are marked failed,
    never left running; runs queued for REQUEUE_AFTER are sent to the queue again (their
    message may have been lost with the broker); and verdicts still waiting for a final run are given (its worker
    stopped between the two). Returns how many runs it failed."""
    failed = Run.objects.fail_stale()
    requeue_waiting_runs(older_than=REQUEUE_AFTER)
    for kind in practice.every():
        kind.repair()
    return failed


def broker_lost_messages() -> None:
    """The broker may have lost messages (Redis restarted): every queued run is sent again,
    from the worker's pusher, which otherwise holds no database connection (one it kept
    would be dead after a PostgreSQL restart)."""
    close_old_connections()
    try:
        outlasting_outages(requeue_waiting_runs, seconds=10, what="sending queued runs again")
    finally:
        connections.close_all()


def requeue_waiting_runs(*, older_than: timedelta | None = None) -> int:
    """Hand every queued run (queued longer than `older_than`) to the queue again; how many."""
    waiting = Run.objects.filter(status=Run.Status.QUEUED)
    if older_than is not None:
        waiting = waiting.filter(created_at__lt=timezone.now() - older_than)
    run_ids = list(waiting.order_by("pk").values_list("pk", flat=True))
    for run_id in run_ids:
        queueing.enqueue_run(run_id)
    return len(run_ids)


def purge_old_trails() -> int:
    """Scheduled every day: editing trails older than TRAIL_RETENTION_DAYS are deleted."""
    from django.conf import settings

    from tutor.trail.actions import purge_older_than

    return purge_older_than(days=settings.TRAIL_RETENTION_DAYS)


def worker_started(**kwargs) -> None:
    """A worker process (re)started (django-q2's post_spawn): runs that a dead worker on
    this machine held are failed at once, and every queued run is handed to the queue
    again, since a broker may have lost those the dead worker had taken. A run delivered
    twice still runs once (execute_run claims it). With the database away it waits a
    little, then leaves the rest to the sweep: a worker must start all the same."""

    def repair() -> None:
        Run.objects.fail_lost()
        Run.objects.fail_stale()
        requeue_waiting_runs()

    try:
        outlasting_outages(repair, seconds=10, what="a worker starting")
    except DATABASE_OUTAGES:
        logger.exception("a worker started without repairing runs: the database is away")


def submit_quiz_attempts_over_time() -> int:
    """Scheduled every minute: quiz attempts whose time limit is over are submitted with the
    answers saved, so their scores reach the teacher without the student coming back.
    Returns how many."""
    from tutor.quizzes.actions import submit_overdue

    return submit_overdue()
