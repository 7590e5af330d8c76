"""Every claim a launch reads, as the LTI 1.3 certification suite's cases
(https://www.imsglobal.org/spec/lti/v1p3/cert/, §6.1.1 known bad payloads, §6.1.2 valid
teacher launches, §6.1.3 valid student launches) and the faults of the same kind found
elsewhere: each bad launch is refused with a page that says why, a 4xx, nothing stored."""

import pytest
from django.contrib.auth.models import Group, User

from lti import roster
from lti.claims import AGS, CONTEXT, CUSTOM, DEEP_LINKING, LTI, NRPS, RESOURCE_LINK, ROLES
from lti.models import ClassLink
from tests.lti.fake_lms import INSTRUCTOR, LEARNER
from tests.lti.test_launch_security import rows
from tutor.models import Membership
from tutor.roles import TEACHERS_GROUP, is_teacher

pytestmark = pytest.mark.django_db(transaction=True)

FACULTY = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Faculty"
STUDENT = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student"
MENTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"


@pytest.fixture
def link(lms, registered, lesson):
    """Course c1 with Tess teaching (her class made) and Sam learning; link l1."""
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


def without(*names):
    def edit(claims):
        for name in names:
            claims.pop(name, None)

    return edit


def setting(name, value):
    return lambda claims: claims.update({name: value})


def assert_refused_cleanly(response, before, status=403):
    assert response.status_code == status, response.text[:400]
    assert "Parsnip could not open this" in response.text
    assert rows() == before


# §6.1.1 Known bad payloads ---------------------------------------------------------------


@pytest.mark.parametrize(
    "case, edit",
    [
        ("Wrong LTI Version", setting(f"{LTI}version", "1.2.0")),
        ("No LTI Version", without(f"{LTI}version")),
        (
            "Missing LTI Claims",
            without(f"{LTI}message_type", f"{LTI}version", f"{LTI}deployment_id"),
        ),
        ("Timestamps Incorrect", lambda claims: claims.update({"iat": 11111, "exp": 22222})),
        ("message_type Claim Missing", without(f"{LTI}message_type")),
        ("role Claim Missing", without(ROLES)),
        ("deployment_id Claim Missing", without(f"{LTI}deployment_id")),
        ("resource_link_id Claim Missing", setting(RESOURCE_LINK, {"title": "No id"})),
        ("user Claim Missing", without("sub")),
        ("iat missing", without("iat")),
        ("nonce missing", without("nonce")),
    ],
)
def test_a_known_bad_payload_is_refused(lms, link, person, case, edit):
    lms.edit_claims = edit
    before = rows()
    assert_refused_cleanly(person("s1").launch(link), before)


def test_no_kid_in_the_jwt_header_is_refused(lms, link, person):
    lms.send_kid = False
    before = rows()
    page = person("s1").launch(link)
    assert_refused_cleanly(page, before)
    assert "KID not found" in page.text


def test_an_id_token_that_is_no_jwt_is_refused(lms, link, person):
    sam = person("s1")
    sam.tamper = lambda _person, fields: fields.update({"id_token": "not-a-jwt"})
    before = rows()
    assert_refused_cleanly(sam.launch(link), before)


# §6.1.2, §6.1.3 Valid teacher and student launches -----------------------------------------


def people_edit(roles=None, drop=(), context=True):
    def edit(claims):
        if roles is not None:
            claims[ROLES] = roles
        for name in drop:
            claims.pop(name, None)
        if not context:
            claims.pop(CONTEXT, None)

    return edit


NAMES = ("name", "given_name", "family_name")


