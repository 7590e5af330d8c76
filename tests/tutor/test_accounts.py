from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_signup_page_shows_the_form(client):
    response = client.get(reverse("tutor:signup"))
    assert response.status_code == 200
    assert b"Create your account" in response.content


def test_signup_creates_a_student_logs_in_and_goes_back_to_next(client):
    response = client.post(
        reverse("tutor:signup"),
        {
            "username": "ada",
            "email": "ada@example.com",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
            "next": "/glossary/",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/glossary/"
    user = User.objects.get(username="ada")
    assert not user.is_staff
    assert not user.groups.exists()
    assert client.session["_auth_user_id"] == str(user.pk)


def test_signup_refuses_mismatched_passwords_and_keeps_the_username(client):
    response = client.post(
        reverse("tutor:signup"),
        {
            "username": "ada",
            "password1": "a-long-passphrase-42",
            "password2": "other-passphrase-42",
        },
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="ada").exists()
    assert b'value="ada"' in response.content
    assert b"didn" in response.content  # "The two password fields didn’t match."


def test_signup_ignores_an_offsite_next(client):
    response = client.post(
        reverse("tutor:signup"),
        {
            "username": "bob",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
            "next": "https://evil.example/",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_login_and_logout(client):
    make_user("cleo")
    response = client.post(reverse("login"), {"username": "cleo", "password": "pw-cleo"})
    assert response.status_code == 302
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_login_with_a_wrong_password_says_so(client):
    make_user("cleo")
    response = client.post(reverse("login"), {"username": "cleo", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_password_change_requires_login(client):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_password_change(client):
    user = make_user("dan")
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "pw-dan",
            "new_password1": "new-passphrase-77",
            "new_password2": "new-passphrase-77",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("new-passphrase-77")


def test_password_reset_sends_an_email_on_the_console_backend(client):
    make_user("eve", email="eve@example.com")
    response = client.post(reverse("password_reset"), {"email": "eve@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert "eve@example.com" in mail.outbox[0].to


def test_seed_demo_prints_three_accounts_that_can_log_in(client):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("seed_demo", stdout=out)
    text = out.getvalue()
    for username in ("student", "teacher", "admin"):
        assert username in text
    response = client.post(reverse("login"), {"username": "teacher", "password": "parsnip-teacher"})
    assert response.status_code == 302
    assert User.objects.get(username="teacher").groups.filter(name="Teachers").exists()
    assert User.objects.get(username="admin").is_staff


def test_password_reset_link_lets_the_user_choose_a_new_password(client):
    import re

    make_user("fay", email="fay@example.com")
    client.post(reverse("password_reset"), {"email": "fay@example.com"})
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert b"Choose a new password" in form_page.content
    response = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "fresh-passphrase-99", "new_password2": "fresh-passphrase-99"},
    )
    assert response.status_code == 302
    assert User.objects.get(username="fay").check_password("fresh-passphrase-99")


def test_a_used_or_forged_reset_link_says_it_is_no_longer_valid(client):
    response = client.get("/accounts/reset/MQ/bad-token/")
    assert b"no longer valid" in response.content


# Look-alike usernames ----------------------------------------------------------------


def sign_up(client, username: str, email: str = ""):
    return client.post(
        reverse("tutor:signup"),
        {
            "username": username,
            "email": email,
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
    )


@pytest.mark.parametrize(
    "look_alike",
    [
        "stud\u0435nt",  # Cyrillic е
        "\u0455tudent",  # Cyrillic ѕ
        "STUDENT",  # another case
        "\uff53\uff54\uff55\uff44\uff45\uff4e\uff54",  # fullwidth letters (NFKC: "student")
        "stude\u0578t",  # Armenian ո for n
    ],
)
def test_a_username_that_looks_like_a_taken_one_is_refused(client, look_alike):
    make_user("student")

    response = sign_up(client, look_alike)

    assert response.status_code == 200
    assert User.objects.count() == 1
    errors = response.context["form"].errors["username"]
    assert any(
        "already exists" in e or "looks just like the username “student”" in e for e in errors
    )


def test_usernames_are_stored_nfkc_normalised(client):
    response = sign_up(client, "\uff41\uff44\uff41")  # fullwidth "ada"
    assert response.status_code == 302
    assert User.objects.get().username == "ada"


def test_a_username_mixing_look_alike_alphabets_is_refused_even_when_new(client):
    response = sign_up(client, "p\u0430ypal")  # Cyrillic а among Latin letters
    assert response.status_code == 200
    assert "mixes letters from different alphabets" in response.text
    assert not User.objects.exists()


@pytest.mark.parametrize("name", ["Дмитрий", "ゆき", "zoë", "ada_lovelace-2"])
def test_a_username_in_one_alphabet_is_welcome(client, name):
    assert sign_up(client, name).status_code == 302
    assert User.objects.filter(username=name).exists()


# One account per e-mail address --------------------------------------------------------


def test_an_email_address_already_used_is_refused_whatever_its_case(client):
    make_user("ann", email="Ann@Example.com")

    response = sign_up(client, "anne", email="ann@EXAMPLE.com")

    assert response.status_code == 200
    assert "An account already uses this e-mail address" in response.text
    assert not User.objects.filter(username="anne").exists()
    assert sign_up(client, "anne").status_code == 302  # without an address is fine


def test_a_password_reset_mails_one_account(client):
    sign_up(client, "ann", email="Ann@example.com")
    client.logout()
    sign_up(client, "ann2", email="ann@example.com")
    client.logout()

    client.post(reverse("password_reset"), {"email": "ANN@example.com"})

    assert len(mail.outbox) == 1


def test_the_database_keeps_one_account_per_address(db):
    from django.db import IntegrityError, transaction

    make_user("ann", email="ann@example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_user("bea", email="ANN@example.com")
    make_user("cy", email="")
    make_user("dee", email="")  # no address is no address, however many


# Log-in throttling ------------------------------------------------------------------------


def log_in(client, username, password, **extra):
    return client.post(reverse("login"), {"username": username, "password": password}, **extra)


def test_logging_in_is_paused_after_too_many_wrong_passwords(client, settings):
    make_user("cleo")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "cleo", "guess").status_code == 200

    response = log_in(client, "cleo", "guess")

    assert response.status_code == 429
    assert "Too many wrong passwords" in response.text
    assert "paused for 15 minutes" in response.text
    # Even the right password waits: guessing cannot go on.
    response = log_in(client, "cleo", "pw-cleo")
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
    # Someone else at the same address, and Cleo from another one, are not held up.
    make_user("dora")
    assert log_in(client, "dora", "pw-dora").status_code == 302
    client.logout()
    assert log_in(client, "cleo", "pw-cleo", REMOTE_ADDR="10.0.0.9").status_code == 302


def test_an_admin_sees_the_lockout_and_can_lift_it(client, settings):
    from django.core.management import call_command

    from tests.factories import make_admin

    make_user("cleo")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "cleo", "guess")
    admin = make_admin()
    client.force_login(admin)
    attempts = client.get(reverse("admin:axes_accessattempt_changelist"))
    assert attempts.status_code == 200 and "cleo" in attempts.text
    client.logout()

    call_command("axes_reset_username", "cleo", stdout=StringIO())

    assert log_in(client, "cleo", "pw-cleo").status_code == 302


def test_a_successful_log_in_forgets_earlier_mistakes(client, settings):
    make_user("cleo")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        log_in(client, "cleo", "guess")
    assert log_in(client, "cleo", "pw-cleo").status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "cleo", "guess").status_code == 200


def test_the_admin_keeps_the_same_rules_for_accounts(client):
    from tests.factories import make_admin

    make_user("student", email="stu@example.com")
    other = make_user("other")
    client.force_login(make_admin())
    response = client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "stud\u0435nt",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
            "usable_password": "true",
        },
    )
    assert response.status_code == 200
    assert "looks just like the username" in response.text
    response = client.post(
        reverse("admin:auth_user_change", args=[other.pk]),
        {
            "username": "other",
            "email": "STU@example.com",
            "is_active": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )
    assert response.status_code == 200
    assert "An account already uses this e-mail address" in response.text
    other.refresh_from_db()
    assert other.email == ""
