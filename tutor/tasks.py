"""Background work, all through django-q2. A task takes an id, loads the row, calls the action."""

from django_q.tasks import async_task


def execute_run(run_id: int) -> None:
    from tutor.actions import execute_run as execute

    execute(run_id=run_id)


def enqueue_run(run_id: int) -> None:
    async_task("tutor.tasks.execute_run", run_id, task_name=f"run-{run_id}", save=False)
