"""/health/ answers 200 when the database, the cache, Redis (on the scale-out path), a
worker and its sandbox are all up, and names each part that is down with a 500."""

import shutil
import socket
import subprocess
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from operations.models import Heartbeat
from operations.tasks import heartbeat

# The checks run in threads of their own, with their own connections: rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

URL = "/health/"


def health(client) -> tuple[int, dict]:
    response = client.get(URL, HTTP_ACCEPT="application/json")
    return response.status_code, response.json()


def failing(report: dict) -> dict:
    return {name: said for name, said in report.items() if said != "OK"}


def test_the_url_is_named():
    assert reverse("operations:health") == URL


def test_healthy_when_a_worker_has_just_run_the_sandbox(client):
    assert heartbeat() is True  # the real sandbox, as a worker runs it
    status, report = health(client)
    assert status == 200, report
    assert failing(report) == {}
    assert {"Database", "Cache", "Worker", "Sandbox"} <= {name.split("(")[0] for name in report}


def test_a_stopped_worker_is_reported_down(client):
    heartbeat()
    Heartbeat.objects.update(beat_at=timezone.now() - timedelta(minutes=10))
    status, report = health(client)
    assert status == 500
    assert list(failing(report)) == ["Worker()"]
    assert "No worker seen since" in report["Worker()"]


def test_no_worker_ever_is_reported_down(client):
    status, report = health(client)
    assert status == 500
    assert "start manage.py qcluster" in report["Worker()"]


def test_a_sandbox_that_cannot_run_is_reported_down(client, settings):
    from tutor import sandbox

    # The worker's interpreter gone: the probe fails as every learner's run would.
    sandbox.configure(interpreter="/nonexistent/python3")
    try:
        assert heartbeat() is False
    finally:
        sandbox.configure(interpreter=sandbox.INTERPRETER)
    status, report = health(client)
    assert status == 500
    assert list(failing(report)) == ["Sandbox()"]
    assert "The sandbox failed on" in report["Sandbox()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_redis(tmp_path):
    """A Redis of this test's own, which the test may stop (never the machine's)."""
    port = free_port()
    server = subprocess.Popen(
        [shutil.which("redis-server"), "--port", str(port), "--bind", "127.0.0.1",
         "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    client = redis.Redis.from_url(url)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            server.poll()
            assert server.returncode is None, "redis-server did not start"
            import time

            time.sleep(0.05)
    yield url, server
    server.kill()
    server.wait()


def test_redis_down_is_reported_down(client, settings, private_redis):
    url, server = private_redis
    settings.REDIS_URL = url
    heartbeat()
    status, report = health(client)
    assert status == 200, report
    assert any(name.startswith("Redis") for name in report)

    server.terminate()
    server.wait()
    status, report = health(client)
    assert status == 500
    assert [name.split("(")[0] for name in failing(report)] == ["Redis"]


def test_the_database_down_is_reported_down(client, monkeypatch):
    heartbeat()
    from django.db import connections

    backend = type(connections["default"])

    def refuse(*args, **kwargs):
        raise connections["default"].Database.OperationalError("connection refused")

    # The health check opens its own connection in a thread of its own: the server refuses it,
    # as a stopped database server does.
    monkeypatch.setattr(backend, "get_new_connection", refuse)
    status, report = health(client)
    assert status == 500
    assert "Database(alias='default')" in failing(report)


def test_the_page_names_each_part_for_a_person(client):
    heartbeat()
    response = client.get(URL)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    text = response.content.decode()
    assert "Every part a class needs is up." in text
    assert "<style" not in text


def test_every_page_and_the_admin_show_the_release(client):
    import tomllib

    from django.conf import settings

    from tests.factories import make_admin

    with open(settings.BASE_DIR / "pyproject.toml", "rb") as file:
        version = tomllib.load(file)["project"]["version"]
    assert f"## {version}" in (settings.BASE_DIR / "CHANGELOG.md").read_text()
    assert f"Parsnip {version}" in client.get("/").content.decode()
    client.force_login(make_admin())
    admin = client.get("/admin/").content.decode()
    assert f"Parsnip {version}" in admin
    assert admin.count('id="footer"') == 1  # Django's own footer holds it (no second one)


def test_the_page_answers_in_a_thread_that_runs_an_event_loop(client):
    """The browser tests' driver runs an event loop in the test thread for the whole session:
    the health page must answer there as anywhere (an async view called from WSGI did not).
    A thread of the test's own runs the loop, whatever else this process runs."""
    import asyncio
    import threading

    from django.db import connections

    heartbeat()
    answered = []

    async def ask():
        answered.append(client.get(URL, HTTP_ACCEPT="application/json"))

    def in_a_loop():
        try:
            asyncio.run(ask())
        finally:
            connections.close_all()

    thread = threading.Thread(target=in_a_loop)
    thread.start()
    thread.join()
    [response] = answered
    assert response.status_code == 200, response.content


def test_the_page_names_each_part_in_words_not_python(client):
    heartbeat()
    response = client.get(URL, HTTP_ACCEPT="text/html")
    page = response.content.decode()
    assert response.status_code == 200
    for name in ("Database", "Cache", "Worker (manage.py qcluster)", "Sandbox"):
        assert f'<th scope="row">{name}</th>' in page
    assert "Worker()" not in page and "Sandbox()" not in page and "alias=" not in page
    assert '<div class="page">' in page  # in the site's column, as every other page
