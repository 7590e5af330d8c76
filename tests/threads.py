"""Threads a test starts that touch the database."""

import threading

from django.db import connections


def start(target, *args) -> threading.Thread:
    """Run `target(*args)` in a new thread that closes its own database connections when it
    ends. (Left open, a PostgreSQL connection outlives the test until garbage collection and
    can keep the test database from being dropped at the end of the run.)"""

    def run():
        try:
            target(*args)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread
