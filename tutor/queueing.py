"""The one way work reaches the worker: a task, by its dotted name, through django-q2.

Actions enqueue here, never by importing tutor.tasks (which imports the actions), so the
arrow goes one way: tasks -> actions -> queueing. Tests replace `enqueue_run` to run the
task in-process, or not at all.

A queued Run row is the truth; the broker's message only a way to wake a worker. So a
message that cannot be sent (Redis down) is not the learner's error: this process keeps
its run's id and sends it again as soon as the broker answers; and a broker that lost its
messages (Redis restarted with nothing saved) is told again about every queued run
(`when_messages_lost`, the worker's side). The repair sweep is the net under both.
"""

import logging
import threading
import time
from collections.abc import Callable

from django.db import transaction
from django_q.brokers import Broker, get_broker
from django_q.brokers.orm import ORM
from django_q.brokers.redis_broker import Redis
from django_q.conf import Conf
from django_q.tasks import async_task

from tutor.connections import DATABASE_OUTAGES, forget_broken_connection, redis_outages

logger = logging.getLogger(__name__)

EXECUTE_RUN = "tutor.tasks.execute_run"
# How often a process with messages it could not send tries the broker again (seconds).
RESEND_EVERY = 0.5

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
    """Hand run `run_id` (a committed, queued row) to the worker. If the broker cannot take
    it now, the message is owed: sent again until it can, never the click's error."""
    try:
        _send(run_id)
    except Exception as error:
        logger.warning("run %s stays queued: the broker is away (%s); sending it later",
                       run_id, error)
        _owe(run_id)


def _send(run_id: int) -> None:
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


# Messages owed -----------------------------------------------------------------------

_owed: set[int] = set()
_owed_lock = threading.Lock()
_resender: threading.Thread | None = None


def owed() -> set[int]:
    """The runs this process could not hand to the broker yet."""
    with _owed_lock:
        return set(_owed)


def _owe(run_id: int) -> None:
    global _resender
    with _owed_lock:
        _owed.add(run_id)
        if _resender is None or not _resender.is_alive():
            _resender = threading.Thread(target=_resend_owed, daemon=True,
                                         name="parsnip-resend-runs")
            _resender.start()


def _resend_owed() -> None:
    """Until nothing is owed: try the broker every RESEND_EVERY seconds, and send every
    owed run at the first answer (oldest first: the learners who waited longest)."""
    global _resender
    while True:
        time.sleep(RESEND_EVERY)
        with _owed_lock:
            waiting = sorted(_owed)
            if not waiting:
                _resender = None
                return
        for run_id in waiting:
            try:
                _send(run_id)
            except Exception:
                break  # still away: try again later
            with _owed_lock:
                _owed.discard(run_id)
            logger.warning("run %s sent to the broker again", run_id)


# The worker's side: a broker that notices messages were lost --------------------------

_when_lost: list[Callable[[], None]] = []


def when_messages_lost(callback: Callable[[], None]) -> None:
    """Call `callback` in the worker whenever the broker may have lost messages (tutor's
    app hands every queued run to the queue again)."""
    if callback not in _when_lost:
        _when_lost.append(callback)


def messages_lost() -> None:
    for callback in _when_lost:
        try:
            callback()
        except Exception:  # the database may be away too: the sweep comes round anyway
            logger.exception("could not queue the waiting runs again")


class RedisBroker(Redis):
    """django-q2's Redis broker (Q_CLUSTER's `broker_class` when REDIS_URL is set), which
    outlasts Redis going away: the worker's pusher waits for it instead of dying (django-q2's
    would sleep 10 s and be started again), and when it answers again, or has forgotten
    everything (a restart with nothing saved: the marker key is gone), every queued run is
    sent again. A run sent twice runs once: the worker claims the row."""

    MARK_EVERY = 1.0  # seconds between looks at the marker key

    def __init__(self, list_key: str | None = None) -> None:
        super().__init__(list_key=list_key)
        self._away = False
        self._marked_at = 0.0

    def __setstate__(self, state) -> None:  # the cluster hands its broker to the pusher
        super().__setstate__(state)
        self._away = False
        self._marked_at = 0.0

    @staticmethod
    def get_connection(list_key: str | None = None):
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # One quick retry (a connection broken since its last use), not redis-py's ten
        # spread over seconds: a click must not wait for a broker that is down.
        return redis.Redis.from_url(Conf.REDIS, retry=Retry(NoBackoff(), 1),
                                    socket_connect_timeout=2)

    @property
    def marker(self) -> str:
        return f"{self.list_key}:kept"

    def dequeue(self):
        try:
            lost = self._look_for_loss()
            task = self.connection.blpop(self.list_key, 1)
        except redis_outages() as error:
            if not self._away:
                logger.warning("the broker is away (%s); waiting for it", error)
            self._away = True
            time.sleep(0.5)
            return None
        if lost:
            messages_lost()
        if task:
            return [(None, task[1])]
        return None

    def _look_for_loss(self) -> bool:
        """True when Redis is back after being away, or has lost its data since we looked."""
        now = time.monotonic()
        if not self._away and now - self._marked_at < self.MARK_EVERY:
            return False
        kept = self.connection.set(self.marker, b"1", nx=True) is None  # the marker was there
        self._marked_at = now
        was_away, self._away = self._away, False
        if was_away or not kept:
            logger.warning("the broker may have lost runs (%s); sending every queued run again",
                           "it was away" if was_away else "its data is gone")
            return True
        return False


class OrmBroker(ORM):
    """django-q2's ORM broker (the embedded default's, Q_CLUSTER's `broker_class` without
    Redis), whose pusher outlasts the database being locked (a backup) or away: it looks
    again half a second later instead of dying (django-q2's would sleep 10 s and be started
    again). Its tasks are rows of the same database, so none is lost meanwhile."""

    def dequeue(self):
        try:
            return super().dequeue()
        except DATABASE_OUTAGES as error:
            logger.warning("the queue's database is locked or away (%s); looking again", error)
            forget_broken_connection()
            time.sleep(0.5)
            return None
