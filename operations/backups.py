"""Backups of the whole database, taken while a class works, and restored into an empty one.

SQLite is copied with its online backup API (a consistent snapshot, writers carry on);
PostgreSQL with pg_dump (one snapshot) and pg_restore. Each writes the file beside its final
name and renames it, so a backup that fails half-way never looks like a backup.
"""

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

from django.db import connections

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"


class BackupError(Exception):
    """A backup or a restore could not be made; the message says why, in plain words."""


def engine_of(settings_dict: Mapping) -> str:
    engine = settings_dict["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        return "sqlite"
    if engine.startswith("django.db.backends.postgresql"):
        return "postgresql"
    raise BackupError(f"Backups of {engine} are not supported (SQLite and PostgreSQL are).")


def default_name(settings_dict: Mapping, stamp: str) -> str:
    suffix = ".sqlite3" if engine_of(settings_dict) == "sqlite" else ".pgdump"
    return f"parsnip-{stamp}{suffix}"


def backup(path: Path, *, alias: str = "default") -> Path:
    """Writes a backup of database `alias` to `path` and returns it."""
    connection = connections[alias]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        if engine_of(connection.settings_dict) == "sqlite":
            connection.ensure_connection()
            with closing(sqlite3.connect(partial)) as target:
                connection.connection.backup(target)
        else:
            _pg_command("pg_dump", connection.settings_dict, "--format=custom", "--no-owner",
                        f"--file={partial}")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def restore(path: Path, *, settings_dict: Mapping, replace: bool = False) -> None:
    """Restores the backup at `path` into the database `settings_dict` names. The database
    must hold no tables unless `replace` is given: a restore never mixes two databases."""
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"No backup at {path}.")
    head = _head(path)
    engine = engine_of(settings_dict)
    if engine == "sqlite":
        if not head.startswith(SQLITE_MAGIC):
            raise BackupError(f"{path} is not a SQLite backup; this Parsnip runs on SQLite.")
        _restore_sqlite(path, Path(settings_dict["NAME"]), replace=replace)
    else:
        if not head.startswith(PG_DUMP_MAGIC):
            raise BackupError(
                f"{path} is not a PostgreSQL backup (pg_dump's custom format); "
                "this Parsnip runs on PostgreSQL."
            )
        if not replace and _pg_has_tables(settings_dict):
            raise BackupError(_NOT_EMPTY.format(name=settings_dict["NAME"]))
        args = ["--no-owner", "--exit-on-error", "--single-transaction"]
        if replace:
            args += ["--clean", "--if-exists"]
        _pg_command("pg_restore", settings_dict, *args, str(path), database_flag="--dbname")


_NOT_EMPTY = (
    "The database {name} already holds tables. Restore into an empty database, or give "
    "--replace to replace everything in it with the backup."
)


def _head(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(16)


def _restore_sqlite(path: Path, target: Path, *, replace: bool) -> None:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as source:
        problems = source.execute("PRAGMA integrity_check").fetchone()[0]
        if problems != "ok":
            raise BackupError(f"{path} is damaged ({problems}); it cannot be restored.")
        with closing(sqlite3.connect(target, timeout=20)) as destination:
            tables = destination.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
            ).fetchone()[0]
            if tables and not replace:
                raise BackupError(_NOT_EMPTY.format(name=target))
            source.backup(destination)


def _pg_has_tables(settings_dict: Mapping) -> bool:
    import psycopg

    with psycopg.connect(**_pg_params(settings_dict)) as conn:
        return bool(
            conn.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
            ).fetchone()[0]
        )


def _pg_params(settings_dict: Mapping) -> dict:
    params = {"dbname": settings_dict["NAME"]}
    for key, name in (("USER", "user"), ("PASSWORD", "password"), ("HOST", "host"),
                      ("PORT", "port")):
        if settings_dict.get(key):
            params[name] = str(settings_dict[key])
    return params


def _pg_command(program: str, settings_dict: Mapping, *args: str,
                database_flag: str = "--dbname") -> None:
    executable = shutil.which(program)
    if executable is None:
        raise BackupError(f"{program} is not installed (Debian: apt-get install postgresql-client).")
    params = _pg_params(settings_dict)
    env = {**os.environ}
    if "password" in params:
        env["PGPASSWORD"] = params["password"]
    command = [executable, f"{database_flag}={params['dbname']}"]
    if "host" in params:
        command.append(f"--host={params['host']}")
    if "port" in params:
        command.append(f"--port={params['port']}")
    if "user" in params:
        command.append(f"--username={params['user']}")
    finished = subprocess.run(command + list(args), env=env, capture_output=True, text=True)
    if finished.returncode != 0:
        raise BackupError(f"{program} failed: {finished.stderr.strip() or finished.returncode}")