@pytest.mark.parametrize(
    "case, edit, teaches",
    [
        ("Valid Instructor Launch", people_edit(), True),
        ("Valid Instructor Launch with Roles", people_edit([INSTRUCTOR, FACULTY]), True),
        ("Valid Instructor Launch Short Role", people_edit(["Instructor"]), True),
        (
            "Valid Instructor Launch Unknown Role",
            people_edit(["http://example.com/custom/TA"]),
            False,
        ),
        ("Valid Instructor Launch No Role", people_edit([]), False),
        ("Valid Instructor Launch Email Only", people_edit(drop=NAMES), True),
        ("Valid Instructor Launch Names Only", people_edit(drop=("email",)), True),
        ("Valid Instructor No PII", people_edit(drop=(*NAMES, "email")), True),
        ("Valid Instructor Email Without Context", people_edit(context=False), None),
    ],
)
def test_a_valid_teacher_launch_is_accepted(lms, link, person, case, edit, teaches):
    lms.edit_claims = lambda claims: (claims.update({"email": "tess@school.example"}), edit(claims))
    page = person("t1").launch(link)
    assert page.status_code == 200 and "Parsnip could not open this" not in page.text, case
    tess = User.objects.get(lti_users__sub="t1")
    assert tess.email == ""  # the LMS's address is never taken
    if teaches is None:
        assert not ClassLink.objects.exists()  # no course, no class: the lesson opens alone
    else:
        assert ClassLink.objects.exists() is teaches
        assert is_teacher(tess) is teaches


@pytest.mark.parametrize(
    "case, edit, seat",
    [
        ("Valid Student Launch", people_edit(), True),
        ("Valid Student Launch with Roles", people_edit([LEARNER, STUDENT]), True),
        ("Valid Student Launch Short Role", people_edit(["Learner"]), True),
        (
            "Valid Student Launch Unknown Role",
            people_edit(["http://example.com/custom/Auditor"]),
            True,
        ),
        ("Valid Student Launch No Role", people_edit([]), True),
        ("Valid Student Launch Email Only", people_edit(drop=NAMES), True),
        ("Valid Student Launch Names Only", people_edit(drop=("email",)), True),
        ("Valid Student No PII", people_edit(drop=(*NAMES, "email")), True),
        ("Valid Student Email Without Context", people_edit(context=False), False),
        ("a mentor of the course", people_edit([MENTOR]), False),
    ],
)
def test_a_valid_student_launch_is_accepted(lms, link, person, lesson, case, edit, seat):
    person("t1").launch(link)
    lms.edit_claims = edit
    page = person("s1").launch(link)
    assert page.status_code == 200 and page.url.endswith(lesson.get_absolute_url()), case
    sam = User.objects.get(lti_users__sub="s1")
    assert not is_teacher(sam) and not ClassLink.objects.get().cohort.is_taught_by(sam)
    assert Membership.objects.filter(student=sam).exists() is seat


# The same kind of fault elsewhere --------------------------------------------------------


def test_a_forged_token_does_not_use_up_the_real_ones_nonce(lms, link, person, lesson):
    """A token whose signature does not match is refused before its nonce is looked at: the
    LMS's real token for the same login still signs the learner in."""
    sam = person("s1")
    kept = {}

    def forge(_person, fields):
        kept.update(fields)
        header, body, signature = fields["id_token"].split(".")
        fields["id_token"] = f"{header}.{body}.{signature[::-1]}"

    sam.tamper = forge
    before = rows()
    assert_refused_cleanly(sam.launch(link), before)
    url, _ = sam.last_launch
    landed = sam.session.post(url, data=kept, timeout=30)
    assert landed.status_code == 200 and landed.url.endswith(lesson.get_absolute_url())


def test_a_submission_review_launch_is_refused_before_anything_is_stored(lms, link, person):
    """Parsnip has no submission review: the launch signed the reviewer in (and made their
    account and seat) before saying so."""

    def review(claims):
        claims[f"{LTI}message_type"] = "LtiSubmissionReviewRequest"
        claims[f"{LTI}for_user"] = {"user_id": "s1"}
        claims[AGS]["lineitem"] = lms.url("lineitems/1")

    lms.edit_claims = review
    before = rows()
    assert_refused_cleanly(person("t1").launch(link), before, status=400)


@pytest.mark.parametrize(
    "case, edit, words",
    [
        ("custom is a list", setting(CUSTOM, ["1"]), CUSTOM),
        ("roles is a string", setting(ROLES, INSTRUCTOR), "roles claim must be a list"),
        ("context is a list", setting(CONTEXT, ["c1"]), CONTEXT),
        ("context has no id", setting(CONTEXT, {"title": "Physics"}), "course (context) id"),
        ("a name is a number", setting("name", 42), "name must be a string"),
        ("sub is too long", setting("sub", "s" * 300), "user (sub)"),
        (
            "the roster URL is too long to keep",
            setting(NRPS, {"context_memberships_url": "https://lms.example/" + "m" * 300}),
            "roster (NRPS) URL",
        ),
        ("the gradebook URL is no URL", setting(AGS, {"lineitems": "javascript:x"}), "AGS"),
    ],
)
def test_a_malformed_claim_is_refused_cleanly(lms, link, person, case, edit, words):
    lms.edit_claims = edit
    before = rows()
    page = person("s1").launch(link)
    assert_refused_cleanly(page, before)
    assert words in page.text.replace("&#x27;", "'"), case


