"""Who gets what: every URL, walked as each kind of person.

anonymous, a student in the class, another student, the class's teacher, a co-teacher of
the class (what its teacher reaches, they reach), another teacher (who co-teaches another
class: co-teaching gives nothing of other classes), and an admin. Each row states the status
each of them gets; a redirect for the anonymous visitor always goes to the login page.
"""

from datetime import timedelta

import pytest
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from course.kinds.ordering import OrderingExercise
from course.kinds.snippet import Snippet
from course.models import GlossaryTerm, Lesson
from tests.factories import (
    make_admin,
    make_cohort,
    make_learner_run,
    make_prediction,
    make_run,
    make_score_sync,
    make_teacher,
    make_user,
)
from tutor.assignments.models import Assignment, Extension
from tutor.clusters.models import ClusterComment
from tutor.models import Run
from tutor.practice.snippet.clusters import clusters
from tutor.practice.snippet.models import Prediction
from tutor.trail.actions import RUN, record_moment

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "student", "other_student", "teacher", "co_teacher", "other_teacher", "admin"]
LOGIN = 302  # anonymous: sent to the login page


@pytest.fixture
def world(sample_content):
    student, other_student = make_user("stu"), make_user("otto")
    teacher, other_teacher = make_teacher("tea"), make_teacher("ted")
    admin = make_admin("ada")
    co_teacher = make_teacher("cole")
    cohort = make_cohort(teacher, students=[student])
    cohort.co_teachers.add(co_teacher)
    # The other teacher co-teaches another class: nothing of this one follows from that.
    make_cohort(make_teacher("tom")).co_teachers.add(other_teacher)
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.get(block__key="backend-latency")
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    prediction = make_prediction(
        student, snippet, verdict=Prediction.Verdict.SELF_UNCHECKED, said_out_loud=True
    )
    run = make_learner_run(student, snippet, purpose=Run.Purpose.RUN)
    # A wrong prediction on another snippet: a group of one, with the teacher's comment.
    other = Snippet.objects.get(block__key="kv-cache-vram")
    make_run(other, purpose=Run.Purpose.REVEAL, stdout=other.expected_output, stdin=other.stdin)
    make_prediction(student, other, text="16\n8\n", verdict=Prediction.Verdict.WRONG)
    group = clusters(in_class=Q(user__memberships__cohort=cohort), blocks=[other.block])[
        other.block_id
    ].groups[0]
    comment = ClusterComment.objects.create(
        cohort=cohort,
        author=teacher,
        block=other.block,
        key=group.key,
        summary="s",
        text="Look again.",
    )
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=1),
    )
    Extension.objects.create(assignment=assignment, student=student, due_at=now + timedelta(days=2))
    stepping = make_stepping(student, snippet)
    score_sync = make_score_sync(cohort, student, lesson)
    record_moment(user=student, block=snippet.block, what=RUN, code="print('mine')\n")
    return {
        "users": {
            "anonymous": None,
            "student": student,
            "other_student": other_student,
            "teacher": teacher,
            "co_teacher": co_teacher,
            "other_teacher": other_teacher,
            "admin": admin,
        },
        "cohort": cohort,
        "lesson": lesson,
        "snippet": snippet,
        "exercise": exercise,
        "prediction": prediction,
        "run": run,
        "assignment": assignment,
        "stepping": stepping,
        "score_sync": score_sync,
        "student": student,
        "term": GlossaryTerm.objects.get(slug="kv-cache"),
        "group": (other.block_id, group.key),
        "comment": comment,
    }


def make_stepping(student, snippet):
    """The student stepping through the snippet, its trace made (by hand, in the tracer's format)."""
    from tests.tutor.stepping_data import aliasing_trace
    from tutor.practice.stepping.models import Stepping, Trace

    data = aliasing_trace()
    run = Run.objects.create(code=snippet.code, purpose=Run.Purpose.TRACE, status=Run.Status.OK)
    trace = Trace(code=snippet.code, run=run)
    trace.keep(data)
    trace.save()
    return Stepping.objects.create(
        user=student, trace=trace, origin=Stepping.Origin.SNIPPET, snippet=snippet
    )


def statuses(client, world, method: str, url: str, data=None) -> dict[str, int]:
    seen = {}
    for role in ROLES:
        client.logout()
        if world["users"][role] is not None:
            client.force_login(world["users"][role])
        response = client.post(url, data or {}) if method == "POST" else client.get(url)
        if role == "anonymous" and response.status_code == 302:
            assert "/login/" in response["Location"], (url, response["Location"])
        seen[role] = response.status_code
    return seen


def everyone(status):
    return dict.fromkeys(ROLES, status)


def signed_in(status):
    return {**everyone(status), "anonymous": LOGIN}


def class_page():
    """A teacher's page about their class: students are refused, other teachers don't see it."""
    return {
        "anonymous": LOGIN,
        "student": 403,
        "other_student": 403,
        "teacher": 200,
        "co_teacher": 200,
        "other_teacher": 404,
        "admin": 200,
    }


def class_action():
    """A POST on the class's things: its teachers and an admin act (and are sent back)."""
    return {**class_page(), "teacher": 302, "co_teacher": 302, "admin": 302}


def owner_only():
    """A learner's own row: nobody else learns it exists."""
    return {
        "anonymous": LOGIN,
        "student": 200,
        "other_student": 404,
        "teacher": 404,
        "co_teacher": 404,
        "other_teacher": 404,
        "admin": 404,
    }


