"""Waiting for a run to finish without asking the database over and over.

The worker announces every run it finishes. A request (or a long poll) that waits for one
registers first, then looks at the row once, then sleeps on a threading.Event until the
announcement or its time-out, holding no pooled database connection, and looks once
more. Waiting therefore costs two reads whatever its length, and a class waiting for the
same reveal wakes together the moment it is known.

Each process that waits has one listener thread, whatever the number of waiters:
- scale-out (REDIS_URL set): a Redis pattern subscription, which reaches every machine;
- embedded (one machine): a named pipe per process in a private directory; the worker
  writes the run's id into every listener's pipe. No extra service.
A notice that is lost (a worker killed between saving and announcing, Redis restarting)
only means the waiter looks again at its time-out.
"""

import errno
import hashlib
import logging
import os
import secrets
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import connection

from tutor.connections import is_outage, release_connection

logger = logging.getLogger(__name__)

# How long a new listener may take to be ready before waiters fall back on their time-out.
LISTENER_READY_SECONDS = 2.0


def announce(run_id: int) -> None:
    """Wake everyone waiting for this run (called once its row is final and committed)."""
    try:
        if settings.REDIS_URL:
            _redis(settings.REDIS_URL).publish(_channel(run_id), b"final")
        else:
            _announce_to_pipes(_pipe_directory(), run_id)
    except Exception as error:  # a missed notice costs a waiter its time-out, never the result
        if is_outage(error):
            logger.warning("could not announce run %s: Redis is away (%s)", run_id, error)
        else:
            logger.exception("could not announce run %s", run_id)


def wait(run_id: int, is_final: Callable[[], bool], timeout: float) -> bool:
    """Wait up to `timeout` seconds for run `run_id`; returns `is_final()` at the end.

    `is_final` reads the database; it is called once before sleeping and once after.
    """
    if timeout <= 0:
        return is_final()
    listener = _listener()
    event = listener.register(run_id)
    try:
        if is_final():
            return True
        release_connection()
        event.wait(timeout)
    finally:
        listener.unregister(run_id, event)
    return is_final()


# One listener per process ------------------------------------------------------------


class Listener:
    """Hands each notice this process hears to the waiters registered for that run."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.waiting: dict[int, set[threading.Event]] = {}
        self.ready = threading.Event()
        self.listened = False  # has been ready once: a later start is after a loss

    def register(self, run_id: int) -> threading.Event:
        event = threading.Event()
        with self.lock:
            self.waiting.setdefault(run_id, set()).add(event)
        return event

    def unregister(self, run_id: int, event: threading.Event) -> None:
        with self.lock:
            events = self.waiting.get(run_id)
            if events is not None:
                events.discard(event)
                if not events:
                    del self.waiting[run_id]

    def heard(self, run_id: int) -> None:
        with self.lock:
            events = list(self.waiting.get(run_id, ()))
        for event in events:
            event.set()

    def heard_again(self) -> None:
        """Listening again after a loss (Redis restarted): notices sent meanwhile are lost,
        so every waiter looks at its row now rather than at its time-out."""
        if self.listened:
            with self.lock:
                events = [event for events in self.waiting.values() for event in events]
            for event in events:
                event.set()
        self.listened = True
        self.ready.set()

    def start(self, listen: Callable[["Listener"], None]) -> "Listener":
        thread = threading.Thread(target=self._forever, args=(listen,), daemon=True,
                                  name="parsnip-run-notices")
        thread.start()
        self.ready.wait(LISTENER_READY_SECONDS)
        return self

    def _forever(self, listen: Callable[["Listener"], None]) -> None:
        while True:
            try:
                listen(self)
            except Exception as error:
                if is_outage(error):
                    logger.warning("run notices: Redis is away (%s); listening again soon", error)
                else:
                    logger.exception("run notices: listener failed; starting again")
            self.ready.clear()
            time.sleep(1)


_listeners: dict[tuple, Listener] = {}
_listeners_lock = threading.Lock()


def _listener() -> Listener:
    """This process's listener for the configured carrier (a forked child makes its own)."""
    if settings.REDIS_URL:
        key = ("redis", settings.REDIS_URL, _channel("*"))
        listen = _listen_on_redis(settings.REDIS_URL, _channel("*"))
    else:
        directory = _pipe_directory()
        key = ("pipes", str(directory))
        listen = _listen_on_pipe(directory)
    with _listeners_lock:
        listener = _listeners.get(key)
        if listener is None or listener.pid != os.getpid():
            listener = _listeners[key] = Listener().start(listen)
    return listener


# Redis -----------------------------------------------------------------------------


_clients: dict[str, object] = {}


def _redis(url: str):
    if url not in _clients:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # One quick retry, not redis-py's ten over seconds: with Redis away, a worker must
        # not wait to announce (the waiter reads the row at its time-out anyway).
        _clients[url] = redis.Redis.from_url(url, retry=Retry(NoBackoff(), 1),
                                             socket_connect_timeout=1)
    return _clients[url]


def _channel(run_id: int | str) -> str:
    return f"{settings.Q_CLUSTER['name']}:run-final:{run_id}"


def _listen_on_redis(url: str, pattern: str) -> Callable[[Listener], None]:
    def listen(listener: Listener) -> None:
        pubsub = _redis(url).pubsub()
        try:
            pubsub.psubscribe(pattern)
            for message in pubsub.listen():
                if message["type"] == "psubscribe":
                    listener.heard_again()
                elif message["type"] == "pmessage":
                    channel = message["channel"].decode()
                    listener.heard(int(channel.rsplit(":", 1)[1]))
        finally:
            pubsub.close()

    return listen


# Named pipes on one machine ---------------------------------------------------------


def _pipe_directory() -> Path:
    """One private directory per database, so two sites or test runs on a machine never
    wake each other's waiters."""
    database = connection.settings_dict
    name = f"{database['ENGINE']}|{database.get('HOST', '')}|{database['NAME']}"
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"parsnip-run-notices-{digest}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            raise PermissionError(f"{path} is not a directory of this user's") from None
    return path


def _listen_on_pipe(directory: Path) -> Callable[[Listener], None]:
    def listen(listener: Listener) -> None:
        path = directory / f"{os.getpid()}.{secrets.token_hex(6)}"
        os.mkfifo(path, 0o600)
        # Read-write, so the pipe never reads as closed while no worker has it open.
        fd = os.open(path, os.O_RDWR)
        try:
            listener.ready.set()
            pending = b""
            while chunk := os.read(fd, 65536):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.isdigit():
                        listener.heard(int(line))
        finally:
            os.close(fd)
            path.unlink(missing_ok=True)

    return listen


def _announce_to_pipes(directory: Path, run_id: int) -> None:
    notice = f"{run_id}\n".encode()  # shorter than PIPE_BUF: written whole or not at all
    with os.scandir(directory) as entries:
        for entry in entries:
            try:
                fd = os.open(entry.path, os.O_WRONLY | os.O_NONBLOCK)
            except FileNotFoundError:
                continue  # its listener has just gone
            except OSError as error:
                if error.errno == errno.ENXIO:  # left behind by a process that died
                    Path(entry.path).unlink(missing_ok=True)
                    continue
                raise
            try:
                os.write(fd, notice)
            except BlockingIOError:
                pass  # a listener that far behind is stuck; its waiters time out
            finally:
                os.close(fd)
