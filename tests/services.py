"""A Redis and a PostgreSQL server of a test's own, to stop and start at will.

The machine's own servers are shared (other checkouts run their suites against them at the
same time): a test of what a class sees when Redis or PostgreSQL restarts restarts one of
these instead, on a free port, with its data in a temporary directory. bench/class.py's
`--fault` uses them too.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PG_BIN = Path(
    os.environ.get("PG_BIN")
    or next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), "/usr/bin")
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(check, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not come up in {seconds} s")


class PrivateRedis:
    """redis-server on a free port, saving nothing: a restart forgets every key, as a Redis
    without persistence (or one restarted after a full memory) does."""

    def __init__(self) -> None:
        self.port = free_port()
        self.tmp = tempfile.TemporaryDirectory(prefix="parsnip-redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> "PrivateRedis":
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.tmp.name, "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_for(self.answers, "redis-server")
        return self

    def answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
        except redis.exceptions.RedisError:
            return False

    def stop(self) -> None:
        """Shut down, nothing saved (SIGTERM with --save "")."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)

    def restart(self, down_for: float = 0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()

    def close(self) -> None:
        self.stop()
        self.tmp.cleanup()

    def __enter__(self) -> "PrivateRedis":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


class PrivatePostgres:
    """A PostgreSQL cluster of its own (initdb into a temporary directory, run as the
    `postgres` user when this process is root, as PostgreSQL requires), on a free port."""

    def __init__(self, *, durable: bool = False) -> None:
        self.port = free_port()
        self.tmp = tempfile.mkdtemp(prefix="parsnip-pg-")
        self.data = Path(self.tmp) / "data"
        self.durable = durable  # fsync as a real server; off is enough for tests
        self.url = f"postgres://postgres@127.0.0.1:{self.port}"

    def _as_owner(self, *command: str, **options) -> subprocess.CompletedProcess:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run([*prefix, *command], check=True, **options)

    def start(self) -> "PrivatePostgres":
        if not self.data.exists():
            if os.geteuid() == 0:
                shutil.chown(self.tmp, "postgres")
            self._as_owner(str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres",
                           "-A", "trust", "-E", "UTF8", "--locale", "C.UTF-8",
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.tmp} "
                   "-c max_connections=200")
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._as_owner(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options,
                       "-l", str(Path(self.tmp) / "server.log"), "-w", "-t", "60", "start",
                       stdout=subprocess.DEVNULL)
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop as `pg_ctl stop -m fast` does: every session is cut off."""
        self._as_owner(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
                       "stop", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def restart(self, down_for: float = 0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()

    def database_url(self, name: str) -> str:
        return f"{self.url}/{name}"

    def createdb(self, name: str) -> None:
        subprocess.run([str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                        "-U", "postgres", name], check=True)

    def close(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> "PrivatePostgres":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
