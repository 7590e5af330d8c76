"""The site's htmx conventions (course/htmx.py), through the views that follow them: a page
or its partial, one shape for refusals, and logging in from a panel whose session expired."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import (
    make_cohort,
    make_exercise,
    make_learner_run,
    make_lesson,
    make_prediction,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.assignments.models import Assignment
from tutor.models import Run
from tutor.practice.ordering.models import OrderingArrangement
from tutor.practice.snippet.models import CodeDraft, Prediction

pytestmark = pytest.mark.django_db

LOGIN = reverse("login")


def htmx_headers(current_url: str | None = None) -> dict:
    headers = {"HX-Request": "true"}
    if current_url is not None:
        headers["HX-Current-URL"] = current_url
    return headers


@pytest.fixture
def world():
    learner, teacher = make_user("ada"), make_teacher("tess")
    lesson = make_lesson(slug="loops")
    snippet = make_snippet(lesson, key="two-lines")
    prediction = make_prediction(
        learner, snippet, verdict=Prediction.Verdict.SELF_UNCHECKED, said_out_loud=True
    )
    run = make_learner_run(learner, snippet, purpose=Run.Purpose.RUN)
    cohort = make_cohort(teacher, students=[learner])
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort, lesson=lesson, opens_at=now, due_at=now + timedelta(days=1)
    )
    return {
        "lesson": lesson,
        "snippet": snippet,
        "prediction": prediction,
        "run": run,
        "cohort": cohort,
        "assignment": assignment,
    }


# Every login-required view htmx calls: (method, url name, its arguments from the world).
PANEL_VIEWS = [
    ("post", "prediction_create", lambda w: [w["snippet"].pk]),
    ("get", "prediction_detail", lambda w: [w["prediction"].pk]),
    ("post", "reveal_retry", lambda w: [w["prediction"].pk]),
    ("post", "self_check", lambda w: [w["prediction"].pk]),
    ("post", "run_create", lambda w: [w["snippet"].pk]),
    ("get", "run_detail", lambda w: [w["run"].pk]),
    ("post", "draft_save", lambda w: [w["snippet"].pk]),
    ("get", "class_detail", lambda w: [w["cohort"].pk]),
    ("get", "assignment_list", lambda w: [w["cohort"].pk]),
    ("get", "assignment_create", lambda w: [w["cohort"].pk]),
    ("post", "assignment_create", lambda w: [w["cohort"].pk]),
    ("get", "assignment_detail", lambda w: [w["cohort"].pk, w["assignment"].pk]),
    ("get", "assignment_edit", lambda w: [w["cohort"].pk, w["assignment"].pk]),
    ("post", "assignment_close", lambda w: [w["cohort"].pk, w["assignment"].pk]),
    ("post", "assignment_delete", lambda w: [w["cohort"].pk, w["assignment"].pk]),
    ("post", "extension_grant", lambda w: [w["cohort"].pk, w["assignment"].pk]),
    (
        "post",
        "extension_withdraw",
        lambda w: [w["cohort"].pk, w["assignment"].pk, w["cohort"].teacher_id],
    ),
    ("get", "live_view", lambda w: [w["cohort"].pk, w["lesson"].pk]),
    ("post", "live_hands_clear", lambda w: [w["cohort"].pk, w["lesson"].pk]),
    ("get", "hand", lambda w: [w["lesson"].pk]),
    ("post", "hand", lambda w: [w["lesson"].pk]),
]


@pytest.mark.parametrize(("method", "name", "args"), PANEL_VIEWS)
def test_an_expired_session_sends_the_whole_page_to_log_in_and_back(
    client, world, method, name, args
):
    page = world["lesson"].get_absolute_url()
    counts = (Prediction.objects.count(), Run.objects.count(), CodeDraft.objects.count())

    response = getattr(client, method)(
        reverse(f"tutor:{name}", args=args(world)),
        {"text": "x", "code": "print(1)\n", "got_it": "yes"} if method == "post" else {},
        headers=htmx_headers(f"http://testserver{page}#snippet-two-lines"),
    )

    # Not the log-in page swapped into the panel: htmx is told to go there, whole page.
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"{LOGIN}?next={page}%23snippet-two-lines"
    assert b"<form" not in response.content
    assert counts == (Prediction.objects.count(), Run.objects.count(), CodeDraft.objects.count())


def test_after_logging_in_the_learner_is_back_on_the_lesson(client, world):
    page = world["lesson"].get_absolute_url()
    response = client.post(
        reverse("tutor:prediction_create", args=[world["snippet"].pk]),
        {"text": "x"},
        headers=htmx_headers(f"http://testserver{page}?run=3#snippet-two-lines"),
    )
    login = response["HX-Redirect"]
    assert login == f"{LOGIN}?next={page}%3Frun%3D3%23snippet-two-lines"

    assert 'name="next"' in client.get(login).text
    response = client.post(
        login, {"username": "ada", "password": "pw-ada", "next": f"{page}?run=3#snippet-two-lines"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"{page}?run=3#snippet-two-lines"


@pytest.mark.parametrize(
    "current_url",
    [
        None,
        "",
        "https://elsewhere.example/learn/",
        "//elsewhere.example/learn/",
        "http://testserver//elsewhere.example/learn/",
        "javascript:alert(1)",
    ],
)
def test_a_page_that_is_not_ours_is_not_where_log_in_comes_back_to(client, world, current_url):
    response = client.get(
        reverse("tutor:run_detail", args=[world["run"].pk]), headers=htmx_headers(current_url)
    )
    assert response["HX-Redirect"] == LOGIN


def test_without_htmx_an_anonymous_click_still_gets_djangos_redirect(client, world):
    url = reverse("tutor:run_create", args=[world["snippet"].pk])
    response = client.post(url, {"code": "print(1)\n"})
    assert response.status_code == 302
    assert response["Location"] == f"{LOGIN}?next={url}"


def test_a_logged_in_learners_panel_is_served_as_before(client, world):
    client.force_login(world["prediction"].user)
    response = client.get(
        reverse("tutor:run_detail", args=[world["run"].pk]),
        headers=htmx_headers("http://testserver/learn/"),
    )
    assert response.status_code == 200 and "HX-Redirect" not in response
    assert 'id="snippet-two-lines-output"' in response.text


# One refusal shape ---------------------------------------------------------------------


def assert_refusal(response, *, status: int, into: str, message: str) -> None:
    """The message alone (in the one refusal element), swapped into the panel's message line."""
    assert response.status_code == status
    assert response["HX-Retarget"] == f"#{into}"
    assert response["HX-Reswap"] == "innerHTML"
    assert response.text.strip().startswith('<span class="refusal">')
    assert message in response.text
    assert "<html" not in response.text and "<form" not in response.text


