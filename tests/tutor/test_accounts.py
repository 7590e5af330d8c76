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
        {"username": "ada", "password1": "a-long-passphrase-42", "password2": "other-passphrase-42"},
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
        {"old_password": "pw-dan", "new_password1": "new-passphrase-77", "new_password2": "new-passphrase-77"},
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
    assert client.login(username="teacher", password="parsnip-teacher")
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
