"""Database connections a request need not hold while it does something slow."""

from django.db import connection


def release_connection() -> None:
    """Give a pooled database connection back to the pool now; the next query takes one
    again. For work that needs no database for a while (sleeping until a run is done,
    hashing a password): a hundred learners doing it at once must not hold a hundred
    PostgreSQL connections, nor make the other requests wait for the pool. Inside a
    transaction the connection is kept. (SQLite has no pool and no such limit.)"""
    if connection.in_atomic_block:
        return
    if connection.settings_dict.get("OPTIONS", {}).get("pool"):
        connection.close()
