"""Background work, all through django-q2. A task takes an id, loads the row, calls the action."""

from django_q.tasks import async_task

from tutor import run_notices


def execute_run(run_id: int) -> None:
    from tutor import actions

    run = actions.execute_run(run_id=run_id)
    if run is not None:
        # Verdicts waiting for this output are given here, by the worker, so they never
        # depend on the learner still having the page open.
        actions.settle_predictions_for_run(run=run)
        actions.settle_checks_for_run(run=run)
        run_notices.announce(run.pk)


def enqueue_run(run_id: int) -> None:
    async_task("tutor.tasks.execute_run", run_id, task_name=f"run-{run_id}", save=False)


def fail_stale_runs() -> int:
    """Scheduled every minute: runs whose worker died are marked failed, never left running."""
    from tutor.models import Run

    return Run.objects.fail_stale()
