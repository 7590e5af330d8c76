import threading

import pytest

from tutor import queueing, tasks


@pytest.fixture
def inline_worker(monkeypatch):
    """Runs go through the real sandbox and the same Run rows, but in a thread instead of
    through the broker: `tutor.queueing.enqueue_run` calls `tutor.tasks.execute_run(run_id)`.
    The real worker path (broker + qcluster) is tested end to end in tests/tutor/test_worker.py.
    """
    threads = []

    def enqueue(run_id):
        thread = threading.Thread(target=tasks.execute_run, args=(run_id,))
        threads.append(thread)
        thread.start()

    monkeypatch.setattr(queueing, "enqueue_run", enqueue)
    yield
    for thread in threads:
        thread.join(30)
