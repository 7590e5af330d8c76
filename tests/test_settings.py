"""The settings module, driven by environment variables, as production would run it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "a-long-random-production-secret-key-for-the-deploy-check-0123456789abcdef",
    "ALLOWED_HOSTS": "parsnip.example.com",
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # The parent test run may have set these (the browser fixture sets DJANGO_ALLOW_ASYNC_UNSAFE).
    drop = {"DEBUG", "SECRET_KEY", "SANDBOX_BACKEND", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    clean = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), *args],
        env={**clean, **env},
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
    )


def test_deploy_check_reports_nothing_with_production_variables():
    result = manage("check", "--deploy", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", DEBUG="0", ALLOWED_HOSTS="parsnip.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_debug_is_off_unless_asked_for():
    """A deployment that forgets DEBUG gets no debug pages, and no start without a key."""
    show = "from django.conf import settings; print(settings.DEBUG)"
    result = manage("shell", "-c", show, SECRET_KEY=PRODUCTION["SECRET_KEY"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "False"
    assert manage("shell", "-c", show, DEBUG="1").stdout.split()[-1] == "True"

    forgot_everything = manage("check")
    assert forgot_everything.returncode != 0
    assert "SECRET_KEY must be set" in forgot_everything.stderr


def test_a_weaker_sandbox_backend_is_refused_when_debug_is_off():
    result = manage("check", SANDBOX_BACKEND="unsafe-subprocess", **PRODUCTION)
    assert result.returncode != 0
    assert "refused when DEBUG is off" in result.stderr
    assert manage("check", SANDBOX_BACKEND="unsafe-subprocess", DEBUG="1").returncode == 0


@pytest.mark.django_db  # lets this test open its own connection
def test_sqlite_runs_in_wal_mode_with_immediate_transactions(tmp_path):
    """The embedded default's connection options, checked on a real SQLite file (also when
    this suite itself runs on PostgreSQL)."""
    from django.db.utils import ConnectionHandler

    from config.settings import SQLITE_OPTIONS

    handler = ConnectionHandler(
        {
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": str(tmp_path / "embedded.sqlite3"),
                "OPTIONS": SQLITE_OPTIONS,
            }
        }
    )
    connection = handler["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
            cursor.execute("PRAGMA busy_timeout")
            assert cursor.fetchone()[0] >= 5000
        assert connection.transaction_mode == "IMMEDIATE"
    finally:
        connection.close()


def test_every_response_carries_a_strict_content_security_policy(client, db):
    policy = client.get("/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_postgresql_connections_are_pooled_and_bind_parameters_on_the_server():
    """The scale-out path's connections, as `make run` makes them with DATABASE_URL set:
    from a bounded pool, and with parameters sent apart from the statement (no query text
    rebuilt in Python for each execution; a statement run often is prepared once)."""
    probe = (
        "from django.db import connection\n"
        "with connection.cursor() as cursor:\n"
        "    cursor.execute('SELECT %s + %s', [2, 3])\n"
        "    print(cursor.fetchone()[0], type(cursor.cursor).__name__, connection.pool.max_size)\n"
    )
    done = manage(
        "shell", "--no-imports", "-c", probe, DEBUG="1", DATABASE_URL="postgres:///postgres", DB_POOL_MAX="5"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5", "ServerBindingCursor", "5"]


def test_the_policy_allows_webassembly_and_workers_from_this_site_and_no_eval(client, db):
    """Python in the learner's browser compiles WebAssembly in a worker of our own; nothing
    else is opened: no eval() of JavaScript, no other host."""
    policy = client.get("/")["Content-Security-Policy"]
    assert "'wasm-unsafe-eval'" in policy
    assert "worker-src 'self'" in policy
    assert "'unsafe-eval'" not in policy
    assert "http" not in policy.replace("https:", "")  # no other host named


def test_pyodides_files_are_cached_for_good_and_other_unhashed_files_are_not(settings):
    from config.static import StaticFilesMiddleware

    middleware = StaticFilesMiddleware(lambda request: None)
    prefix = middleware.static_prefix
    wasm = f"{prefix}{settings.PYODIDE_STATIC}pyodide.asm.wasm"
    assert middleware.immutable_file_test("", wasm)
    assert not middleware.immutable_file_test("", f"{prefix}js/snippet.js")


def test_pyodide_is_built_into_the_static_files_by_make_frontend(settings):
    folder = settings.BASE_DIR / "static" / settings.PYODIDE_STATIC
    names = {path.name for path in folder.iterdir()}
    assert names == {
        "pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
    }
