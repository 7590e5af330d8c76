"""What a learner sees when the database or Redis goes away in the middle of a class.

On PostgreSQL the test cuts its own connection (pg_terminate_backend from a connection of
its own, to its own test database: never anyone else's). On SQLite, the fault is the
database locked past the busy timeout (a backup, a long writer). Redis is a private
redis-server (tests/services.py), stopped and started by the test.
"""

import sqlite3
import time
import uuid
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse
from django_q.conf import Conf
from django_q.signing import SignedPackage

from tests.factories import make_prediction, make_run, make_snippet, make_user
from tests.services import PrivateRedis
from tutor import queueing, tasks
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db(transaction=True)

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql")
HX = {"HTTP_HX_REQUEST": "true"}
CODE = 'print("first")\nprint("second")\n'
OUTPUT = "first\nsecond\n"
BUSY = "Parsnip is busy for a moment. Please try again in a few seconds."


@pytest.fixture(autouse=True)
def fresh_connection_after():
    """Each test ends as a request does: its connection given back (to the pool, which
    drops it if a test cut it), so the next statement (the test's flush) takes a good one."""
    yield
    connection.close()


@pytest.fixture
def snippet():
    return make_snippet(code=CODE, expected_output=OUTPUT, key="two-lines")


@pytest.fixture
def learner_client(snippet):
    """A learner who has revealed the snippet, on a client that gets the server's answer
    to an error (as a browser does) rather than the exception."""
    user = make_user()
    make_prediction(user, snippet, text=OUTPUT, verdict=Prediction.Verdict.RIGHT)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture
def enqueued(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr(queueing, "enqueue_run", sent.append)
    return sent


def click_run(client, snippet, **headers):
    return client.post(reverse("tutor:run_create", args=[snippet.pk]), {"code": 'print("mine")\n'},
                       **headers)


def assert_busy(response, *, htmx: bool) -> None:
    """Answered "busy, try again" (503, Retry-After): for htmx, a refusal into the page's
    busy line; for a plain request, a page of its own."""
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    html = response.content.decode()
    assert BUSY in html
    if htmx:
        assert response["HX-Retarget"] == "#busy-message"
        assert response["HX-Reswap"] == "innerHTML"
        assert "<html" not in html
    else:
        assert "Busy for a moment" in html and "Try again" in html


# PostgreSQL: connections cut ----------------------------------------------------------


def _side_connection():
    """A connection of the test's own to its own test database."""
    import psycopg

    params = connection.settings_dict
    return psycopg.connect(
        dbname=params["NAME"], user=params.get("USER") or None,
        password=params.get("PASSWORD") or None, host=params.get("HOST") or None,
        port=params.get("PORT") or None, autocommit=True,
    )


def _terminate(pids: list[int]) -> None:
    """pg_terminate_backend on these backends of ours, and wait until they are gone."""
    with _side_connection() as side:
        for pid in pids:
            side.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 30
        while side.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)",
                           [pids]).fetchone()[0]:
            assert time.monotonic() < deadline, "the backends did not end"
            time.sleep(0.02)


@contextmanager
def cut_before(fragment: str, *, after: str = ""):
    """This thread's PostgreSQL connection is cut (as a restart cuts it) just before the
    first statement containing `fragment` is sent (after one containing `after`)."""
    cut: list[str] = []
    seen = [not after]

    def wrapper(execute, sql, params, many, context):
        if after and after in sql:
            seen[0] = True
        elif not cut and seen[0] and fragment in sql:
            cut.append(sql)
            _terminate([context["connection"].connection.info.backend_pid])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield cut
    assert cut, f"no statement with {fragment!r} was sent"


