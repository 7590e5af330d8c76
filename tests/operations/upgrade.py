"""A database made by an earlier release of Parsnip, with a school's work in it, and the
check that upgrading it to this code keeps every row with its meaning.

The earlier release's code is taken from this repository's history (`git archive`), set up
and populated by its own code in a process of its own, then migrated by this code.
"""

import io
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from contextlib import closing
from pathlib import Path

# The release before operations (CHANGELOG.md, 0.5.0): main on 2026-12-06 before this work.
RELEASE = "2047ef9"
POPULATION = Path(__file__).with_name("population.py")
ROOT = Path(__file__).resolve().parents[2]


def checkout(release: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", release],
        capture_output=True, check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    # Its own tests package, plus the population script this release's code can run.
    shutil.copy(POPULATION, into / "tests" / "operations_population.py")
    return into


def run_manage(code: Path, database_url: str, *args: str, script: str | None = None) -> str:
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": database_url,
           "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(code),
           "LOG_LEVEL": "WARNING"}
    env.pop("PG_TEST_NAME", None)
    command = [sys.executable, "-c", script] if script else [sys.executable, "manage.py", *args]
    done = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


# The population's passwords are hashed with a fast hasher: what is measured and checked is
# the learners' work, not log-ins (a stored password hash is a row like any other).
POPULATE = """
import django
django.setup()
from django.conf import settings
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
from tests.operations_population import populate
populate(students={students}, lessons={lessons})
"""


def build_old_database(tmp_path: Path, database_url: str, *, students: int = 8,
                       lessons: int = 1) -> Path:
    code = checkout(RELEASE, tmp_path / "release")
    run_manage(code, database_url, "migrate", "--no-input", "-v", "0")
    run_manage(code, database_url, script=POPULATE.format(students=students, lessons=lessons))
    return code


def rows_by_table(database_url: str) -> dict[str, tuple[list[str], list[tuple]]]:
    """Every table: its columns and its rows, as the driver reads them."""
    if database_url.startswith("sqlite"):
        path = database_url.removeprefix("sqlite:///")
        with closing(sqlite3.connect(path)) as db:
            tables = [t for (t,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
            found = {}
            for table in tables:
                cursor = db.execute(f'SELECT * FROM "{table}"')
                found[table] = ([c[0] for c in cursor.description], cursor.fetchall())
            return found
    import psycopg

    with psycopg.connect(database_url) as db:
        tables = [t for (t,) in db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
        found = {}
        for table in tables:
            cursor = db.execute(f'SELECT * FROM "{table}"')
            found[table] = ([c.name for c in cursor.description], cursor.fetchall())
        return found


def lost_rows(before: dict, after: dict) -> dict[str, list]:
    """Rows of `before` that `after` no longer holds, comparing the columns both have."""
    lost = {}
    for table, (columns, rows) in before.items():
        if table not in after:
            if rows:
                lost[table] = ["(the table is gone)"]
            continue
        after_columns, after_rows = after[table]
        dropped = [c for i, c in enumerate(columns) if c not in after_columns
                   and any(row[i] not in (None, "") for row in rows)]
        if dropped:
            lost[table] = [f"column {c} dropped with its values" for c in dropped]
            continue
        shared = [c for c in columns if c in after_columns]
        keep = [columns.index(c) for c in shared]
        keep_after = [after_columns.index(c) for c in shared]
        # repr: JSON columns come back as dicts, which do not hash.
        now = {tuple(repr(row[i]) for i in keep_after) for row in after_rows}
        missing = [row for row in rows if tuple(repr(row[i]) for i in keep) not in now]
        if missing:
            lost[table] = missing[:3]
    return lost