def test_snippet_and_ordering_refusals_have_the_same_shape(client, world, settings):
    learner = world["prediction"].user
    client.force_login(learner)
    snippet = world["snippet"]
    response = client.post(
        reverse("tutor:prediction_create", args=[snippet.pk]), {"text": " "}, headers=htmx_headers()
    )
    assert_refusal(
        response, status=400, into="snippet-two-lines-message", message="Type what you think"
    )

    settings.RUNS_PENDING_MAX = 0
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": "print(1)\n"},
        headers=htmx_headers(),
    )
    assert_refusal(response, status=429, into="snippet-two-lines-message", message="runs waiting")

    exercise = make_exercise(world["lesson"], key="abc")
    response = client.post(
        reverse("tutor:ordering_help", args=[exercise.pk]), headers=htmx_headers()
    )
    assert_refusal(response, status=400, into="exercise-abc-message", message="after three checks")
    assert "Reload the page to see your lines as saved." in response.text
    assert not OrderingArrangement.objects.exclude(checks=0).exists()

    settings.RUNS_PENDING_MAX, settings.RUNS_PER_MINUTE = 3, 0  # a check runs the program
    graded = make_exercise(
        world["lesson"], lines=['print("a")', 'print("b")'], grading="output", key="out"
    )
    response = client.post(
        reverse("tutor:ordering_check", args=[graded.pk]), headers=htmx_headers()
    )
    assert_refusal(
        response, status=429, into="exercise-out-message", message="runs in the last minute"
    )


def test_the_lesson_page_has_the_message_line_each_refusal_names(client, world):
    exercise = make_exercise(world["lesson"], key="abc")
    client.force_login(world["prediction"].user)
    html = client.get(world["lesson"].get_absolute_url()).text
    assert 'id="snippet-two-lines-message"' in html
    assert f'id="exercise-{exercise.key}-message"' in html


# Page or partial -----------------------------------------------------------------------


def test_a_history_restore_gets_the_whole_page_even_from_htmx(client, world):
    teacher = world["cohort"].teacher
    client.force_login(teacher)
    url = reverse("tutor:class_detail", args=[world["cohort"].pk])
    partial = client.get(url, headers=htmx_headers())
    restored = client.get(url, headers={**htmx_headers(), "HX-History-Restore-Request": "true"})
    assert "<html" not in partial.text and 'id="class-grid"' in partial.text
    assert "<html" in restored.text
    assert "HX-Request" in partial["Vary"] and "HX-Request" in restored["Vary"]
