"""What the admin does once: make Parsnip's signing key, register an LMS, read the values
to paste into it."""

import pytest
from django.core.management import call_command
from django.urls import reverse
from lti_tool.models import Key, LtiRegistration

from tests.factories import make_admin

pytestmark = pytest.mark.django_db


@pytest.fixture
def registration(db):
    return LtiRegistration.objects.create(
        name="Moodle",
        issuer="https://moodle.school.example",
        client_id="abc123",
        auth_url="https://moodle.school.example/mod/lti/auth.php",
        token_url="https://moodle.school.example/mod/lti/token.php",
        keyset_url="https://moodle.school.example/mod/lti/certs.php",
    )


def test_the_key_command_makes_a_key_the_keyset_publishes_and_rotates_it(client):
    assert client.get(reverse("lti:jwks")).json() == {"keys": []}
    call_command("rotate_keys", stdout=open("/dev/null", "w"))
    (first,) = client.get(reverse("lti:jwks")).json()["keys"]
    assert first["kty"] == "RSA" and first["use"] == "sig" and "d" not in first  # public only
    call_command("rotate_keys", "--deactivate-after=0", stdout=open("/dev/null", "w"))
    (second,) = client.get(reverse("lti:jwks")).json()["keys"]
    assert second["kid"] != first["kid"]
    assert Key.objects.count() == 2  # the old key is kept, no longer published


def test_the_set_up_page_lists_the_values_for_each_lms(client, registration):
    client.force_login(make_admin())
    page = client.get(reverse("lti:setup")).content.decode()
    assert f"http://testserver/lti/login/{registration.uuid}/" in page
    assert "http://testserver/lti/launch/" in page
    assert "http://testserver/lti/jwks.json" in page
    assert "run <code>python manage.py rotate_keys</code>" in page  # no key yet
    call_command("rotate_keys", stdout=open("/dev/null", "w"))
    assert "rotate_keys" not in client.get(reverse("lti:setup")).content.decode()


def test_the_registration_admin_page_shows_the_values_to_paste(client, registration):
    client.force_login(make_admin())
    page = client.get(
        reverse("admin:lti_tool_ltiregistration_change", args=[registration.pk])
    ).content.decode()
    assert "Values for the LMS" in page
    assert f"http://testserver/lti/login/{registration.uuid}/" in page


def test_the_admin_index_names_parsnips_lti_rows_in_plain_plurals(client):
    client.force_login(make_admin())
    page = client.get(reverse("admin:index")).content.decode()
    assert "LMS courses linked to classes" in page
    assert "Grades sent to an LMS" in page
    assert "LMSs" not in page and "classs" not in page
