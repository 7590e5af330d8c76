"""A launch trusts only what it must (issue 35): teaching rights come from the LMS course's
own roles and go when the LMS takes them away; a link opens only its own class's
assignment; a token is used once, by the browser whose login asked for it; the login sends
the LMS's answer only to this Parsnip; a token without `exp` or `target_link_uri`, or
authorised for another tool, is refused."""

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from lti.models import ClassLink, LineItem, LinkedResource
from tests.factories import make_cohort, make_teacher
from tests.lti.fake_lms import CLIENT_ID, INSTRUCTOR, LEARNER
from tests.lti.test_launch_security import rows
from tutor.assignments.models import Assignment
from tutor.models import Membership
from tutor.roles import is_teacher

pytestmark = pytest.mark.django_db(transaction=True)

INSTITUTION_INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"
TEACHING_ASSISTANT = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
)
MENTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"
CONTENT_DEVELOPER = "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper"
TARGET_LINK_URI = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"


@pytest.fixture
def taught_course(lms, registered, lesson):
    """LMS course c1, "Physics 101", taught by Tess (t1), Sam (s1) learning in it, and a
    link l1 to the lesson. Tess has launched: the class is hers."""
    lms.contexts["c1"] = "Physics 101"
    lms.add_person("t1", "Tess Teacher", c1=INSTRUCTOR)
    lms.add_person("s1", "Sam Student", c1=LEARNER)
    lms.links["l1"] = {
        "context": "c1",
        "title": "Caches",
        "custom": {"parsnip_lesson": str(lesson.pk)},
        "lineitem": None,
    }
    return "l1"


def the_class():
    return ClassLink.objects.select_related("cohort__teacher").get().cohort


def user(first_name: str) -> User:
    return User.objects.get(first_name=first_name)


def can_open_grades(lms, someone, cohort) -> bool:
    url = lms.base + reverse("lti:class_grades", args=[cohort.pk])
    return someone.session.get(url, timeout=30).status_code == 200


# 1. An institution role is not a role in the course ------------------------------------


def test_an_institution_instructor_learning_in_the_course_is_its_student(
    lms, taught_course, person, lesson
):
    """Canvas sends `institution/person#Instructor` to anyone who teaches anything at the
    school: Sam, a TA elsewhere, is still a learner in Physics 101."""
    person("t1").launch(taught_course)
    lms.people["s1"]["institution"] = [INSTITUTION_INSTRUCTOR]
    sam = person("s1")
    page = sam.launch(taught_course)
    assert page.status_code == 200 and page.url.endswith(lesson.get_absolute_url())
    cohort = the_class()
    assert not cohort.is_taught_by(user("Sam")) and not is_teacher(user("Sam"))
    assert Membership.objects.filter(cohort=cohort, student=user("Sam")).exists()
    assert not can_open_grades(lms, sam, cohort)
    picker = sam.open(lms.start_url("s1", deep_link_in="c1"))
    assert picker.status_code == 403
    assert "Only a teacher of the LMS course can add Parsnip links" in picker.text


def test_an_institution_instructor_launching_first_makes_no_class(lms, taught_course, person):
    lms.people["s1"]["institution"] = [INSTITUTION_INSTRUCTOR]
    person("s1").launch(taught_course)
    assert not ClassLink.objects.exists()
    person("t1").launch(taught_course)
    cohort = the_class()
    assert cohort.teacher == user("Tess")
    assert Membership.objects.filter(cohort=cohort, student=user("Sam")).exists()


def test_a_roster_read_makes_no_co_teacher_of_an_institution_instructor(lms, taught_course, person):
    from lti import roster

    person("t1").launch(taught_course)
    lms.people["s1"]["institution"] = [INSTITUTION_INSTRUCTOR]
    roster.sync_roster(class_link_id=ClassLink.objects.get().pk)
    cohort = the_class()
    assert list(cohort.co_teachers.all()) == []
    assert Membership.objects.filter(cohort=cohort, student=user("Sam")).exists()


@pytest.mark.parametrize(
    "roles, teaches",
    [
        ([TEACHING_ASSISTANT], True),
        (["Instructor"], True),  # the short name LTI allows for a context role
        ([INSTRUCTOR, "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Faculty"], True),
        ([MENTOR], False),
        ([CONTENT_DEVELOPER], False),
        (["http://example.com/custom/TeachingAssistant"], False),  # a role LTI does not define
        ([], False),
    ],
)
def test_which_roles_of_the_course_teach_its_class(lms, taught_course, person, roles, teaches):
    """Decided and documented in docs/lti.md: the Instructor role and its sub-roles teach;
    a mentor, a content developer and an unknown role do not."""
    person("t1").launch(taught_course)
    lms.add_person("x1", "Alex Other", c1=roles)
    person("x1").launch(taught_course)
    assert the_class().is_taught_by(user("Alex")) is teaches


