"""Password hashing that holds no database connection while it works."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher

from tutor.connections import release_connection


class PBKDF2ReleasingPasswordHasher(PBKDF2PasswordHasher):
    """Django's default hasher (the same algorithm and stored form, so every existing
    password still verifies and none needs rehashing), except that a pooled database
    connection goes back to the pool before each hash.

    A hash is deliberately slow (about 0.4 s of CPU here). Logging in looks the user up and
    then checks the password, so a class logging in at once had each log-in hold one of the
    process's few pooled connections through its hash: the other requests queued for the
    pool and, on a busy machine, timed out with a server error. Inside a transaction (a
    sign-up saving its new user) the connection is kept."""

    def encode(self, password, salt, iterations=None):
        release_connection()
        return super().encode(password, salt, iterations)
