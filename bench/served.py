"""Parsnip served exactly as `make run` serves it, on a throw-away database.

`make static` and `make serve` themselves start it (gunicorn from config/gunicorn.py with
DEBUG off, and the django-q2 worker), with DATABASE_URL pointing at a temporary SQLite
file (the embedded default) or, with `pg=True`, a fresh PostgreSQL database and Redis as
the broker (the scale-out path). This process talks to the same database through Django,
to create learners and count rows.
"""

import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from harness import ROOT

REDIS_URL = "redis://127.0.0.1:6379/14"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Site:
    def __init__(self, *, pg: bool = False, env: dict[str, str] | None = None) -> None:
        self.pg = pg
        self.extra_env = env or {}
        self.tmp = tempfile.TemporaryDirectory(prefix="parsnip-site-")
        self.name = f"bench_{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server: subprocess.Popen | None = None
        self.log = Path(self.tmp.name) / "server.log"

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
        env.update(
            DATABASE_URL=(
                f"postgres:///{self.name}" if self.pg else f"sqlite:///{self.tmp.name}/db.sqlite3"
            ),
            REDIS_URL=REDIS_URL if self.pg else "",
            Q_CLUSTER_NAME=self.name,
            LOG_LEVEL="WARNING",
            DEBUG="0",  # as `make run`; its own commands below need a key too
            HTTPS="0",
        )
        env.update(self.extra_env)  # bench/class.py --fault: servers of its own
        return env

    def manage(self, *args: str) -> None:
        subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", *args], env=self.env, cwd=ROOT,
            check=True, stdout=subprocess.DEVNULL,
        )

    def __enter__(self) -> "Site":
        if self.pg:
            subprocess.run(["createdb", self.name], check=True)
        self.manage("migrate", "-v", "0")
        self.manage("import_content", "content")
        subprocess.run(["make", "-s", "static"], env=self.env, cwd=ROOT, check=True)
        self.server = subprocess.Popen(
            ["make", "-s", "serve", "HOST=127.0.0.1", f"PORT={self.port}"],
            env=self.env, cwd=ROOT, start_new_session=True,
            stdout=open(self.log, "w"), stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        else:
            self.__exit__()
            raise RuntimeError("Parsnip did not start:\n" + self.log.read_text())
        time.sleep(2)  # the worker's processes start beside the web server
        # This process reads and writes the same database.
        os.environ.update(DATABASE_URL=self.env["DATABASE_URL"], REDIS_URL=self.env["REDIS_URL"],
                          Q_CLUSTER_NAME=self.name, DJANGO_SETTINGS_MODULE="config.settings")
        import django

        django.setup()
        return self

    def __exit__(self, *exc) -> None:
        if self.server is not None and self.server.poll() is None:
            # TERM, which `make serve` traps as it traps Ctrl-C: a benchmark started in the
            # background (`&`) has SIGINT ignored, and so would its `make`, for good.
            os.killpg(self.server.pid, signal.SIGTERM)
            try:
                self.server.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.server.pid, signal.SIGKILL)
                self.server.wait()
        from django.db import connections

        connections.close_all()
        if self.pg:
            time.sleep(0.5)
            subprocess.run(["dropdb", "--if-exists", "--force", self.name], check=False)
        if os.environ.get("KEEP_SERVER_LOG"):
            print(self.log.read_text()[-20000:])
        self.tmp.cleanup()