if ON_POSTGRES:

    def test_a_click_whose_connection_is_cut_before_it_wrote_is_answered_as_usual(
        learner_client, snippet, enqueued
    ):
        with cut_before('FROM "course_snippet"'):  # the view's first read
            response = click_run(learner_client, snippet, **HX)
        assert response.status_code == 200
        assert "Waiting for a worker" in response.content.decode()
        run = Run.objects.get(purpose=Run.Purpose.RUN)  # one run, not two
        assert enqueued == [run.pk]

    def test_a_poll_whose_connection_is_cut_as_its_session_is_read_gets_its_answer(
        learner_client, snippet, enqueued
    ):
        click_run(learner_client, snippet, **HX)
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        with cut_before('FROM "django_session"'):  # read before the view, by the middleware
            response = learner_client.get(reverse("tutor:run_detail", args=[run.pk]), **HX)
        assert response.status_code == 200
        assert "Waiting for a worker" in response.content.decode()

    def test_a_click_whose_connection_is_cut_as_its_transaction_begins_stores_its_run(
        learner_client, snippet, enqueued
    ):
        # The learner's draft is kept first; then the run's transaction begins by locking the
        # learner's row: cut there, it begins again on a new connection.
        with cut_before("FOR UPDATE"):
            response = click_run(learner_client, snippet, **HX)
        assert response.status_code == 200
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        assert enqueued == [run.pk]

    def test_a_click_whose_connection_is_cut_after_its_run_was_stored_is_answered_as_usual(
        learner_client, snippet, enqueued
    ):
        # The run is committed; the click then reads it back (is it done yet?): that read is
        # sent again on a new connection, so the learner is not asked to click twice.
        with cut_before('FROM "tutor_run"', after='INSERT INTO "tutor_run"'):
            response = click_run(learner_client, snippet, **HX)
        assert response.status_code == 200
        assert "Waiting for a worker" in response.content.decode()
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        assert enqueued == [run.pk]

    def test_a_click_whose_connection_is_cut_as_its_next_transaction_begins_is_answered_as_usual(
        learner_client, snippet, enqueued
    ):
        # After the run is stored, the click keeps the moment in the learner's editing
        # trail, in a transaction of its own: cut as it begins (PostgreSQL says it is
        # shutting down, so nothing of it was done), it begins again on a new connection.
        from tutor.trail.models import TrailChunk

        with cut_before('FROM "tutor_trail"', after='INSERT INTO "tutor_run"'):
            response = click_run(learner_client, snippet, **HX)
        assert response.status_code == 200
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        assert enqueued == [run.pk]
        assert TrailChunk.objects.count() == 1

    def test_a_click_whose_connection_is_cut_while_it_keeps_its_trail_stores_its_run_once(
        learner_client, snippet, enqueued
    ):
        # Cut in the middle of the trail's transaction, after the run was stored: the moment
        # is not kept, the click is answered as usual (not "try again": a second run).
        from tutor.trail.models import TrailChunk

        with cut_before('INSERT INTO "tutor_trailchunk"', after='INSERT INTO "tutor_run"'):
            response = click_run(learner_client, snippet, **HX)
        assert response.status_code == 200
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        assert enqueued == [run.pk]
        assert not TrailChunk.objects.exists()

    @pytest.mark.parametrize("htmx", [True, False])
    def test_a_click_whose_connection_is_cut_as_it_writes_is_told_to_try_again(
        learner_client, snippet, enqueued, htmx
    ):
        with cut_before('INSERT INTO "tutor_run"'):
            response = click_run(learner_client, snippet, **(HX if htmx else {}))
        assert_busy(response, htmx=htmx)
        assert not Run.objects.filter(purpose=Run.Purpose.RUN).exists()  # nothing half-way
        assert enqueued == []
        # Trying again, as it says, works.
        assert click_run(learner_client, snippet, **HX).status_code == 200
        assert Run.objects.filter(purpose=Run.Purpose.RUN).count() == 1

    def test_after_postgresql_drops_every_connection_the_next_clicks_are_answered(
        learner_client, snippet, enqueued
    ):
        assert click_run(learner_client, snippet, **HX).status_code == 200
        with _side_connection() as side:  # the pool's idle connections, as a restart leaves them
            pids = [pid for (pid,) in side.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()").fetchall()]
        assert pids
        _terminate(pids)
        connection.close()  # as the end of each request does (the test client does not)
        for _ in range(3):
            response = learner_client.get(snippet.block.lesson.get_absolute_url())
            assert response.status_code == 200
        assert click_run(learner_client, snippet, **HX).status_code == 200
        assert Run.objects.filter(purpose=Run.Purpose.RUN).count() == 2

    @pytest.mark.parametrize("fragment", ['"worker" = ', '"exit_code" = '], ids=["claim", "result"])
    def test_the_worker_finishes_a_run_whose_connection_was_cut(snippet, fragment):
        # First the claim (queued -> running), then the result (the row saved): each is
        # tried again on a new connection, and the run ends once, with its output.
        run = make_run(snippet, code='print("still here")\n', status=Run.Status.QUEUED)
        with cut_before(fragment):
            execute_run(run_id=run.pk)
        run.refresh_from_db()
        assert (run.status, run.stdout) == (Run.Status.OK, "still here\n")


# SQLite: the database locked ----------------------------------------------------------


@contextmanager
def sqlite_locked():
    """Another connection holds SQLite's write lock (a backup, a long writer) for longer
    than this one's busy timeout (shortened from 20 s for the test)."""
    connection.ensure_connection()
    connection.connection.execute("PRAGMA busy_timeout = 100")
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    held = [True]

    def release() -> None:
        if held[0]:
            other.execute("ROLLBACK")
            held[0] = False

    try:
        other.execute("BEGIN IMMEDIATE")
        yield release
    finally:
        release()
        other.close()
        if connection.connection is not None:  # not closed meanwhile
            connection.connection.execute(
                f"PRAGMA busy_timeout = {int(settings.SQLITE_OPTIONS['timeout'] * 1000)}"
            )


if not ON_POSTGRES:

    @pytest.mark.parametrize("htmx", [True, False])
    def test_a_click_while_sqlite_is_locked_is_told_to_try_again(
        learner_client, snippet, enqueued, htmx
    ):
        with sqlite_locked():
            response = click_run(learner_client, snippet, **(HX if htmx else {}))
        assert_busy(response, htmx=htmx)
        assert not Run.objects.filter(purpose=Run.Purpose.RUN).exists()
        assert enqueued == []
        assert click_run(learner_client, snippet, **HX).status_code == 200

    def test_a_click_finding_sqlite_locked_as_it_keeps_its_trail_stores_its_run_once(
        learner_client, snippet, enqueued
    ):
        from tutor.trail.models import TrailChunk

        locks, stored = [], []

        def wrapper(execute, sql, params, many, context):
            if 'INSERT INTO "tutor_run"' in sql:
                stored.append(sql)
            elif stored and not locks and sql.startswith("BEGIN"):  # the trail's transaction
                locks.append(sqlite_locked())
                locks[0].__enter__()
            return execute(sql, params, many, context)

        try:
            with connection.execute_wrapper(wrapper):
                response = click_run(learner_client, snippet, **HX)
        finally:
            for lock in locks:
                lock.__exit__(None, None, None)
        assert locks
        assert response.status_code == 200
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        assert enqueued == [run.pk]
        assert not TrailChunk.objects.exists()

    def test_a_poll_while_sqlite_is_locked_is_answered_when_it_reads_only(learner_client, snippet):
        # Readers go on in WAL mode while a writer holds the lock: a waiting panel's poll
        # still gets its answer.
        response = click_run(learner_client, snippet, **HX)
        run = Run.objects.get(purpose=Run.Purpose.RUN)
        with sqlite_locked():
            response = learner_client.get(reverse("tutor:run_detail", args=[run.pk]), **HX)
        assert response.status_code == 200
        assert "Waiting for a worker" in response.content.decode()


    @pytest.mark.parametrize("fragment", ['"worker" = ', '"exit_code" = '], ids=["claim", "result"])
    def test_the_worker_finishes_a_run_while_sqlite_is_locked(snippet, fragment):
        # Just before the claim, or the result, a backup takes the lock for longer than the
        # busy timeout; it lets go after that statement failed, and the worker's next try
        # goes through.
        run = make_run(snippet, code='print("still here")\n', status=Run.Status.QUEUED)
        failed = []
        locks = []

        def wrapper(execute, sql, params, many, context):
            if fragment not in sql or locks:
                return execute(sql, params, many, context)
            locks.append(sqlite_locked())
            locks[0].__enter__()
            try:
                return execute(sql, params, many, context)
            except Exception:
                failed.append(sql)
                raise
            finally:
                locks[0].__exit__(None, None, None)

        with connection.execute_wrapper(wrapper):
            execute_run(run_id=run.pk)
        assert failed
        run.refresh_from_db()
        assert (run.status, run.stdout) == (Run.Status.OK, "still here\n")

    def test_the_worker_takes_tasks_again_once_sqlite_is_no_longer_locked():
        from tutor.queueing import OrmBroker

        broker = OrmBroker(list_key=f"test-outages-{uuid.uuid4().hex[:8]}")
        broker.enqueue("a task")
        with sqlite_locked():
            assert broker.dequeue() is None  # the pusher waits, it does not die
        assert [payload for _, payload in broker.dequeue()] == ["a task"]


# Redis ----------------------------------------------------------------------------------


@pytest.fixture
def redis_server():
    with PrivateRedis() as server:
        yield server


@pytest.fixture
def redis_broker(redis_server, monkeypatch):
    """django-q2 on the private Redis, with Parsnip's broker, on a queue of its own."""
    name = f"test-outages-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "REDIS", redis_server.url)
    monkeypatch.setattr(Conf, "BROKER_CLASS", "tutor.queueing.RedisBroker")
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    monkeypatch.setattr(queueing, "_brokers", {})
    monkeypatch.setattr(queueing, "RESEND_EVERY", 0.05)
    yield f"django_q:{name}:q"
    with queueing._owed_lock:
        queueing._owed.clear()


def _messages(redis_server, queue: str) -> list[int]:
    import redis

    items = redis.Redis.from_url(redis_server.url).lrange(queue, 0, -1)
    return [SignedPackage.loads(item)["args"][0] for item in items]


def test_a_run_click_while_redis_is_down_is_answered_and_its_run_queued_when_redis_is_back(
    learner_client, snippet, redis_server, redis_broker
):
    redis_server.stop()
    response = click_run(learner_client, snippet, **HX)
    assert response.status_code == 200  # not an error: the run is stored, and waits
    assert "Waiting for a worker" in response.content.decode()
    run = Run.objects.get(purpose=Run.Purpose.RUN)
    assert run.status == Run.Status.QUEUED

    redis_server.start()
    deadline = time.monotonic() + 30
    while not (sent := _messages(redis_server, redis_broker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sent == [run.pk]  # handed to the worker once the broker is back, once


def test_the_lesson_page_is_served_while_redis_is_down(snippet, redis_server, settings):
    settings.CACHES = {"default": {"BACKEND": "tutor.connections.ForgivingRedisCache",
                                   "LOCATION": redis_server.url}}
    redis_server.stop()
    url = snippet.block.lesson.get_absolute_url()
    anonymous = Client(raise_request_exception=False)
    assert anonymous.get(url).status_code == 200  # whole page cached for them: a miss
    learner = Client(raise_request_exception=False)
    learner.force_login(make_user())
    response = learner.get(url)
    assert response.status_code == 200
    assert 'id="snippet-two-lines-practice"' in response.content.decode()


# The repair sweep -------------------------------------------------------------------------


def test_the_sweep_sends_again_the_runs_queued_too_long_and_only_those(snippet, enqueued):
    from datetime import timedelta

    from django.utils import timezone

    queued = Run.Status.QUEUED
    forgotten = make_run(snippet, status=queued, created_at=timezone.now() - timedelta(seconds=31))
    make_run(snippet, status=queued)  # just queued: its message is on its way
    make_run(snippet, status=Run.Status.OK, created_at=timezone.now() - timedelta(minutes=5))
    tasks.fail_stale_runs()
    assert enqueued == [forgotten.pk]
