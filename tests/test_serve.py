"""`make serve`, which `make run` ends with: stopping it (Ctrl-C, or TERM from a process
manager) stops the worker and the web server it started, and leaves nothing running.
django-q2's cluster can hang for good when a TERM reaches it inside its own signal handler
(django-q2 issue #346); `make serve` asked it twice, and stopped benchmark sites left
their worker behind, still taking tasks."""

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def marked(marker: bytes) -> set[int]:
    """The processes whose environment carries `marker`: everything `make serve` started."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as environ:
                    if marker in environ.read().split(b"\0"):
                        found.add(int(entry))
            except OSError:
                pass  # ended meanwhile, or another user's
    return found


def a_free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(url: str) -> bool:
    """The web server answers, whatever it says (on a fresh clone, with no collected static
    files, a page is a server error: the processes, not the page, are what is tested)."""
    try:
        urllib.request.urlopen(url, timeout=2)
        return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_stopping_the_site_stops_its_worker_and_its_web_server(tmp_path):
    tag = uuid.uuid4().hex
    marker = f"PARSNIP_SERVE_TEST={tag}".encode()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/db.sqlite3",
        REDIS_URL="",
        Q_CLUSTER_NAME=f"parsnip-serve-{tag[:8]}",
        LOG_LEVEL="WARNING",
        WEB_CONCURRENCY="1",
        PARSNIP_SERVE_TEST=tag,
    )
    subprocess.run(
        [str(BASE_DIR / ".venv/bin/python"), "manage.py", "migrate", "-v", "0"],
        env=env, cwd=BASE_DIR, check=True,
    )  # fmt: skip
    port = a_free_port()
    site = subprocess.Popen(
        ["make", "-s", "serve", "HOST=127.0.0.1", f"PORT={port}"],
        env=env, cwd=BASE_DIR, start_new_session=True,
        stdout=open(tmp_path / "serve.log", "w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        assert wait_until(lambda: answers(f"http://127.0.0.1:{port}/"), 60), (
            tmp_path / "serve.log"
        ).read_text()
        started = marked(marker)
        commands = {Path(f"/proc/{pid}/cmdline").read_bytes() for pid in started}
        assert any(b"qcluster" in command for command in commands)
        assert any(b"gunicorn" in command for command in commands)

        os.killpg(site.pid, signal.SIGTERM)  # what Ctrl-C or a process manager does
        site.wait(60)
        assert wait_until(lambda: not marked(marker), 30), [
            Path(f"/proc/{pid}/cmdline").read_bytes() for pid in marked(marker)
        ]
        assert not answers(f"http://127.0.0.1:{port}/")
    finally:
        for pid in marked(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
