"""Upgrading keeps everything: a database built and filled by the previous release (its own
code, from this repository's history), migrated by this code, still holds every row of a
school's work with the same values; and the upgraded site serves it."""

import pytest
from django.db import connection

from tests.operations.upgrade import build_old_database, lost_rows, rows_by_table, run_manage

ON_SQLITE = connection.vendor == "sqlite"


@pytest.fixture
def database_url(tmp_path):
    if ON_SQLITE:
        yield f"sqlite:///{tmp_path / 'school.sqlite3'}"
        return
    import psycopg

    from operations.backups import _pg_params

    params = _pg_params(connection.settings_dict)
    name = f"{connection.settings_dict['NAME']}_upgrade"
    admin = {**params, "dbname": "postgres", "autocommit": True}
    with psycopg.connect(**admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    host = params.get("host", "")
    yield f"postgres://{params.get('user', '')}@{host}/{name}" if host else f"postgres:///{name}"
    with psycopg.connect(**admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_upgrading_from_the_previous_release_keeps_every_row(tmp_path, database_url):
    from django.conf import settings

    build_old_database(tmp_path, database_url)
    before = rows_by_table(database_url)
    assert before["tutor_trail"][1] and before["lti_scoresync"][1] and before["tutor_run"][1]

    run_manage(settings.BASE_DIR, database_url, "migrate", "--no-input", "-v", "0")

    after = rows_by_table(database_url)
    assert lost_rows(before, after) == {}
    # Learners' tables hold exactly what they held: rows are only added where a release adds
    # its own bookkeeping (migrations, new models' types and permissions, schedules).
    bookkeeping = {"django_migrations", "django_content_type", "auth_permission",
                   "django_q_schedule"}
    changed = {t for t, (_, rows) in before.items() if len(after[t][1]) != len(rows)}
    assert changed <= bookkeeping, changed
    # The upgraded code reads the old rows as a teacher would see them.
    said = run_manage(settings.BASE_DIR, database_url, script=(
        "import django; django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('recompute_progress')\n"
        "from tutor.models import Cohort\n"
        "print(Cohort.objects.get().memberships.count())\n"))
    assert said.strip().splitlines()[-1] == "8"
