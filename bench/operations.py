"""A year of a school's work, upgraded and backed up: how long each takes.

    .venv/bin/python bench/operations.py [--learners 2000] [--pg]

Builds a database with the previous release's own code (tests/operations/upgrade.py) holding
N learners' work on L lessons (each lesson: a prediction, an ordering attempt, a submission, a run, progress and
an editing trail; a class, an assignment, a grade for the LMS), then measures, against the
baseline of reading every row of that database once in the same run:
- each migration from that release to this code (the slowest is what a class would wait on:
  a migration that rewrites a large table holds its lock for that long);
- `manage.py backup`, and `manage.py restore` into an empty database.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import harness  # noqa: F401 - puts the project first on sys.path

from tests.operations.upgrade import RELEASE, build_old_database, rows_by_table, run_manage

ROOT = Path(__file__).resolve().parent.parent

TIME_EACH_MIGRATION = """
import json, time, django
django.setup()
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
executor = MigrationExecutor(connection)
plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
timings = []
for migration, backwards in plan:
    started = time.perf_counter()
    executor = MigrationExecutor(connection)
    executor.migrate([(migration.app_label, migration.name)])
    timings.append([f"{migration.app_label}.{migration.name}", time.perf_counter() - started])
print(json.dumps(timings))
"""


def pg_database(name: str):
    import psycopg

    with psycopg.connect(dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgres:///{name}"


def timed(step) -> tuple[float, object]:
    started = time.perf_counter()
    result = step()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=2000)
    parser.add_argument("--lessons", type=int, default=12, help="lessons each learner worked")
    parser.add_argument("--pg", action="store_true", help="PostgreSQL instead of SQLite")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="parsnip-bench-ops-") as work:
        work = Path(work)
        url = pg_database("parsnip_bench_ops") if options.pg else f"sqlite:///{work}/school.sqlite3"
        print(f"building {options.learners} learners' work on {options.lessons} lessons with "
              f"release {RELEASE}'s code ...",
              file=sys.stderr)
        built, _ = timed(lambda: build_old_database(work, url, students=options.learners,
                                                  lessons=options.lessons))
        baseline, rows = timed(lambda: rows_by_table(url))
        total_rows = sum(len(r) for _, r in rows.values())
        print(f"database: {total_rows:,} rows in {len(rows)} tables (built in {built:.0f} s)")
        print(f"baseline, reading every row once: {baseline:.2f} s")

        _, said = timed(lambda: run_manage(ROOT, url, script=TIME_EACH_MIGRATION))
        timings = json.loads(said.strip().splitlines()[-1])
        total = sum(t for _, t in timings)
        print(f"upgrade: {len(timings)} migrations in {total:.2f} s "
              f"({total / baseline:.1f}x the baseline)")
        for name, seconds in sorted(timings, key=lambda item: -item[1])[:3]:
            print(f"  slowest: {name} {seconds:.2f} s")

        backup_took, out = timed(lambda: run_manage(ROOT, url, "backup", f"{work}/backups/"))
        path = Path(out.strip().splitlines()[-1])
        size = path.stat().st_size / 1e6
        print(f"backup: {backup_took:.2f} s ({backup_took / baseline:.1f}x), {size:.1f} MB")
        target = pg_database("parsnip_bench_ops_restored") if options.pg else (
            f"sqlite:///{work}/restored.sqlite3")
        restore_took, _ = timed(lambda: run_manage(ROOT, target, "restore", str(path)))
        print(f"restore into an empty database: {restore_took:.2f} s "
              f"({restore_took / baseline:.1f}x)")
        if options.pg:
            import psycopg

            with psycopg.connect(dbname="postgres", autocommit=True) as conn:
                for name in ("parsnip_bench_ops", "parsnip_bench_ops_restored"):
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
