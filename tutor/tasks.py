"""Background work, all through django-q2. A task takes an id, loads the row, calls the action."""

from django_q.tasks import async_task

from tutor import run_notices


def execute_run(run_id: int) -> None:
    from tutor import actions
    from tutor.models import Run

    Run.objects.fail_stale()  # a read, unless some run's worker is gone: then it fails it
    run = actions.execute_run(run_id=run_id)
    if run is not None:
        # Waiting learners are woken first: each one's own request gives its verdict.
        run_notices.announce(run.pk)
        # Verdicts still waiting for this output are given here, by the worker, so they
        # never depend on the learner still having the page open.
        actions.settle_predictions_for_run(run=run)
        actions.settle_checks_for_run(run=run)


def enqueue_run(run_id: int) -> None:
    async_task("tutor.tasks.execute_run", run_id, task_name=f"run-{run_id}", save=False)


def fail_stale_runs() -> int:
    """Scheduled every minute: runs whose worker died are marked failed, never left running."""
    from tutor.models import Run

    return Run.objects.fail_stale()


def worker_started(**kwargs) -> None:
    """A worker process (re)started (django-q2's post_spawn): runs that a dead worker on
    this machine held are failed at once, and every queued run is handed to the queue
    again, since a broker may have lost those the dead worker had taken. A run delivered
    twice still runs once (execute_run claims it)."""
    from tutor.models import Run

    Run.objects.fail_lost()
    Run.objects.fail_stale()
    for run_id in Run.objects.filter(status=Run.Status.QUEUED).order_by("pk").values_list(
        "pk", flat=True
    ):
        enqueue_run(run_id)
