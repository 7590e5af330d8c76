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
        subprocess.run(["psql", "-Atc", "select 1", "postgres"], capture_output=True).returncode == 0
    )


def _assert_runs_end_to_end(cluster: WorkerCluster) -> None:
    result = cluster.run('print("hello from the worker")', timeout=20)
    assert result["status"] == "ok", cluster.log()
    assert result["stdout"] == "hello from the worker\n"
    # The waiting client was woken by the worker's notice, not by its 20 s time-out.
    assert result["total_ms"] < 10_000

    result = cluster.run("raise SystemExit('boom')")
    assert result["status"] == "error"
    assert "boom" in result["stderr"]

    result = cluster.run("import os\nprint(os.environ.get('SECRET_KEY'), os.environ.get('DATABASE_URL'))")
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
