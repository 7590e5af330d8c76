"""Waiting for a run: the worker's notice wakes every waiter at once, and waiting costs two
reads of the row however long it lasts, on both carriers (pipes and Redis).

No test here depends on how threads happen to interleave or how fast the machine is: what
announces does so only once the waiter has looked at the row (and so is registered and
about to sleep), and "it woke on the notice" means "well before its time-out", a bound no
busy machine comes near while a lost notice always reaches it."""

import threading
import time
import uuid

import pytest

from tests import threads
from tests.factories import make_run, make_snippet
from tutor import run_notices
from tutor.models import Run
from tutor.tasks import execute_run as execute_run_task

REDIS_URL = "redis://127.0.0.1:6379/15"
# A waiter that hears its notice wakes within milliseconds; one that misses it sleeps all
# of TIMEOUT. Anything under half of it can only be a wake-up by the notice.
TIMEOUT = 30.0


@pytest.fixture(params=["pipes", "redis"])
def carrier(request, settings):
    settings.REDIS_URL = REDIS_URL if request.param == "redis" else ""
    # Channels are named after the cluster: a name of its own keeps this test's notices
    # from other tests and from other test processes using the same Redis.
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "name": f"notices-test-{uuid.uuid4().hex}"}
    return request.param


class Finished:
    """A stand-in for "is the row final?" that counts how often it is asked, and lets the
    test wait until the waiters have looked (whatever it does next happens as they sleep)."""

    def __init__(self) -> None:
        self.done = False
        self.asked = 0
        self.changed = threading.Condition()

    def __call__(self) -> bool:
        with self.changed:
            self.asked += 1
            self.changed.notify_all()
            return self.done

    def wait_until_asked(self, times: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.asked >= times, TIMEOUT), self.asked


def once_looked_at(finished: Finished, then) -> threading.Thread:
    """In another thread: wait for the waiter's first look, then `then()`."""

    def act():
        finished.wait_until_asked(1)
        then()

    return threads.start(act)


def finish(run_id: int, finished: Finished) -> None:
    finished.done = True
    run_notices.announce(run_id)


def test_a_waiter_wakes_as_soon_as_the_run_is_announced(db, carrier):
    finished = Finished()

    def later():
        time.sleep(0.3)  # not a synchronisation: time in which a waiter that polls would look
        finish(41, finished)

    thread = once_looked_at(finished, later)
    started = time.monotonic()
    assert run_notices.wait(41, finished, timeout=TIMEOUT) is True
    waited = time.monotonic() - started
    thread.join()
    assert waited < TIMEOUT / 2, waited  # woken by the notice, not by its time-out
    assert finished.asked == 2  # once before sleeping, once after: no polling in between


def test_a_hundred_waiters_on_one_reveal_all_wake_together(db, carrier):
    finished = Finished()
    waited: list[float] = []

    def waiter():
        started = time.monotonic()
        assert run_notices.wait(42, finished, timeout=TIMEOUT)
        waited.append(time.monotonic() - started)

    waiters = [threading.Thread(target=waiter) for _ in range(100)]
    for thread in waiters:
        thread.start()
    finished.wait_until_asked(100)  # every one has looked, found it running, and sleeps
    finish(42, finished)
    for thread in waiters:
        thread.join(TIMEOUT)
    assert len(waited) == 100
    assert max(waited) < TIMEOUT / 2, max(waited)  # all woken by the one notice
    assert finished.asked == 200  # each looked twice: before sleeping and once woken


def test_a_notice_for_another_run_does_not_end_the_wait(db, carrier):
    finished = Finished()
    thread = once_looked_at(finished, lambda: run_notices.announce(43))
    started = time.monotonic()
    assert run_notices.wait(44, finished, timeout=1.0) is False
    waited = time.monotonic() - started
    thread.join()
    assert waited >= 0.95, waited  # it slept through run 43's notice, to its time-out
    assert finished.asked == 2


def test_an_already_final_run_needs_no_sleep(db, carrier):
    finished = Finished()
    finished.done = True
    started = time.monotonic()
    assert run_notices.wait(45, finished, timeout=TIMEOUT) is True
    assert time.monotonic() - started < TIMEOUT / 2
    assert finished.asked == 1


def test_announcing_with_nobody_waiting_is_harmless(db, carrier):
    run_notices.announce(46)


@pytest.mark.django_db(transaction=True)
def test_the_worker_announces_each_run_it_finishes(carrier, first_look):
    run = make_run(make_snippet(code="print('hi')\n"), status=Run.Status.QUEUED)
    thread = first_look.then(lambda: execute_run_task(run.pk))
    started = time.monotonic()
    run.wait_until_final(TIMEOUT)
    thread.join()
    assert run.status == Run.Status.OK
    assert run.stdout == "hi\n"
    assert time.monotonic() - started < TIMEOUT / 2


@pytest.mark.django_db(transaction=True)
def test_a_run_failed_for_a_lost_worker_wakes_its_waiters(carrier, first_look):
    from datetime import timedelta

    from django.utils import timezone

    run = make_run(make_snippet(), status=Run.Status.RUNNING)
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(hours=1))
    thread = first_look.then(Run.objects.fail_stale)
    started = time.monotonic()
    run.wait_until_final(TIMEOUT)
    thread.join()
    assert run.status == Run.Status.FAILED
    # Shown failed after the time-out too (it is overdue): only the time tells it was woken.
    assert time.monotonic() - started < TIMEOUT / 2
