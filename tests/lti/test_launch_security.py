"""Every launch Parsnip must refuse is refused with a page that says so, and creates nothing:
no account, no class, no membership, no LMS record."""

import base64
import json
import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from jwcrypto.jwk import JWK
from lti_tool.models import LtiContext, LtiDeployment, LtiUser

from lti.models import ClassLink, ScoreSync
from tests.lti.fake_lms import INSTRUCTOR, LEARNER
from tutor.models import Cohort, Membership

pytestmark = pytest.mark.django_db(transaction=True)


def rows() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (
            User,
            LtiUser,
            LtiContext,
            LtiDeployment,
            ClassLink,
            Cohort,
            Membership,
            ScoreSync,
        )
    }


def assert_refused(response, before, words):
    assert response.status_code == 403, response.text[:500]
    assert "Parsnip could not open this" in response.text
    assert words in response.text
    assert rows() == before


def test_a_good_launch_passes(lms, course, person, lesson):
    """The control: the same world, untampered, signs the learner in."""
    response = person("s1").launch(course)
    assert response.status_code == 200 and response.url.endswith(lesson.get_absolute_url())


def tamper_claim(person, fields):
    header, body, signature = fields["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = [INSTRUCTOR]  # promote myself
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    fields["id_token"] = f"{header}.{body}.{signature}"


def test_a_launch_whose_signature_does_not_match_is_refused(lms, course, person):
    before = rows()
    student = person("s1")
    student.tamper = tamper_claim
    assert_refused(student.launch(course), before, "Can&#x27;t decode id_token")


def test_a_launch_signed_with_a_key_the_lms_never_published_is_refused(lms, course, person):
    lms.signing_key = (
        JWK.generate(kty="RSA", size=2048).export_to_pem(private_key=True, password=None).decode()
    )
    before = rows()
    assert_refused(person("s1").launch(course), before, "Unable to find public key")


def test_a_replayed_launch_is_refused(lms, course, person):
    student = person("s1")
    student.launch(course)
    url, fields = student.last_launch
    before = rows()
    replay = student.session.post(url, data=fields, timeout=30)
    assert_refused(replay, before, "")
    assert "Invalid Nonce" in replay.text or "State not found" in replay.text


def test_a_launch_meant_for_another_tool_is_refused(lms, course, person):
    lms.audience = "another-tool"
    before = rows()
    assert_refused(person("s1").launch(course), before, "")


def test_an_expired_launch_is_refused(lms, course, person):
    lms.token_lifetime = -120
    before = rows()
    assert_refused(person("s1").launch(course), before, "")


def test_a_deployment_the_admin_did_not_register_is_refused(lms, course, person):
    lms.deployment_id = "deployment-nobody-registered"
    before = rows()
    assert_refused(person("s1").launch(course), before, "Unable to find deployment")


def test_an_inactive_deployment_is_refused(lms, course, person):
    LtiDeployment.objects.update(is_active=False)
    before = rows()
    assert_refused(person("s1").launch(course), before, "Unable to find deployment")


def test_a_launch_from_another_browser_than_the_login_is_refused(lms, course, person, lesson):
    """The state cookie set at login must come back with the launch."""
    student = person("s1")

    def other_browser(person, fields):
        person.session.cookies.clear()

    student.tamper = other_browser
    before = rows()
    page = student.launch(course)
    assert_refused(page, before, "State not found")
    # Said in plain words, with the way out: the same launch in a new window, which works.
    assert "your browser blocks Parsnip’s cookies inside Fake LMS" in page.text
    assert f"frame-ancestors 'self' {lms.base}" in page.headers["Content-Security-Policy"]
    link = re.search(r'id="open-in-new-window" href="([^"]+)" target="_blank"', page.text).group(1)
    student.tamper = None
    landed = student.open(lms.base + unescape(link))
    assert landed.status_code == 200 and landed.url.endswith(lesson.get_absolute_url())


def test_a_state_parsnip_never_made_offers_no_new_window(lms, course, person):
    def made_up_state(person, fields):
        person.session.cookies.clear()
        fields["state"] = "state-00000000-0000-4000-8000-000000000000"

    student = person("s1")
    student.tamper = made_up_state
    before = rows()
    page = student.launch(course)
    assert_refused(page, before, "State not found")
    assert "open-in-new-window" not in page.text
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]


def test_a_login_from_an_unregistered_lms_is_refused(lms, course, person):
    lms.client_id = "not-registered"
    response = person("s1").launch(course)
    assert response.status_code == 400
    assert "not registered with Parsnip" in response.text


def test_an_instructor_elsewhere_is_still_a_learner_here(lms, course, person, lesson):
    """Sam teaches c2 in the same LMS and learns in c1: teaching c2 gives no say over c1."""
    lms.people["t1"] = {"name": "Tess Teacher", "roles": {"c1": INSTRUCTOR}}
    person("t1").launch(course)
    lms.contexts["c2"] = "Sam's own course"
    lms.people["s1"]["roles"]["c2"] = INSTRUCTOR
    lms.links["l2"] = {
        "context": "c2",
        "title": "Caches",
        "custom": {"parsnip_lesson": str(lesson.pk)},
        "lineitem": None,
    }
    sam = person("s1")
    sam.launch("l2")
    sam.launch(course)
    c1_class = ClassLink.objects.get(context__id_on_platform="c1").cohort
    c2_class = ClassLink.objects.get(context__id_on_platform="c2").cohort
    assert c1_class.teacher.first_name == "Tess" and c2_class.teacher.first_name == "Sam"
    assert Membership.objects.filter(cohort=c1_class, student__first_name="Sam").exists()
    for url in (
        reverse("lti:class_grades", args=[c1_class.pk]),
        reverse("tutor:class_detail", args=[c1_class.pk]),
    ):
        assert sam.session.get(lms.base + url, timeout=30).status_code == 404
    assert (
        sam.session.get(
            lms.base + reverse("lti:class_grades", args=[c2_class.pk]), timeout=30
        ).status_code
        == 200
    )


def test_a_learner_cannot_open_the_deep_linking_picker(lms, course, person):
    lms.add_person("s5", "Lee Learner", c1=LEARNER)
    before = rows()
    response = person("s5").open(lms.start_url("s5", deep_link_in="c1"))
    assert_refused(response, before, "Only a teacher of the LMS course can add Parsnip links")


def test_the_same_course_and_person_ids_on_another_platform_are_other_people_and_classes(
    lms, course, person, lesson
):
    """Two registrations (two LMSs) that happen to use the same ids: nothing is shared."""
    from django.urls import reverse
    from lti_tool.models import LtiRegistration

    from tests.lti.conftest import register

    lms.people["t1"] = {"name": "Tess Teacher", "roles": {"c1": INSTRUCTOR}}
    person("t1").launch(course)
    first_class = ClassLink.objects.get().cohort

    lms.client_id = "second-client"  # the other LMS, as Parsnip sees it: another registration
    LtiRegistration.objects.filter(client_id="second-client").delete()
    second = register(lms)
    assert second.client_id == "second-client"
    other = person("t1")
    other.launch(course)
    second_class = ClassLink.objects.exclude(cohort=first_class).get().cohort
    assert second_class.teacher != first_class.teacher
    assert User.objects.filter(lti_users__sub="t1").count() == 2
    response = other.session.get(
        lms.base + reverse("lti:class_grades", args=[first_class.pk]), timeout=30
    )
    assert response.status_code == 404
