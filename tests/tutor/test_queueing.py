"""Handing work to the worker: every task queued by a web process goes through one broker,
so queueing a class's runs opens one connection to Redis, not one per run."""

import threading
import uuid

import pytest
import redis
from django_q.conf import Conf

from tutor import queueing

REDIS_URL = "redis://127.0.0.1:6379/13"


@pytest.fixture
def redis_broker(monkeypatch):
    """django-q2 configured for Redis, as on the scale-out path, on a queue of its own."""
    name = f"test-queueing-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "REDIS", REDIS_URL)
    monkeypatch.setattr(Conf, "BROKER_CLASS", "tutor.queueing.RedisBroker")
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    monkeypatch.setattr(queueing, "_brokers", {})
    server = redis.Redis.from_url(REDIS_URL)
    yield server, f"django_q:{name}:q"
    server.delete(f"django_q:{name}:q")


def test_runs_queued_from_many_threads_share_one_broker_and_its_connections(
    redis_broker, monkeypatch
):
    server, queue = redis_broker
    connects = []
    original = redis.connection.AbstractConnection.on_connect_check_health

    def counted(connection, *args, **kwargs):  # a new socket to Redis: its handshake
        connects.append(connection)
        return original(connection, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "on_connect_check_health", counted)
    for run_id in range(10):  # one after another: one connection, kept
        queueing.enqueue_run(run_id)
    assert len(connects) == 1

    def queue_some(first: int) -> None:
        for run_id in range(first, first + 10):
            queueing.enqueue_run(run_id)

    threads = [threading.Thread(target=queue_some, args=(100 * n,)) for n in range(1, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert server.llen(queue) == 50  # every task is there
    assert len(connects) <= 1 + len(threads)  # at most one more per thread at once, not per task
    assert len(queueing._brokers) == 1
