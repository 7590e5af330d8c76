"""Waiting for a run: the worker's notice wakes every waiter at once, and waiting costs two
reads of the row however long it lasts, on both carriers (pipes and Redis)."""

import threading
import time

import pytest

from tests.factories import make_run, make_snippet
from tutor import run_notices
from tutor.models import Run
from tutor.tasks import execute_run as execute_run_task

REDIS_URL = "redis://127.0.0.1:6379/15"


@pytest.fixture(params=["pipes", "redis"])
def carrier(request, settings):
    settings.REDIS_URL = REDIS_URL if request.param == "redis" else ""
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "name": f"notices-test-{time.monotonic_ns()}"}
    return request.param


class Finished:
    """A stand-in for "is the row final?" that counts how often it is asked."""

    def __init__(self) -> None:
        self.done = False
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.done


def announce_later(run_id: int, finished: Finished, delay: float) -> threading.Thread:
    def finish():
        time.sleep(delay)
        finished.done = True
        run_notices.announce(run_id)

    thread = threading.Thread(target=finish)
    thread.start()
    return thread


def test_a_waiter_wakes_as_soon_as_the_run_is_announced(db, carrier):
    finished = Finished()
    thread = announce_later(41, finished, delay=0.3)
    started = time.monotonic()
    assert run_notices.wait(41, finished, timeout=10) is True
    waited = time.monotonic() - started
    thread.join()
    assert 0.25 <= waited < 2, waited
    assert finished.asked == 2  # once before sleeping, once after: nothing in between


def test_a_hundred_waiters_on_one_reveal_all_wake_together(db, carrier):
    finished = Finished()
    woke: list[float] = []

    def waiter():
        assert run_notices.wait(42, finished, timeout=10)
        woke.append(time.monotonic())

    waiters = [threading.Thread(target=waiter) for _ in range(100)]
    for thread in waiters:
        thread.start()
    time.sleep(0.5)  # all of them are asleep by now
    announced = time.monotonic()
    finished.done = True
    run_notices.announce(42)
    for thread in waiters:
        thread.join(10)
    assert len(woke) == 100
    assert max(woke) - announced < 1.0


def test_a_notice_for_another_run_does_not_end_the_wait(db, carrier):
    finished = Finished()
    thread = announce_later(43, Finished(), delay=0.1)
    started = time.monotonic()
    assert run_notices.wait(44, finished, timeout=0.6) is False
    thread.join()
    assert time.monotonic() - started >= 0.55


def test_an_already_final_run_needs_no_sleep(db, carrier):
    finished = Finished()
    finished.done = True
    started = time.monotonic()
    assert run_notices.wait(45, finished, timeout=10) is True
    assert time.monotonic() - started < 0.5
    assert finished.asked == 1


def test_announcing_with_nobody_waiting_is_harmless(db, carrier):
    run_notices.announce(46)


@pytest.mark.django_db(transaction=True)
def test_the_worker_announces_each_run_it_finishes(carrier):
    run = make_run(make_snippet(code="print('hi')\n"), status=Run.Status.QUEUED)
    thread = threading.Thread(target=lambda: (time.sleep(0.3), execute_run_task(run.pk)))
    thread.start()
    started = time.monotonic()
    run.wait_until_final(10)
    thread.join()
    assert run.status == Run.Status.OK
    assert run.stdout == "hi\n"
    assert time.monotonic() - started < 5


@pytest.mark.django_db(transaction=True)
def test_a_run_failed_for_a_lost_worker_wakes_its_waiters(carrier):
    from datetime import timedelta

    from django.utils import timezone

    run = make_run(make_snippet(), status=Run.Status.RUNNING)
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(hours=1))

    def sweep():
        time.sleep(0.3)
        Run.objects.fail_stale()

    thread = threading.Thread(target=sweep)
    thread.start()
    started = time.monotonic()
    run.wait_until_final(10)
    thread.join()
    assert run.status == Run.Status.FAILED
    assert time.monotonic() - started < 5

