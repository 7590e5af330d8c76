"""The one way work reaches the worker: a task, by its dotted name, through django-q2.

Actions enqueue here, never by importing tutor.tasks (which imports the actions), so the
arrow goes one way: tasks -> actions -> queueing. Tests replace `enqueue_run` to run the
task in-process, or not at all.
"""

import threading

from django.db import transaction
from django_q.brokers import Broker, get_broker
from django_q.conf import Conf
from django_q.tasks import async_task

EXECUTE_RUN = "tutor.tasks.execute_run"

_brokers: dict[str, Broker] = {}
_brokers_lock = threading.Lock()


def broker() -> Broker:
    """This process's broker, made once. django-q2 makes one for every task it is not given
    one for, and its Redis broker a new client with it: a new connection to Redis (and its
    handshake) for every run a learner queues, a tenth of a Run click's time in a class's
    burst. The Redis client's own pool is shared by threads; the ORM broker holds nothing."""
    key = Conf.CLUSTER_NAME
    if key not in _brokers:
        with _brokers_lock:
            if key not in _brokers:
                _brokers[key] = get_broker(key)
    return _brokers[key]


def enqueue_run(run_id: int) -> None:
    async_task(EXECUTE_RUN, run_id, task_name=f"run-{run_id}", save=False, broker=broker())


def enqueue_run_on_commit(run_id: int) -> None:
    """Hand the run to the worker once the transaction that stored it has committed."""
    transaction.on_commit(lambda: enqueue_run(run_id))


def enqueue_task_on_commit(func: str, *args, task_name: str) -> None:
    """Hand any task (by dotted name) to the worker once the current transaction commits:
    apps built on tutor (lti) queue their work through here too."""
    transaction.on_commit(
        lambda: async_task(func, *args, task_name=task_name, save=False, broker=broker())
    )