# 2. The LMS takes teaching away --------------------------------------------------------


def test_an_instructor_the_lms_makes_a_learner_stops_co_teaching_at_their_launch(
    lms, taught_course, person
):
    person("t1").launch(taught_course)
    lms.add_person("t2", "Ada Coteacher", c1=INSTRUCTOR)
    ada = person("t2")
    ada.launch(taught_course)
    cohort = the_class()
    assert cohort.is_taught_by(user("Ada")) and can_open_grades(lms, ada, cohort)
    lms.people["t2"]["roles"]["c1"] = LEARNER
    ada.launch(taught_course)
    assert not cohort.is_taught_by(user("Ada")) and not can_open_grades(lms, ada, cohort)
    assert Membership.objects.filter(cohort=cohort, student=user("Ada")).exists()


def test_an_instructor_the_lms_makes_a_learner_stops_co_teaching_at_a_roster_read(
    lms, taught_course, person
):
    from lti import roster

    person("t1").launch(taught_course)
    lms.add_person("t2", "Ada Coteacher", c1=INSTRUCTOR)
    link = ClassLink.objects.get()
    roster.sync_roster(class_link_id=link.pk)
    assert list(link.cohort.co_teachers.all()) == [user("Ada")]
    lms.people["t2"]["roles"]["c1"] = LEARNER
    roster.sync_roster(class_link_id=link.pk)
    assert list(link.cohort.co_teachers.all()) == []
    assert Membership.objects.filter(cohort=link.cohort, student=user("Ada")).exists()


def test_the_classs_teacher_made_a_learner_hands_the_class_to_a_co_teacher(
    lms, taught_course, person
):
    """Tess made the class; the LMS makes her a learner while Ada still teaches the course:
    the class becomes Ada's, and Tess is its student."""
    tess = person("t1")
    tess.launch(taught_course)
    lms.add_person("t2", "Ada Coteacher", c1=INSTRUCTOR)
    person("t2").launch(taught_course)
    lms.people["t1"]["roles"]["c1"] = LEARNER
    tess.launch(taught_course)
    cohort = the_class()
    assert cohort.teacher == user("Ada") and not cohort.is_taught_by(user("Tess"))
    assert list(cohort.co_teachers.all()) == []
    assert Membership.objects.filter(cohort=cohort, student=user("Tess")).exists()
    assert not can_open_grades(lms, tess, cohort)


def test_the_classs_teacher_made_a_learner_at_a_roster_read_hands_it_over_too(
    lms, taught_course, person
):
    from lti import roster

    person("t1").launch(taught_course)
    lms.add_person("t2", "Ada Coteacher", c1=INSTRUCTOR)
    link = ClassLink.objects.get()
    lms.people["t1"]["roles"]["c1"] = LEARNER
    roster.sync_roster(class_link_id=link.pk)
    cohort = the_class()
    assert cohort.teacher == user("Ada") and not cohort.is_taught_by(user("Tess"))
    assert Membership.objects.filter(cohort=cohort, student=user("Tess")).exists()


def test_the_classs_teacher_made_a_learner_keeps_it_until_the_course_has_another_teacher(
    lms, taught_course, person
):
    """A class always has a teacher: with nobody else teaching the course, Tess keeps it
    (and is not made a student of her own class); the first instructor to come takes it."""
    tess = person("t1")
    tess.launch(taught_course)
    lms.people["t1"]["roles"]["c1"] = LEARNER
    tess.launch(taught_course)
    cohort = the_class()
    assert cohort.teacher == user("Tess")
    assert not Membership.objects.filter(cohort=cohort, student=user("Tess")).exists()
    lms.add_person("t2", "Ada Coteacher", c1=INSTRUCTOR)
    person("t2").launch(taught_course)
    cohort = the_class()
    assert cohort.teacher == user("Ada") and not cohort.is_taught_by(user("Tess"))
    assert Membership.objects.filter(cohort=cohort, student=user("Tess")).exists()


def test_a_co_teacher_the_admin_added_who_is_not_in_the_lms_course_stays(
    lms, taught_course, person
):
    from lti import roster

    person("t1").launch(taught_course)
    link = ClassLink.objects.get()
    helper = make_teacher(username="helper")
    link.cohort.co_teachers.add(helper)
    roster.sync_roster(class_link_id=link.pk)
    person("s1").launch(taught_course)
    assert link.cohort.is_taught_by(helper)


