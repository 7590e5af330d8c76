"""Password hashing that holds no database connection while it works.

The stored form is Argon2 (Django's Argon2PasswordHasher, with Django's own parameters):
checking a password costs about two thirds of the CPU time of Django's PBKDF2 default,
which the two cores of a machine spent in full when a class logged in together, and it
resists guessing on graphics cards better (it needs 100 MiB a guess). Passwords stored
with PBKDF2 still verify, and are stored again as Argon2 when their owner logs in.
"""

import threading

from django.conf import settings
from django.contrib.auth.hashers import Argon2PasswordHasher, PBKDF2PasswordHasher

from tutor.connections import release_connection


class HashLimit:
    """At most `settings.PASSWORD_HASHES_AT_ONCE` hashes at a time in this process; the
    others wait their turn.

    An Argon2 hash takes 100 MiB while it runs, and Argon2 lets go of the GIL: a class of
    30 logging in at once had one web process at 1.7 GB (64 threads, each hashing), and a
    class of 300 could ask for 6 GB a process. The hashes are CPU work, so running more
    at once than there are cores finishes none sooner: with the limit the memory is
    bounded, and the first log-ins are done first instead of everyone at the end.
    (`waiting` is kept for the test that watches the line.)"""

    def __init__(self):
        self.condition = threading.Condition()
        self.running = 0
        self.waiting = 0

    def __enter__(self):
        with self.condition:
            self.waiting += 1
            self.condition.wait_for(lambda: self.running < settings.PASSWORD_HASHES_AT_ONCE)
            self.waiting -= 1
            self.running += 1
        return self

    def __exit__(self, *exc):
        with self.condition:
            self.running -= 1
            self.condition.notify()  # the longest waiting, if any


HASHES = HashLimit()


class ReleasesConnection:
    """A pooled database connection goes back to the pool before each hash.

    A hash is deliberately slow (a quarter to a third of a second of CPU here). Logging in
    looks the user up and then checks the password, so a class logging in at once had each
    log-in hold one of the process's few pooled connections through its hash: the other
    requests queued for the pool and, on a busy machine, timed out with a server error.
    Inside a transaction (a sign-up saving its new user) the connection is kept. A few
    hashes run at once (`HashLimit`)."""

    def encode(self, password, salt, *args, **kwargs):
        release_connection()
        with HASHES:
            return super().encode(password, salt, *args, **kwargs)

    def verify(self, password, encoded):
        release_connection()
        with HASHES:
            return super().verify(password, encoded)


class Argon2ReleasingPasswordHasher(ReleasesConnection, Argon2PasswordHasher):
    """Django's Argon2 hasher (its algorithm name, stored form and parameters)."""


class PBKDF2ReleasingPasswordHasher(ReleasesConnection, PBKDF2PasswordHasher):
    """Django's PBKDF2 hasher (the same algorithm and stored form): what passwords stored
    before Argon2 were hashed with."""
