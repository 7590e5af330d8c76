"""A real django-q2 cluster (`manage.py qcluster`) on a database of its own.

Used by the worker tests and bench/queue.py: the web side (`queue_run`) and the worker
are separate processes talking only through the broker and the database, as in production.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

CLIENT = r"""
import json, sys, time
import django
django.setup()
from tutor.actions.runs import queue_run
from tutor.models import Run

from django.db import close_old_connections

for line in sys.stdin:
    request = json.loads(line)
    close_old_connections()  # as each web request does: a connection lost meanwhile is let go
    if "queue" in request:  # queue without waiting: {"queue": [code, ...]} -> ids
        print(json.dumps([queue_run(code=code).pk for code in request["queue"]]), flush=True)
        continue
    if "status" in request:  # {"status": [id, ...]} -> {id: [status, stderr]}
        rows = Run.objects.filter(pk__in=request["status"]).values_list("pk", "status", "stderr")
        print(json.dumps({pk: [status, stderr] for pk, status, stderr in rows}), flush=True)
        continue
    if "rows" in request:  # {"rows": [id, ...]} -> {id: [status, stdout, stderr]}
        rows = Run.objects.filter(pk__in=request["rows"]).values_list("pk", "status", "stdout", "stderr")
        print(json.dumps({pk: [status, out, err] for pk, status, out, err in rows}), flush=True)
        continue
    started = time.perf_counter()
    run = queue_run(code=request["code"])
    # Sleeps until the worker's notice (tutor/run_notices.py), as a waiting request does.
    run.wait_until_final(request.get("timeout", 30))
    total_ms = (time.perf_counter() - started) * 1000
    print(json.dumps({
        "id": run.pk, "status": run.status, "stdout": run.stdout, "stderr": run.stderr,
        "duration_ms": run.duration_ms, "total_ms": total_ms,
    }), flush=True)
"""


class WorkerCluster:
    """Start a database, a qcluster and a client process; `run(code)` goes end to end."""

    def __init__(self, *, database: str = "sqlite", redis_url: str = "", postgres=None) -> None:
        """`postgres`: a tests.services.PrivatePostgres to use instead of the machine's."""
        self.database = database
        self.redis_url = redis_url
        self.postgres = postgres
        self.tmp = tempfile.TemporaryDirectory(prefix="parsnip-worker-")
        self.name = f"parsnip-test-{uuid.uuid4().hex[:8]}"
        self.pg_name = None
        self.cluster = None
        self.client = None

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            Q_CLUSTER_NAME=self.name,
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            LOG_LEVEL="WARNING",
        )
        return env

    def start(self) -> "WorkerCluster":
        if self.database == "postgres" and self.postgres is not None:
            self.postgres.createdb(self.name.replace("-", "_"))  # dropped with its server
            self.database_url = self.postgres.database_url(self.name.replace("-", "_"))
        elif self.database == "postgres":
            self.pg_name = self.name.replace("-", "_")
            subprocess.run(["createdb", self.pg_name], check=True)
            self.database_url = f"postgres:///{self.pg_name}"
        else:
            self.database_url = f"sqlite:///{self.tmp.name}/db.sqlite3"
        env = self._env()
        manage = [sys.executable, str(BASE_DIR / "manage.py")]
        subprocess.run([*manage, "migrate", "-v", "0"], env=env, check=True, cwd=BASE_DIR)
        self.start_worker()
        self.client = subprocess.Popen(
            [sys.executable, "-c", CLIENT],
            env=env,
            cwd=BASE_DIR,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        return self

    def start_worker(self) -> None:
        self.cluster = subprocess.Popen(
            [sys.executable, str(BASE_DIR / "manage.py"), "qcluster"],
            env=self._env(),
            cwd=BASE_DIR,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=open(Path(self.tmp.name) / "qcluster.log", "a"),
        )

    def kill_worker(self) -> None:
        """SIGKILL the whole cluster at once, as a crash or the OOM killer would."""
        os.killpg(self.cluster.pid, signal.SIGKILL)
        self.cluster.wait()

    def _ask(self, request: dict):
        self.client.stdin.write(json.dumps(request) + "\n")
        self.client.stdin.flush()
        line = self.client.stdout.readline()
        if not line:
            raise RuntimeError("the client process died; qcluster log:\n" + self.log())
        return json.loads(line)

    def queue(self, *codes: str) -> list[int]:
        return self._ask({"queue": list(codes)})

    def statuses(self, run_ids: list[int]) -> dict[int, tuple[str, str]]:
        return {int(pk): tuple(row) for pk, row in self._ask({"status": run_ids}).items()}

    def rows(self, run_ids: list[int]) -> dict[int, tuple[str, str, str]]:
        """Each run's (status, stdout, stderr)."""
        return {int(pk): tuple(row) for pk, row in self._ask({"rows": run_ids}).items()}

    def wait_until_final(self, run_ids: list[int], seconds: float) -> float:
        """Seconds until every run is final (or `seconds`, then the caller's asserts say)."""
        started = time.monotonic()
        while time.monotonic() < started + seconds:
            if all(status not in ("queued", "running")
                   for status, _ in self.statuses(run_ids).values()):
                break
            time.sleep(0.2)
        return time.monotonic() - started

    def run(self, code: str, timeout: float = 30) -> dict:
        return self._ask({"code": code, "timeout": timeout})

    def log(self) -> str:
        return (Path(self.tmp.name) / "qcluster.log").read_text()

    def stop(self) -> None:
        if self.client:
            self.client.stdin.close()
            self.client.wait(10)
        if self.cluster and self.cluster.poll() is None:
            os.killpg(self.cluster.pid, signal.SIGTERM)
            try:
                self.cluster.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.cluster.pid, signal.SIGKILL)
                self.cluster.wait()
        if self.pg_name:
            time.sleep(0.2)
            subprocess.run(["dropdb", "--if-exists", "--force", self.pg_name], check=False)
        self.tmp.cleanup()

    def __enter__(self) -> "WorkerCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