# 3. A link opens its own class's assignment only ---------------------------------------


def another_class_assignment(lms, person, lesson) -> Assignment:
    """Course c2, taught by Tia, whose class has an assignment of the lesson."""
    lms.contexts["c2"] = "Chemistry"
    lms.add_person("t9", "Tia Teacher", c2=INSTRUCTOR)
    lms.links["l9"] = {
        "context": "c2",
        "title": "Caches",
        "custom": {"parsnip_lesson": str(lesson.pk)},
        "lineitem": None,
    }
    person("t9").launch("l9")
    now = timezone.now()
    return Assignment.objects.create(
        cohort=ClassLink.objects.get(context__id_on_platform="c2").cohort,
        lesson=lesson,
        opens_at=now,
        due_at=now + timezone.timedelta(days=3),
    )


def test_a_link_naming_another_classs_assignment_is_refused_and_binds_nothing(
    lms, taught_course, person, lesson
):
    """A teacher of c1 types Tia's assignment's number into the link's custom parameters:
    the launch is refused; no link, no column, nothing of Tia's class goes to c1's LMS."""
    person("t1").launch(taught_course)
    theirs = another_class_assignment(lms, person, lesson)
    lms.links["l1"]["custom"] = {"parsnip_assignment": str(theirs.pk)}
    before = rows() | {"links": LinkedResource.objects.count(), "columns": LineItem.objects.count()}
    page = person("s1").launch(taught_course)
    assert page.status_code == 404, page.text[:300]
    assert "assignment of another class" in page.text
    after = rows() | {"links": LinkedResource.objects.count(), "columns": LineItem.objects.count()}
    assert after == before


def test_the_picker_offers_only_the_lms_courses_own_classs_assignments(
    lms, taught_course, person, lesson
):
    """Tess also teaches a Parsnip class of her own; its assignment is not the LMS course's
    to link (its learners are not that class's)."""
    tess = person("t1")
    tess.launch(taught_course)
    own = make_cohort(teacher=user("Tess"), name="Evening club")
    now = timezone.now()
    elsewhere = Assignment.objects.create(
        cohort=own, lesson=lesson, opens_at=now, due_at=now + timezone.timedelta(days=3)
    )
    mine = Assignment.objects.create(
        cohort=the_class(), lesson=lesson, opens_at=now, due_at=now + timezone.timedelta(days=3)
    )
    picker = tess.open(lms.start_url("t1", deep_link_in="c1"))
    assert f"assignment:{mine.pk}" in picker.text
    assert f"assignment:{elsewhere.pk}" not in picker.text
    refused = tess.deep_link("c1", assignment=elsewhere)
    assert refused.status_code == 400 and "Choose a lesson or an assignment." in refused.text
    assert not any(link["custom"].get("parsnip_assignment") for link in lms.links.values())


# 4. A token is used by the browser whose login asked for it, once ----------------------


def test_a_token_minted_for_another_browsers_login_signs_nobody_in(lms, taught_course, person):
    """Mallory logs in herself (her state cookie is good), then posts Sam's token, minted
    for Sam's login, with her own state: refused. Sam's own launch still works."""
    sam = person("s1")
    sam.hold = True
    sam.launch(taught_course)
    url, sams_fields = sam.last_launch
    lms.add_person("m1", "Mallory", c1=LEARNER)
    mallory = person("m1")
    mallory.hold = True
    mallory.launch(taught_course)
    _, her_fields = mallory.last_launch
    before = rows()
    stolen = mallory.session.post(
        url, data={"state": her_fields["state"], "id_token": sams_fields["id_token"]}, timeout=30
    )
    assert stolen.status_code == 403 and "Invalid Nonce" in stolen.text
    assert rows() == before
    assert "sessionid" not in mallory.session.cookies
    landed = sam.session.post(url, data=sams_fields, timeout=30)
    assert landed.status_code == 200 and User.objects.filter(first_name="Sam").exists()


def test_a_state_is_used_once(lms, taught_course, person):
    sam = person("s1")
    sam.launch(taught_course)
    url, fields = sam.last_launch
    again = sam.session.post(url, data=fields, timeout=30)
    assert again.status_code == 403 and "Invalid Nonce" in again.text


# 5. The login sends the LMS's answer only to this Parsnip's launch URL -----------------