PAGES = [
    # (name, url builder, expected statuses)
    ("catalogue", lambda w: reverse("tutor:catalogue"), everyone(200)),
    ("course", lambda w: w["lesson"].course.get_absolute_url(), everyone(200)),
    ("lesson", lambda w: w["lesson"].get_absolute_url(), everyone(200)),
    ("glossary", lambda w: reverse("course:glossary"), everyone(200)),
    ("term", lambda w: w["term"].get_absolute_url(), everyone(200)),
    ("term preview", lambda w: reverse("course:term_preview", args=["kv-cache"]), everyone(200)),
    ("search", lambda w: reverse("course:search") + "?q=cache", everyone(200)),
    ("signup", lambda w: reverse("tutor:signup"), {**everyone(302), "anonymous": 200}),
    ("my progress", lambda w: reverse("tutor:my_progress"), signed_in(200)),
    ("classes", lambda w: reverse("tutor:class_list"), signed_in(200)),
    ("join form", lambda w: reverse("tutor:class_join"), signed_in(200)),
    ("class", lambda w: reverse("tutor:class_detail", args=[w["cohort"].pk]), class_page()),
    (
        "class lesson",
        lambda w: reverse("tutor:class_lesson", args=[w["cohort"].pk, w["lesson"].pk]),
        class_page(),
    ),
    (
        "class student",
        lambda w: reverse("tutor:class_student", args=[w["cohort"].pk, w["student"].pk]),
        class_page(),
    ),
    (
        "live view",
        lambda w: reverse("tutor:live_view", args=[w["cohort"].pk, w["lesson"].pk]),
        class_page(),
    ),
    # The hand's region, asked again while it is up: without htmx, back to the lesson.
    ("hand", lambda w: reverse("tutor:hand", args=[w["lesson"].pk]), signed_in(302)),
    ("class csv", lambda w: reverse("tutor:class_csv", args=[w["cohort"].pk]), class_page()),
    (
        "group comment form",
        lambda w: reverse("tutor:cluster_comment", args=[w["cohort"].pk, *w["group"]]),
        class_page(),
    ),
    (
        "projector",
        lambda w: reverse("tutor:cluster_projector", args=[w["cohort"].pk, w["group"][0]]),
        class_page(),
    ),
    (
        "attempts csv",
        lambda w: reverse("tutor:class_attempts_csv", args=[w["cohort"].pk]),
        class_page(),
    ),
    # Assignments: the class's teacher's pages.
    (
        "assignments",
        lambda w: reverse("tutor:assignment_list", args=[w["cohort"].pk]),
        class_page(),
    ),
    (
        "new assignment",
        lambda w: reverse("tutor:assignment_create", args=[w["cohort"].pk]),
        class_page(),
    ),
    ("assignment", lambda w: assignment_url(w, "assignment_detail"), class_page()),
    ("assignment edit", lambda w: assignment_url(w, "assignment_edit"), class_page()),
    (
        "class grid by assignment",
        lambda w: (
            reverse("tutor:class_detail", args=[w["cohort"].pk])
            + f"?assignment={w['assignment'].pk}"
        ),
        class_page(),
    ),
    (
        "class csv by assignment",
        lambda w: (
            reverse("tutor:class_csv", args=[w["cohort"].pk]) + f"?assignment={w['assignment'].pk}"
        ),
        class_page(),
    ),
    # Regions of the lesson page: without htmx, the owner is sent to their place on the page.
    (
        "prediction",
        lambda w: reverse("tutor:prediction_detail", args=[w["prediction"].pk]),
        {**owner_only(), "student": 302},
    ),
    (
        "run",
        lambda w: reverse("tutor:run_detail", args=[w["run"].pk]),
        {**owner_only(), "student": 302},
    ),
    (
        "ordering board",
        lambda w: reverse("tutor:ordering_practice", args=[w["exercise"].pk]),
        signed_in(302),
    ),
    # Stepping through: the learner's own; the stepping goes to its first step, the slider
    # to the step's own URL.
    (
        "stepping",
        lambda w: reverse("tutor:stepping_detail", args=[w["stepping"].pk]),
        {**owner_only(), "student": 302},
    ),
    ("step", lambda w: reverse("tutor:step_detail", args=[w["stepping"].pk, 2]), owner_only()),
    (
        "step slider",
        lambda w: reverse("tutor:step_goto", args=[w["stepping"].pk]) + "?step=3",
        {**owner_only(), "student": 302},
    ),
    # How the work was made (tutor/trail/): the learner's own replay; their teacher's.
    ("my trail", lambda w: reverse("tutor:my_trail", args=[w["snippet"].block_id]), owner_only()),
    ("class trail", lambda w: trail_url(w, "class_trail"), class_page()),
    ("class trail step", lambda w: trail_url(w, "class_trail") + "?step=1", class_page()),
    ("watch live", lambda w: trail_url(w, "trail_watch"), class_page()),
    ("admin", lambda w: reverse("admin:index"), {**everyone(302), "admin": 200}),
    # LMS integration (lti/): the LMS's own ways in take no Parsnip login.
    ("lms grades", lambda w: reverse("lti:class_grades", args=[w["cohort"].pk]), class_page()),
    ("lms set-up values", lambda w: reverse("lti:setup"), {**everyone(302), "admin": 200}),
    ("lms keyset", lambda w: reverse("lti:jwks"), everyone(200)),
    ("lms launch (GET)", lambda w: reverse("lti:launch"), everyone(405)),
    (
        "lms login, unknown registration",
        lambda w: reverse("lti:login", args=["00000000-0000-4000-8000-000000000000"]),
        everyone(400),
    ),
    # Only reached from an LMS's Deep Linking launch (its request kept in the session).
    ("lms deep-link picker", lambda w: reverse("lti:deep_link"), signed_in(403)),
    # Only an account an LMS made links to another (tests/lti/test_link_account.py).
    ("link my parsnip account", lambda w: reverse("lti:link_account"), signed_in(400)),
]


def trail_url(world, name: str) -> str:
    return reverse(
        f"tutor:{name}", args=[world["cohort"].pk, world["student"].pk, world["snippet"].block_id]
    )


@pytest.mark.parametrize("name,url,expected", PAGES, ids=[page[0] for page in PAGES])
def test_who_gets_each_page(client, world, name, url, expected):
    assert statuses(client, world, "GET", url(world)) == expected


def assignment_url(world, name: str, *more) -> str:
    return reverse(f"tutor:{name}", args=[world["cohort"].pk, world["assignment"].pk, *more])


def assignment_form(world) -> dict:
    now = timezone.now()
    return {
        "lesson": world["lesson"].pk,
        "opens_at": now.strftime("%Y-%m-%dT%H:%M"),
        "due_at": (now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
    }


ACTIONS = [
    # POSTs that act on someone's own things: anonymous goes to log in; acting on
    # another learner's row is a 404; the statuses for the owner are the success ones.
    (
        "self-check",
        lambda w: reverse("tutor:self_check", args=[w["prediction"].pk]),
        {"got_it": "yes"},
        {**owner_only(), "student": 302},
    ),
    (
        "retry reveal",
        lambda w: reverse("tutor:reveal_retry", args=[w["prediction"].pk]),
        {},
        {**owner_only(), "student": 302},
    ),
    (
        "stepping reached",
        lambda w: reverse("tutor:stepping_reached", args=[w["stepping"].pk]),
        {"step": "2"},
        {**owner_only(), "student": 302},
    ),
    (
        "stepping retry",
        lambda w: reverse("tutor:stepping_retry", args=[w["stepping"].pk]),
        {},
        {**owner_only(), "student": 302},
    ),
    (
        "raise hand",
        lambda w: reverse("tutor:hand", args=[w["lesson"].pk]),
        {"hand": "raise"},
        # Only a student of a class has a teacher to raise a hand to: the others are
        # refused (the plain POST goes back to the lesson with the reason).
        {**signed_in(302)},
    ),
    (
        "clear hands",
        lambda w: reverse("tutor:live_hands_clear", args=[w["cohort"].pk, w["lesson"].pk]),
        {"all": "on"},
        class_action(),
    ),
    (
        "live settings",
        lambda w: reverse("tutor:live_settings", args=[w["cohort"].pk, w["lesson"].pk]),
        {"stuck_failures": 4, "stuck_minutes": 6},
        class_action(),
    ),
    (
        "remove student",
        lambda w: reverse("tutor:class_remove_student", args=[w["cohort"].pk, w["student"].pk]),
        {},
        class_action(),
    ),
    (
        "comment on a group",
        lambda w: reverse("tutor:cluster_comment", args=[w["cohort"].pk, *w["group"]]),
        {"text": "Read line 3 again."},
        class_action(),
    ),
    (
        "delete a comment",
        lambda w: reverse("tutor:cluster_comment_delete", args=[w["cohort"].pk, w["comment"].pk]),
        {},
        class_action(),
    ),
    (
        "set an assignment",
        lambda w: reverse("tutor:assignment_create", args=[w["cohort"].pk]),
        assignment_form,
        class_action(),
    ),
    (
        "change an assignment",
        lambda w: assignment_url(w, "assignment_edit"),
        assignment_form,
        class_action(),
    ),
    (
        "close an assignment",
        lambda w: assignment_url(w, "assignment_close"),
        {"closed": "yes"},
        class_action(),
    ),
    (
        "grant an extension",
        lambda w: assignment_url(w, "extension_grant"),
        lambda w: {"student": w["student"].pk, "due_at": "2099-01-01T12:00"},
        class_action(),
    ),
    (
        "withdraw an extension",
        lambda w: assignment_url(w, "extension_withdraw", w["student"].pk),
        {},
        class_action(),
    ),
    (
        "delete an assignment",
        lambda w: assignment_url(w, "assignment_delete"),
        {},
        class_action(),
    ),
    (
        "set the class's time zone",
        lambda w: reverse("tutor:class_time_zone", args=[w["cohort"].pk]),
        {"time_zone": "Europe/Berlin"},
        class_action(),
    ),
    (
        "re-sync a class's LMS grades",
        lambda w: reverse("lti:resync_class", args=[w["cohort"].pk]),
        {},
        class_action(),
    ),
    (
        "re-sync one student's LMS grade",
        lambda w: reverse("lti:resync_one", args=[w["cohort"].pk, w["score_sync"].pk]),
        {},
        class_action(),
    ),
    (
        "read the LMS roster",
        lambda w: reverse("lti:sync_roster", args=[w["cohort"].pk]),
        {},
        class_action(),
    ),
    (
        # Each learner records their own trail; nobody can write to another's.
        "record edits",
        lambda w: reverse("tutor:trail_record", args=[w["snippet"].block_id]),
        {"edits": "[]", "code": "print('x')\n"},
        signed_in(204),
    ),
    (
        # Only a student of the class the comment is for: it is theirs to have read.
        "mark a teacher's comment read",
        lambda w: reverse("tutor:comment_read", args=[w["comment"].pk]),
        {},
        {
            "anonymous": LOGIN,
            "student": 302,
            "other_student": 404,
            "teacher": 404,
            "co_teacher": 404,
            "other_teacher": 404,
            "admin": 404,
        },
    ),
]


@pytest.mark.parametrize("name,url,data,expected", ACTIONS, ids=[action[0] for action in ACTIONS])
def test_who_may_act_on_each_thing(client, world, name, url, data, expected, monkeypatch):
    from tutor import queueing

    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)
    seen = {}
    for role in ROLES:
        # Each role acts on a fresh world state for the owner-only rows.
        client.logout()
        if world["users"][role] is not None:
            client.force_login(world["users"][role])
        seen[role] = client.post(url(world), data(world) if callable(data) else data).status_code
        if name == "remove student" and seen[role] == 302 and role != "anonymous":
            world["cohort"].memberships.get_or_create(student=world["student"])
        if name == "delete a comment" and seen[role] == 302:
            world["comment"].save()  # back, with the same pk, for the next role
        if name == "delete an assignment" and seen[role] == 302 and role != "anonymous":
            world["assignment"].save(force_insert=True)  # back, for the next role
    assert seen == expected


