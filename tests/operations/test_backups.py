"""A backup restores into an empty database with every row identical, on SQLite and on
PostgreSQL; it is consistent while a class writes; a restore never mixes two databases."""

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from operations.backups import BackupError, restore
from tests.factories import make_user
from tests.operations.population import populate
from tutor.models import Cohort

pytestmark = pytest.mark.django_db(transaction=True)

ON_SQLITE = connection.vendor == "sqlite"


def rows_of_every_table(execute) -> dict[str, list]:
    """Every table's rows, sorted: the whole database as data."""
    if ON_SQLITE:
        tables = [t for (t,) in execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    else:
        tables = [t for (t,) in execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
    return {t: sorted(map(repr, execute(f'SELECT * FROM "{t}"'))) for t in sorted(tables)}


def read_database(settings_dict) -> dict[str, list]:
    """Every row of the database `settings_dict` names, read by the driver itself (not
    Django's converters), so two databases compare as stored."""
    if ON_SQLITE:
        with closing(sqlite3.connect(settings_dict["NAME"])) as db:
            return rows_of_every_table(lambda sql: db.execute(sql).fetchall())
    import psycopg

    from operations.backups import _pg_params

    with psycopg.connect(**_pg_params(settings_dict)) as db:
        return rows_of_every_table(lambda sql: db.execute(sql).fetchall())


def live_rows() -> dict[str, list]:
    return read_database(connection.settings_dict)


@pytest.fixture
def empty_database(tmp_path):
    """The settings of a second, empty database of the same engine, and a way to read it."""
    if ON_SQLITE:
        settings_dict = {**connection.settings_dict, "NAME": str(tmp_path / "restored.sqlite3")}
        yield settings_dict, lambda: read_database(settings_dict)
        return
    import psycopg

    from operations.backups import _pg_params

    name = f"{connection.settings_dict['NAME']}_restored"
    admin = {**_pg_params(connection.settings_dict), "dbname": "postgres", "autocommit": True}
    with psycopg.connect(**admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    settings_dict = {**connection.settings_dict, "NAME": name}
    yield settings_dict, lambda: read_database(settings_dict)
    with psycopg.connect(**admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_backup_restores_every_learners_work_identically(tmp_path, empty_database):
    populate(students=6)
    before = live_rows()
    path = Path(call_command_output("backup", f"{tmp_path}/nightly/"))
    assert path.parent == tmp_path / "nightly" and path.stat().st_size > 0

    settings_dict, read = empty_database
    restore(path, settings_dict=settings_dict)

    after = read()
    assert after == before
    # The rows the issue names are there, not only empty tables alike.
    for table in ("tutor_run", "tutor_trail", "tutor_assignment", "lti_scoresync", "auth_user"):
        assert after[table], table


def test_a_restore_refuses_a_database_that_holds_anything(tmp_path, empty_database):
    populate(students=1)
    path = Path(call_command_output("backup", str(tmp_path / "b.sqlite3")))
    settings_dict, read = empty_database
    restore(path, settings_dict=settings_dict)
    make_user("later")
    second = Path(call_command_output("backup", str(tmp_path / "c.backup")))

    with pytest.raises(BackupError, match="already holds tables"):
        restore(second, settings_dict=settings_dict)
    assert not any("later" in row for row in read()["auth_user"])

    restore(second, settings_dict=settings_dict, replace=True)
    assert any("later" in row for row in read()["auth_user"])


def test_restore_refuses_what_is_not_a_backup_with_a_clear_error(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database\n")
    with pytest.raises(CommandError, match="not a (SQLite|PostgreSQL) backup"):
        call_command("restore", str(junk))
    with pytest.raises(CommandError, match="No backup at"):
        call_command("restore", str(tmp_path / "missing.sqlite3"))


def test_restore_refuses_the_running_database_unless_told_to_replace(tmp_path):
    populate(students=1)
    path = Path(call_command_output("backup", str(tmp_path / "b.sqlite3")))
    with pytest.raises(CommandError, match="already holds tables"):
        call_command("restore", str(path))
    assert Cohort.objects.count() == 1


def test_a_backup_taken_while_a_class_writes_is_consistent(tmp_path, empty_database):
    """Writers add two users per transaction throughout the backup: a consistent snapshot
    holds an even number of them, whichever moment it caught."""
    from django.db import connections, transaction

    stop = threading.Event()

    def write_pairs(prefix):
        n = 0
        try:
            while not stop.is_set():
                with transaction.atomic():
                    make_user(f"{prefix}-{n}-a")
                    make_user(f"{prefix}-{n}-b")
                n += 1
        finally:
            connections.close_all()

    writers = [threading.Thread(target=write_pairs, args=(f"w{i}",)) for i in range(2)]
    for writer in writers:
        writer.start()
    try:
        paths = [Path(call_command_output("backup", f"{tmp_path}/during{i}/"))
                 for i in range(3)]
    finally:
        stop.set()
        for writer in writers:
            writer.join()

    settings_dict, read = empty_database
    for path in paths:
        restore(path, settings_dict=settings_dict, replace=True)
        users = read()["auth_user"]
        assert len(users) % 2 == 0


def call_command_output(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()
