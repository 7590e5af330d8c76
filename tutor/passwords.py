"""Password hashing that holds no database connection while it works.

The stored form is Argon2 (Django's Argon2PasswordHasher, with Django's own parameters):
checking a password costs about two thirds of the CPU time of Django's PBKDF2 default,
which the two cores of a machine spent in full when a class logged in together, and it
resists guessing on graphics cards better (it needs 100 MiB a guess). Passwords stored
with PBKDF2 still verify, and are stored again as Argon2 when their owner logs in.
"""

from django.contrib.auth.hashers import Argon2PasswordHasher, PBKDF2PasswordHasher

from tutor.connections import release_connection


class ReleasesConnection:
    """A pooled database connection goes back to the pool before each hash.

    A hash is deliberately slow (a quarter to a third of a second of CPU here). Logging in
    looks the user up and then checks the password, so a class logging in at once had each
    log-in hold one of the process's few pooled connections through its hash: the other
    requests queued for the pool and, on a busy machine, timed out with a server error.
    Inside a transaction (a sign-up saving its new user) the connection is kept."""

    def encode(self, password, salt, *args, **kwargs):
        release_connection()
        return super().encode(password, salt, *args, **kwargs)

    def verify(self, password, encoded):
        release_connection()
        return super().verify(password, encoded)


class Argon2ReleasingPasswordHasher(ReleasesConnection, Argon2PasswordHasher):
    """Django's Argon2 hasher (its algorithm name, stored form and parameters)."""


class PBKDF2ReleasingPasswordHasher(ReleasesConnection, PBKDF2PasswordHasher):
    """Django's PBKDF2 hasher (the same algorithm and stored form): what passwords stored
    before Argon2 were hashed with."""