@pytest.mark.parametrize(
    "name",
    [
        "prediction_create",
        "run_create",
        "draft_save",
        "ordering_move",
        "ordering_check",
        "ordering_help",
        "ordering_reset",
        "class_create",
        "class_join",
        "class_leave",
        "stepping_snippet",
        "stepping_test",
    ],
)
def test_anonymous_posts_are_sent_to_log_in_and_change_nothing(client, world, name):
    args = {
        "prediction_create": [world["snippet"].pk],
        "run_create": [world["snippet"].pk],
        "draft_save": [world["snippet"].pk],
        "ordering_move": [world["exercise"].pk],
        "ordering_check": [world["exercise"].pk],
        "ordering_help": [world["exercise"].pk],
        "ordering_reset": [world["exercise"].pk],
        "class_create": [],
        "class_join": [],
        "class_leave": [world["cohort"].pk],
        "stepping_snippet": [world["snippet"].pk],
        "stepping_test": [1],  # asked to log in before any submission is looked up
    }[name]
    counts = (Prediction.objects.count(), Run.objects.count(), world["cohort"].memberships.count())
    response = client.post(
        reverse(f"tutor:{name}", args=args), {"code": "x", "text": "x", "name": "x"}
    )
    assert response.status_code == 302
    assert reverse("login") in response["Location"]
    assert counts == (
        Prediction.objects.count(),
        Run.objects.count(),
        world["cohort"].memberships.count(),
    )


@pytest.mark.parametrize(
    "name,args",
    [
        ("prediction_detail", lambda w: [w["prediction"].pk]),
        ("run_detail", lambda w: [w["run"].pk]),
        ("ordering_practice", lambda w: [w["exercise"].pk]),
        ("step_detail", lambda w: [w["stepping"].pk, 1]),
    ],
)
def test_the_owner_gets_the_region_as_an_htmx_partial(client, world, name, args):
    client.force_login(world["student"])
    response = client.get(
        reverse(f"tutor:{name}", args=args(world)), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert b"<html" not in response.content


def test_students_cannot_create_classes(client, world):
    client.force_login(world["student"])
    response = client.post(reverse("tutor:class_create"), {"name": "Mine"})
    assert response.status_code == 403
    assert not world["student"].cohorts_taught.exists()


def test_only_a_student_of_a_class_gets_a_raised_hand(client, world):
    """Everyone's "raise hand" POST above went back to the lesson; only the student's
    counted (the others are in no class: no teacher would see it)."""
    from tutor.live.models import RaisedHand

    url = reverse("tutor:hand", args=[world["lesson"].pk])
    statuses(client, world, "POST", url, {"hand": "raise"})
    assert list(RaisedHand.objects.values_list("user", flat=True)) == [world["student"].pk]
