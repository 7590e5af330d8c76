import pytest

from tests import threads as test_threads
from tutor import queueing, tasks


@pytest.fixture
def inline_worker(monkeypatch):
    """Runs go through the real sandbox and the same Run rows, but in a thread instead of
    through the broker: `tutor.queueing.enqueue_run` calls `tutor.tasks.execute_run(run_id)`.
    The real worker path (broker + qcluster) is tested end to end in tests/tutor/test_worker.py.
    """
    threads = []

    def enqueue(run_id):
        threads.append(test_threads.start(tasks.execute_run, run_id))

    monkeypatch.setattr(queueing, "enqueue_run", enqueue)
    # As a worker starting takes the queue it finds: the runs queued before it, such as the
    # reveals the content's import queued (tutor.practice.snippet.actions.reveal_ahead).
    from tutor.models import Run

    for run_id in Run.objects.filter(status=Run.Status.QUEUED).values_list("pk", flat=True):
        enqueue(run_id)
    yield
    for thread in threads:
        thread.join(30)