def login(lms, target: str) -> requests.Response:
    query = {
        "iss": lms.issuer,
        "login_hint": "s1",
        "target_link_uri": target,
        "lti_message_hint": "link:l1",
        "client_id": CLIENT_ID,
    }
    return requests.get(
        f"{lms.tool_login_url}?{urlencode(query)}", allow_redirects=False, timeout=30
    )


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/steal",
        "{base}/accounts/login/",  # this Parsnip, but not a URL a launch may land on
        "{base}/lti/launch/?next=https://evil.example/",
        "javascript:alert(1)",
    ],
)
def test_a_login_whose_target_is_not_this_parsnips_launch_url_is_refused(
    lms, taught_course, target
):
    response = login(lms, target.format(base=lms.base))
    assert response.status_code == 400, response.headers.get("Location")
    assert "Location" not in response.headers
    assert "not a Parsnip launch address" in response.text


def test_a_login_for_the_launch_url_goes_to_the_lms_with_it_as_redirect_uri(lms, taught_course):
    response = login(lms, lms.tool_launch_url)
    assert response.status_code == 302
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    assert query["redirect_uri"] == [lms.tool_launch_url]


# 6-8. Tokens the spec says to refuse ---------------------------------------------------


def refused_with(response, words: str) -> None:
    assert response.status_code == 403, response.text[:300]
    assert "Parsnip could not open this" in response.text and words in response.text


def test_a_token_without_exp_is_refused(lms, taught_course, person):
    lms.edit_claims = lambda claims: claims.pop("exp")
    before = rows()
    refused_with(person("s1").launch(taught_course), "exp")
    assert rows() == before


def test_a_token_without_target_link_uri_is_refused(lms, taught_course, person):
    lms.edit_claims = lambda claims: claims.pop(TARGET_LINK_URI)
    before = rows()
    refused_with(person("s1").launch(taught_course), "target_link_uri")
    assert rows() == before


def test_a_token_whose_target_link_uri_is_elsewhere_is_refused(lms, taught_course, person):
    lms.edit_claims = lambda claims: claims.update({TARGET_LINK_URI: "https://evil.example/"})
    before = rows()
    refused_with(person("s1").launch(taught_course), "target_link_uri")
    assert rows() == before


def test_a_token_for_several_audiences_authorised_for_another_tool_is_refused(
    lms, taught_course, person
):
    lms.edit_claims = lambda claims: claims.update(
        {"aud": [CLIENT_ID, "another-tool"], "azp": "another-tool"}
    )
    before = rows()
    refused_with(person("s1").launch(taught_course), "azp")
    assert rows() == before


def test_a_token_for_several_audiences_without_azp_is_refused(lms, taught_course, person):
    def several(claims):
        claims["aud"] = [CLIENT_ID, "another-tool"]
        del claims["azp"]

    lms.edit_claims = several
    before = rows()
    refused_with(person("s1").launch(taught_course), "azp")
    assert rows() == before


@pytest.mark.parametrize(
    "aud, azp",
    [
        (["another-tool", CLIENT_ID], CLIENT_ID),  # several, authorised for Parsnip
        ([CLIENT_ID], None),  # one, in a list
        (CLIENT_ID, None),  # one, without azp
    ],
)
def test_a_token_for_parsnip_is_accepted_however_aud_is_spelled(
    lms, taught_course, person, lesson, aud, azp
):
    def audience(claims):
        claims["aud"] = aud
        if azp is None:
            del claims["azp"]
        else:
            claims["azp"] = azp

    lms.edit_claims = audience
    page = person("s1").launch(taught_course)
    assert page.status_code == 200 and page.url.endswith(lesson.get_absolute_url())


@pytest.mark.parametrize(
    "url, secure, ok",
    [
        ("https://parsnip.example/lti/launch/", False, True),  # behind a TLS proxy
        ("https://parsnip.example/lti/launch/", True, True),
        ("https://PARSNIP.example:443/lti/launch/", True, True),
        ("http://parsnip.example/lti/launch/", False, True),  # a plain-http server
        ("http://parsnip.example/lti/launch/", True, False),  # never down to http
        ("https://parsnip.example:8443/lti/launch/", True, False),
        ("https://parsnip.example.evil.example/lti/launch/", True, False),
        ("https://user@parsnip.example/lti/launch/", True, False),
        ("https://parsnip.example/lti/launch/#x", True, False),
        ("https://parsnip.example/lti/launch", True, False),
        ("//parsnip.example/lti/launch/", True, False),
        ("https://parsnip.example:99999/lti/launch/", True, False),
    ],
)
def test_what_counts_as_this_parsnips_launch_url(settings, rf, url, secure, ok):
    from lti.launch import is_launch_url

    settings.ALLOWED_HOSTS = ["parsnip.example"]
    request = rf.get("/", HTTP_HOST="parsnip.example", secure=secure)
    assert is_launch_url(request, url) is ok
