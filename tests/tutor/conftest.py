import threading

import pytest

from tests import threads
from tests.factories import make_user


@pytest.fixture
def learner(client):
    """A student, logged in on the test client."""
    user = make_user()
    client.force_login(user)
    return user


class FirstLook:
    """Whether a run's waiter (Run.wait_until_final, a long poll) has looked at the row once:
    from then on it is registered for the run's notice and sleeps, so what a test does next
    (finish the run, fail it) happens while it sleeps, however the threads are scheduled."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def then(self, action, timeout: float = 30) -> threading.Thread:
        """In another thread: wait for the first look, then `action()`."""

        def act():
            if self.event.wait(timeout):
                action()

        return threads.start(act)


@pytest.fixture
def first_look(monkeypatch) -> FirstLook:
    from tutor import run_notices

    look = FirstLook()
    wait = run_notices.wait

    def watched_wait(run_id, is_final, timeout):
        def watched_is_final():
            final = is_final()
            look.event.set()
            return final

        return wait(run_id, watched_is_final, timeout)

    monkeypatch.setattr(run_notices, "wait", watched_wait)
    return look
