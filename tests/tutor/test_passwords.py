"""Logging in gives the pooled database connection back while the password is hashed."""

import pytest
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
    check_password,
    get_hasher,
    identify_hasher,
    make_password,
)
from django.db import connection
from django.urls import reverse

from config import settings as project_settings
from tests.factories import make_user
from tutor.passwords import Argon2ReleasingPasswordHasher, PBKDF2ReleasingPasswordHasher


class Watching(PBKDF2ReleasingPasswordHasher):
    """The project's hasher, with few iterations, noting whether a database connection was
    held when each hash started."""

    iterations = 1000
    held: list[bool] = []

    def encode(self, password, salt, iterations=None):
        result = super().encode(password, salt, iterations)
        # super() released the connection first; note whether it is open during the hash.
        Watching.held.append(connection.connection is not None)
        return result


class WatchingArgon2(Argon2ReleasingPasswordHasher):
    """The project's Argon2 hasher, made cheap, noting the same (Argon2 checks a password
    without encoding it again: its check is watched too)."""

    time_cost, memory_cost, parallelism = 1, 64, 1

    def encode(self, password, salt):
        result = super().encode(password, salt)
        Watching.held.append(connection.connection is not None)
        return result

    def verify(self, password, encoded):
        result = super().verify(password, encoded)
        Watching.held.append(connection.connection is not None)
        return result


def pooled() -> bool:
    return bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))


@pytest.fixture(params=["Watching", "WatchingArgon2"])
def watching(settings, request):
    settings.PASSWORD_HASHERS = [f"tests.tutor.test_passwords.{request.param}"]
    Watching.held = []
    return Watching.held


@pytest.mark.django_db(transaction=True)
def test_a_log_in_holds_no_pooled_connection_while_the_password_is_hashed(client, watching):
    make_user("cleo")
    watching.clear()
    response = client.post(reverse("login"), {"username": "cleo", "password": "pw-cleo"})
    assert response.status_code == 302
    assert watching, "the password was never hashed"
    # On PostgreSQL the connection is pooled and goes back; SQLite has no pool and keeps it.
    assert watching == [not pooled()] * len(watching)


@pytest.mark.django_db(transaction=True)
def test_a_wrong_password_and_an_unknown_name_are_refused_the_same_way(client, watching):
    make_user("cleo")
    for username, password in (("cleo", "wrong"), ("nobody", "pw-cleo")):
        response = client.post(reverse("login"), {"username": username, "password": password})
        assert response.status_code == 200
        assert "_auth_user_id" not in client.session
    assert len(watching) >= 3  # the account's, and the unknown name's too (hashed anyway)


@pytest.mark.django_db
def test_inside_a_transaction_the_connection_is_kept(watching):
    make_password("a-long-passphrase-42")
    assert watching == [True]


def test_passwords_stored_by_django_s_default_hasher_still_verify(settings):
    settings.PASSWORD_HASHERS = project_settings.PASSWORD_HASHERS
    stored = PBKDF2PasswordHasher().encode("a-long-passphrase-42", "somesalt", iterations=1000)
    assert check_password("a-long-passphrase-42", stored)
    assert not check_password("another-passphrase", stored)


def test_new_passwords_are_stored_with_argon2_no_weaker_than_django_s_own(settings):
    settings.PASSWORD_HASHERS = project_settings.PASSWORD_HASHERS
    hasher = get_hasher()
    assert isinstance(hasher, Argon2ReleasingPasswordHasher)
    assert (hasher.time_cost, hasher.memory_cost, hasher.parallelism) == (
        Argon2PasswordHasher.time_cost,
        Argon2PasswordHasher.memory_cost,
        Argon2PasswordHasher.parallelism,
    )
    assert identify_hasher(make_password("a-long-passphrase-42")).algorithm == "argon2"


@pytest.mark.django_db
def test_a_password_stored_with_pbkdf2_is_stored_again_with_argon2_when_its_owner_logs_in(
    client, settings
):
    settings.PASSWORD_HASHERS = project_settings.PASSWORD_HASHERS
    user = make_user("cleo")
    user.password = PBKDF2PasswordHasher().encode("pw-cleo", "somesalt", iterations=1000)
    user.save(update_fields=["password"])

    response = client.post(reverse("login"), {"username": "cleo", "password": "pw-cleo"})

    assert response.status_code == 302
    user.refresh_from_db()
    assert identify_hasher(user.password).algorithm == "argon2"
    assert user.check_password("pw-cleo")


def test_a_class_logging_in_at_once_hashes_only_a_few_passwords_at_a_time(settings, monkeypatch):
    """An Argon2 hash takes 100 MiB while it runs: six log-ins at once with room for two run
    two hashes, and the other four wait their turn (tutor.passwords.HashLimit)."""
    import threading

    from tutor import passwords

    settings.PASSWORD_HASHES_AT_ONCE = 2
    limit = passwords.HashLimit()
    monkeypatch.setattr(passwords, "HASHES", limit)
    inside, most, lock, release = [0], [0], threading.Lock(), threading.Event()

    def hashing(self, password, encoded):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        release.wait(60)
        with lock:
            inside[0] -= 1
        return True

    monkeypatch.setattr(Argon2PasswordHasher, "verify", hashing)
    hasher = Argon2ReleasingPasswordHasher()
    checked = []
    threads = [
        threading.Thread(target=lambda: checked.append(hasher.verify("secret", "argon2$..."))) for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    with limit.condition:  # every log-in has arrived: two hashing, four waiting
        arrived = limit.condition.wait_for(lambda: limit.running == 2 and limit.waiting == 4, timeout=60)
    release.set()
    for thread in threads:
        thread.join(60)
    assert arrived and most[0] == 2
    assert checked == [True] * 6 and (limit.running, limit.waiting) == (0, 0)
