"""Database connections: given back while a request does something slow, and outlasting
the database or Redis going away for a moment."""

import logging
import time
from collections.abc import Callable

from django.core.cache.backends.redis import RedisCache
from django.db import DatabaseError, InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)


def release_connection() -> None:
    """Give a pooled database connection back to the pool now; the next query takes one
    again. For work that needs no database for a while (sleeping until a run is done,
    hashing a password): a hundred learners doing it at once must not hold a hundred
    PostgreSQL connections, nor make the other requests wait for the pool. Inside a
    transaction the connection is kept. (SQLite has no pool and no such limit.)"""
    if connection.in_atomic_block:
        return
    if connection.settings_dict.get("OPTIONS", {}).get("pool"):
        connection.close()


# Outages ------------------------------------------------------------------------------
# PostgreSQL restarting (a failover, an upgrade) or Redis restarting must cost a class a
# moment's wait or a plain "try again", never a server error or a lost run.

# Errors a database or Redis raises while it is away or busy (a lost connection, the pool
# finding none in time, SQLite locked past its busy timeout): worth waiting for or trying
# again, unlike an error in what the statement asked.
DATABASE_OUTAGES = (OperationalError, InterfaceError)


def redis_outages() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


def is_outage(error: BaseException) -> bool:
    return isinstance(error, DATABASE_OUTAGES + redis_outages())


def forget_broken_connection() -> None:
    """After a database outage error: close this thread's connection (a pooled one goes
    back to the pool, which drops it if it is broken) so the next query takes a new one."""
    if connection.in_atomic_block:
        return
    try:
        connection.close()
    except DatabaseError:
        pass  # closing a dead connection may fail too; Django has let go of it either way


def outlasting_outages[T](work: Callable[[], T], *, seconds: float, what: str) -> T:
    """`work()`, called again after a database outage error until it succeeds or `seconds`
    have passed (then the last error is raised). For the worker's steps, each safe to do
    twice (a claim that checks what it claimed, a result saved by the run's id): a
    PostgreSQL restart then delays a run instead of losing it. Never inside a transaction,
    which the outage has already rolled back."""
    deadline = time.monotonic() + seconds
    delay = 0.1
    while True:
        try:
            return work()
        except DATABASE_OUTAGES as error:
            if connection.in_atomic_block or time.monotonic() + delay > deadline:
                raise
            logger.warning("%s: the database is away (%s); trying again", what, error)
            forget_broken_connection()
            time.sleep(delay)
            delay = min(delay * 2, 2.0)


class ForgivingRedisCache(RedisCache):
    """Django's Redis cache, for which a Redis that is down or restarting is a miss (reads)
    or nothing (writes): the cache only saves work, so a lesson page renders without it.
    One quick try, not redis-py's ten: a page must not wait seconds for a cache."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._options = {
            "retry": Retry(NoBackoff(), 1),
            "socket_connect_timeout": 1,
            "socket_timeout": 2,
            **self._options,
        }

    def _forgiving(self, name: str, fallback, *args, **kwargs):
        try:
            return getattr(super(), name)(*args, **kwargs)
        except redis_outages() as error:
            logger.warning("cache %s: Redis is away (%s)", name, error)
            return fallback

    def get(self, key, default=None, version=None):
        return self._forgiving("get", default, key, default, version)

    def get_many(self, keys, version=None):
        return self._forgiving("get_many", {}, keys, version)

    def has_key(self, key, version=None):
        return self._forgiving("has_key", False, key, version)

    def set(self, *args, **kwargs):
        return self._forgiving("set", None, *args, **kwargs)

    def add(self, *args, **kwargs):
        return self._forgiving("add", False, *args, **kwargs)

    def set_many(self, data, *args, **kwargs):
        return self._forgiving("set_many", list(data), data, *args, **kwargs)

    def touch(self, *args, **kwargs):
        return self._forgiving("touch", False, *args, **kwargs)

    def delete(self, *args, **kwargs):
        return self._forgiving("delete", False, *args, **kwargs)

    def delete_many(self, *args, **kwargs):
        return self._forgiving("delete_many", None, *args, **kwargs)