def test_long_names_and_a_long_picture_address_are_kept_short_not_a_500(lms, link, person):
    lms.edit_claims = lambda claims: claims.update(
        {
            "given_name": "Sam\u0000\n" + "a" * 600,
            "family_name": "Cafe\u0301",  # é as two code points
            "picture": "https://lms.example/" + "p" * 400,
        }
    )
    page = person("s1").launch(link)
    assert page.status_code == 200
    sam = User.objects.get(lti_users__sub="s1")
    assert sam.first_name.startswith("Sam a") and len(sam.first_name) == 150
    assert sam.last_name == "Caf\u00e9"


def test_a_deep_linking_return_url_that_is_no_web_address_is_refused(lms, link, person):
    def return_to_script(claims):
        if DEEP_LINKING in claims:
            claims[DEEP_LINKING]["deep_link_return_url"] = "javascript:alert(1)"

    lms.edit_claims = return_to_script
    before = rows()
    page = person("t1").open(lms.start_url("t1", deep_link_in="c1"))
    assert_refused_cleanly(page, before)
    assert "Deep Linking return URL" in page.text


def test_an_lms_account_an_institution_role_made_a_teacher_is_one_no_more(lms, link, person):
    """Before roles were read by course, Sam's institution role put him in the Teachers
    group; his next launch as a learner takes it away (his LMS teaches him nothing)."""
    person("t1").launch(link)
    sam = person("s1")
    sam.launch(link)
    sam_user = User.objects.get(lti_users__sub="s1")
    sam_user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    ClassLink.objects.get().cohort.co_teachers.add(sam_user)
    sam.launch(link)
    assert not is_teacher(sam_user)
    assert not ClassLink.objects.get().cohort.is_taught_by(sam_user)


@pytest.mark.parametrize(
    "case, edit, joins",
    [
        ("no status (NRPS: Active)", lambda member: member.pop("status"), True),
        ("no roles", lambda member: member.pop("roles"), False),
        ("roles not a list", lambda member: member.update({"roles": LEARNER}), False),
        ("user id not a string", lambda member: member.update({"user_id": 7}), False),
    ],
)
def test_a_roster_entry_is_read_as_nrps_says_or_skipped(lms, link, person, case, edit, joins):
    """A read with an odd entry still reads the rest (it crashed on a missing status)."""
    person("t1").launch(link)
    lms.add_person("s2", "Sue Student", c1=LEARNER)
    lms.edit_member = lambda member: edit(member) if member["user_id"] == "s2" else None
    link_row = ClassLink.objects.get()
    outcome = roster.sync_roster(class_link_id=link_row.pk)
    assert outcome is not None, case
    members = set(
        Membership.objects.filter(cohort=link_row.cohort).values_list(
            "student__first_name", flat=True
        )
    )
    assert "Sam" in members and ("Sue" in members) is joins


# Clocks: the LMS's may be a little ahead or behind ours ----------------------------------


def shifted(seconds):
    """The token's times moved by `seconds` (an LMS whose clock is that far ahead)."""

    def edit(claims):
        claims["iat"] += seconds
        claims["exp"] = claims["iat"] + 60

    return edit


@pytest.mark.parametrize("seconds", [30, -90])
def test_a_token_from_a_clock_a_little_off_is_taken(lms, link, person, seconds):
    from lti.launch import CLOCK_LEEWAY

    assert abs(seconds) <= CLOCK_LEEWAY + 60
    lms.edit_claims = shifted(seconds)
    page = person("s1").launch(link)
    assert page.status_code == 200, page.text[:400]


@pytest.mark.parametrize("seconds", [300, -300])
def test_a_token_from_a_clock_far_off_is_refused(lms, link, person, seconds):
    lms.edit_claims = shifted(seconds)
    before = rows()
    assert_refused_cleanly(person("s1").launch(link), before)
