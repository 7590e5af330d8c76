"""The real task path: queue_run in one process, `manage.py qcluster` in another.

Each broker Parsnip supports is exercised: the ORM broker on SQLite (the embedded default),
and Redis with PostgreSQL (the scale-out path), against the services on this machine.
"""

import shutil
import subprocess

import pytest

from tests.worker_cluster import WorkerCluster


def _redis_up() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_timeout=1).ping())
    except Exception:
        return False


def _postgres_up() -> bool:
    return shutil.which("createdb") is not None and (
        subprocess.run(["psql", "-Atc", "select 1", "postgres"], capture_output=True).returncode
        == 0
    )


def _assert_runs_end_to_end(cluster: WorkerCluster) -> None:
    result = cluster.run('print("hello from the worker")', timeout=60)
    assert result["status"] == "ok", cluster.log()
    assert result["stdout"] == "hello from the worker\n"
    # The waiting client was woken by the worker's notice, not by its 60 s time-out (half
    # of it leaves a cold worker on a busy machine all the time it needs).
    assert result["total_ms"] < 30_000

    result = cluster.run("raise SystemExit('boom')")
    assert result["status"] == "error"
    assert "boom" in result["stderr"]

    result = cluster.run(
        "import os\nprint(os.environ.get('SECRET_KEY'), os.environ.get('DATABASE_URL'))"
    )
    assert result["stdout"] == "None None\n"


@pytest.fixture(scope="module")
def sqlite_cluster():
    with WorkerCluster() as cluster:
        yield cluster


def test_embedded_default_sqlite_with_the_orm_broker(sqlite_cluster):
    _assert_runs_end_to_end(sqlite_cluster)


def test_a_sleeping_run_times_out_and_the_worker_keeps_going(sqlite_cluster):
    result = sqlite_cluster.run("import time\ntime.sleep(60)")
    assert result["status"] == "timeout"
    assert sqlite_cluster.run("print(1)")["stdout"] == "1\n"


def test_scale_out_postgresql_with_the_redis_broker():
    # The machines Parsnip is developed and tested on run both services; a missing one
    # is a broken environment, not a reason to skip.
    assert _postgres_up(), "PostgreSQL is not reachable on this machine"
    assert _redis_up(), "Redis is not reachable on 127.0.0.1:6379"
    with WorkerCluster(database="postgres", redis_url="redis://127.0.0.1:6379/15") as cluster:
        _assert_runs_end_to_end(cluster)


def _worker_killed_mid_burst(cluster: WorkerCluster) -> None:
    import time

    from tutor.models import Run

    slow = cluster.queue(*["import time\ntime.sleep(8)\nprint('slow')"] * 2)
    quick = cluster.queue(*[f"print({i})" for i in range(6)])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # both workers busy with the slow ones
        if all(status == "running" for status, _ in cluster.statuses(slow).values()):
            break
        time.sleep(0.1)
    else:
        raise AssertionError(
            f"the slow runs never started: {cluster.statuses(slow)}\n{cluster.log()}"
        )
    assert all(status == "queued" for status, _ in cluster.statuses(quick).values())

    cluster.kill_worker()
    killed = time.monotonic()
    time.sleep(3)
    cluster.start_worker()

    while time.monotonic() < killed + 30:
        statuses = cluster.statuses(slow + quick)
        if all(status in ("ok", "failed") for status, _ in statuses.values()):
            break
        time.sleep(0.2)
    done = time.monotonic() - killed
    statuses = cluster.statuses(slow + quick)
    # The runs the dead worker held are failed with a plain "run it again" ...
    assert [statuses[pk] for pk in slow] == [("failed", Run.WORKER_LOST_MESSAGE)] * 2, cluster.log()
    # ... and the queued ones ran on the restarted worker, without waiting for a retry.
    assert [statuses[pk][0] for pk in quick] == ["ok"] * 6, cluster.log()
    assert done < 30


def test_a_worker_killed_mid_burst_loses_no_run_on_the_embedded_default():
    with WorkerCluster() as cluster:
        _worker_killed_mid_burst(cluster)


def test_a_worker_killed_mid_burst_loses_no_run_with_redis_and_postgresql():
    with WorkerCluster(database="postgres", redis_url="redis://127.0.0.1:6379/15") as cluster:
        _worker_killed_mid_burst(cluster)
