"""The worker through its database or Redis restarting: every run finished once, right.

A real `manage.py qcluster` on a PostgreSQL cluster and a Redis of the test's own
(tests/services.py): the machine's own servers are shared, and never restarted by a test.
Whatever database the suite runs on, these run the scale-out path, as in production.
"""

import pytest

from tests.services import PrivatePostgres, PrivateRedis
from tests.worker_cluster import WorkerCluster


@pytest.fixture(scope="module")
def postgres():
    with PrivatePostgres() as server:
        yield server


@pytest.fixture(scope="module")
def redis_server():
    with PrivateRedis() as server:
        yield server


@pytest.fixture(scope="module")
def cluster(postgres, redis_server):
    # One cluster for the module (migrating a database takes a while): each test leaves it
    # working, every run final.
    with WorkerCluster(database="postgres", redis_url=redis_server.url, postgres=postgres) as c:
        yield c


def _programs(n: int, seconds: float) -> list[str]:
    return [f"import time\ntime.sleep({seconds})\nprint('run', {i})" for i in range(n)]


def _first_done(cluster: WorkerCluster, run_ids: list[int]) -> None:
    """Wait until the burst is under way: a run finished, others still waiting."""
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(status == "ok" for status, _ in cluster.statuses(run_ids).values()):
            return
        time.sleep(0.1)
    raise AssertionError(f"no run finished: {cluster.statuses(run_ids)}\n{cluster.log()}")


def _every_run_right(cluster: WorkerCluster, run_ids: list[int]) -> None:
    cluster.wait_until_final(run_ids, seconds=90)
    rows = cluster.rows(run_ids)
    assert sorted(rows) == sorted(run_ids)  # one row each, none made again
    assert [rows[pk][:2] for pk in run_ids] == [
        ("ok", f"run {i}\n") for i in range(len(run_ids))
    ], cluster.log()


def test_postgresql_restarting_mid_burst_loses_no_run(cluster, postgres):
    run_ids = cluster.queue(*_programs(8, 0.8))
    _first_done(cluster, run_ids)
    postgres.restart(down_for=2)  # pg_ctl stop -m fast: every connection cut
    _every_run_right(cluster, run_ids)
    assert cluster.run("print('after')", timeout=60)["stdout"] == "after\n"


def test_redis_restarting_with_nothing_saved_mid_burst_loses_no_run(cluster, redis_server):
    # More than the worker takes from Redis at once (its queue_limit, 20): some of the
    # burst is only in Redis when it goes, and is lost with it.
    run_ids = cluster.queue(*_programs(30, 0.1))
    _first_done(cluster, run_ids)
    redis_server.restart(down_for=2)
    _every_run_right(cluster, run_ids)
    assert cluster.run("print('after')", timeout=60)["stdout"] == "after\n"


def test_runs_queued_while_redis_is_down_run_when_it_is_back(cluster, redis_server):
    redis_server.stop()
    run_ids = cluster.queue(*_programs(4, 0))  # stored; their messages wait in the client
    redis_server.start()
    _every_run_right(cluster, run_ids)
