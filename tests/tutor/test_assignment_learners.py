"""What students see of their assignments (home page, My progress, the lesson), and the
refusal every practice kind gives once the teacher closes an assignment."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from tests.factories import make_prediction, make_teacher, make_user
from tests.tutor.assignment_world import NOW, assign, class_of, do_everything, practice_lesson
from tutor.assignments.models import Extension
from tutor.models import Run
from tutor.practice.code_exercise.models import Submission
from tutor.practice.ordering.models import OrderingAttempt
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
HOUR = timedelta(hours=1)


def shown(moment) -> str:
    return date_format(timezone.localtime(moment), "D j M Y, H:i T")


@pytest.fixture
def world(client):
    student = make_user("stu")
    lesson, items = practice_lesson(title="Loops")
    cohort = class_of(student, teacher=make_teacher("tina"))
    cohort.name = "Year 10"
    cohort.save()
    cohort.teacher.first_name, cohort.teacher.last_name = "Tina", "Turner"
    cohort.teacher.save()
    client.force_login(student)
    return {"student": student, "lesson": lesson, "items": items, "cohort": cohort}


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    from tutor import queueing

    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)


# Seeing what is assigned ----------------------------------------------------------------


@pytest.mark.parametrize("page", ["tutor:catalogue", "tutor:my_progress"])
def test_the_home_page_and_my_progress_list_what_is_due_and_when(client, world, page):
    assign(world["cohort"], world["lesson"], due=NOW + 5 * HOUR)
    html = client.get(reverse(page)).content.decode()
    assert "Assigned to you" in html
    assert "Loops" in html and "set by Tina Turner for Year 10" in html
    assert shown(NOW + 5 * HOUR) in html
    assert f'datetime="{timezone.localtime(NOW + 5 * HOUR).isoformat()}"' in html
    assert "Not yet done" in html


@pytest.mark.parametrize("page", ["tutor:catalogue", "tutor:my_progress"])
def test_a_quiz_assigned_says_it_is_a_quiz_and_leads_to_it(client, world, page):
    from tests.tutor.quiz_world import make_quiz, quiz_lesson

    lesson, _questions = quiz_lesson()
    quiz = make_quiz(world["cohort"], lesson)
    html = client.get(reverse(page)).content.decode()
    assigned = html[html.index('id="assigned-heading"'):].split("</section>")[0]
    assert "(a quiz)" in assigned
    assert f'href="{reverse("tutor:quiz_start", args=[quiz.pk])}">Take the quiz</a>' in assigned
    assert " of 4 done" not in assigned  # its questions are answered in the quiz, not here


def test_an_assignment_not_yet_open_is_not_shown(client, world):
    assign(world["cohort"], world["lesson"], opens=NOW + HOUR, due=NOW + 5 * HOUR)
    assert "Assigned to you" not in client.get(reverse("tutor:catalogue")).content.decode()


def test_a_reader_not_logged_in_sees_no_assignments(client, world):
    assign(world["cohort"], world["lesson"])
    client.logout()
    assert "Assigned to you" not in client.get(reverse("tutor:catalogue")).content.decode()


def test_the_lesson_shows_the_due_date_and_the_students_own_extension(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW - HOUR)
    Extension.objects.create(assignment=assignment, student=world["student"], due_at=NOW + 2 * HOUR)
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Set by Tina Turner for Year 10" in html
    assert shown(NOW + 2 * HOUR) in html and "your teacher gave you an extension" in html
    assert shown(NOW - HOUR) in html  # the class's date, for comparison
    assert "Not yet done" in html


def test_late_work_is_marked_late_on_the_lesson(client, world):
    assign(world["cohort"], world["lesson"], due=NOW - 2 * HOUR)
    do_everything(world["student"], world["items"], NOW - HOUR)
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert '<span class="status status-late">Late</span>' in html
    assert "Handed in <time" in html and shown(NOW - HOUR) in html


def test_missing_work_says_late_work_is_still_accepted(client, world):
    assign(world["cohort"], world["lesson"], due=NOW - HOUR)
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Missing" in html and "Late work is still accepted and marked late." in html


def test_a_closed_assignment_says_so_on_the_lesson_and_the_home_page(client, world):
    assign(world["cohort"], world["lesson"], closed_at=NOW)
    lesson_html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Closed by your teacher" in lesson_html
    assert "Closed by your teacher" in client.get(reverse("tutor:catalogue")).content.decode()


def test_another_classs_assignment_is_not_shown(client, world):
    assign(class_of(make_user()), world["lesson"])
    assert "Assigned" not in client.get(world["lesson"].get_absolute_url()).content.decode()


# Late work is accepted ----------------------------------------------------------------------


def test_late_work_is_accepted_while_the_assignment_is_open(client, world):
    assign(world["cohort"], world["lesson"], due=NOW - HOUR)
    snippet = world["items"]["snippet"]
    response = client.post(
        reverse("tutor:prediction_create", args=[snippet.pk]), {"text": "x", "mode": "typed"}
    )
    assert response.status_code == 302
    assert Prediction.objects.filter(user=world["student"]).exists()


# Closed: every practice kind refuses ------------------------------------------------------


def submit_snippet(client, world, **headers):
    snippet = world["items"]["snippet"]
    return client.post(
        reverse("tutor:prediction_create", args=[snippet.pk]),
        {"text": "x", "mode": "typed"},
        **headers,
    ), f"#snippet-{snippet.block.key}-message"


def run_snippet(client, world, **headers):
    snippet = world["items"]["snippet"]
    make_prediction(world["student"], snippet)  # revealed before the assignment closed
    return client.post(
        reverse("tutor:run_create", args=[snippet.pk]), {"code": "print(2)\n"}, **headers
    ), f"#snippet-{snippet.block.key}-message"


def check_ordering(client, world, **headers):
    exercise = world["items"]["ordering"]
    return client.post(reverse("tutor:ordering_check", args=[exercise.pk]), {}, **headers), (
        f"#exercise-{exercise.key}-message"
    )


def submit_code(client, world, **headers):
    exercise = world["items"]["code_exercise"]
    return client.post(
        reverse("tutor:submission_create", args=[exercise.pk]), {"code": "print(1)\n"}, **headers
    ), f"#exercise-{exercise.block.key}-message"


SENDS = {
    "predict": submit_snippet,
    "run": run_snippet,
    "check": check_ordering,
    "submit": submit_code,
}


def nothing_stored(world) -> bool:
    user = world["student"]
    return not (
        Prediction.objects.filter(user=user, text="x").exists()
        or Run.objects.filter(user=user).exists()
        or OrderingAttempt.objects.filter(user=user).exists()
        or Submission.objects.filter(user=user).exists()
    )


@pytest.mark.parametrize("action", SENDS)
def test_a_closed_assignment_refuses_work_with_htmx_in_the_panels_message_line(
    client, world, action
):
    assign(world["cohort"], world["lesson"], closed_at=NOW)
    response, into = SENDS[action](client, world, **HTMX)
    assert response.status_code == 403
    assert response["HX-Retarget"] == into
    assert "Closed by your teacher" in response.content.decode()
    assert nothing_stored(world)


@pytest.mark.parametrize("action", SENDS)
def test_a_closed_assignment_refuses_work_without_javascript(client, world, action):
    assign(world["cohort"], world["lesson"], closed_at=NOW)
    response, _ = SENDS[action](client, world)
    assert response.status_code in (302, 403)
    if response.status_code == 302:
        response = client.get(response["Location"])
    assert (
        "Closed by your teacher: the assignment for “Year 10” no longer takes work"
        in response.content.decode()
    )
    assert nothing_stored(world)


@pytest.mark.parametrize("action", SENDS)
def test_a_reopened_assignment_takes_work_again(client, world, action):
    assignment = assign(world["cohort"], world["lesson"], closed_at=NOW)
    assignment.closed_at = None
    assignment.save()
    response, _ = SENDS[action](client, world, **HTMX)
    assert response.status_code != 403


def test_only_the_assigned_exercises_are_closed(client, world):
    assign(
        world["cohort"], world["lesson"], blocks=[world["items"]["ordering"].block], closed_at=NOW
    )
    assert check_ordering(client, world, **HTMX)[0].status_code == 403
    assert submit_snippet(client, world, **HTMX)[0].status_code == 200


def test_a_closed_assignment_of_another_class_refuses_nobody_here(client, world):
    assign(class_of(make_user()), world["lesson"], closed_at=NOW)
    assert submit_snippet(client, world, **HTMX)[0].status_code == 200


def test_the_lesson_names_the_exercises_set_when_not_the_whole_lesson(client, world):
    exercise = world["items"]["ordering"]
    assign(world["cohort"], world["lesson"], blocks=[exercise.block])
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "1 of this lesson’s exercises:</p>" in html
    assert f'<ul class="assignment-items"><li>Put it in order: {exercise.title}</li></ul>' in html


def test_the_course_page_marks_the_assigned_lesson_with_its_due_date(client, world):
    assign(world["cohort"], world["lesson"], due=NOW + 5 * HOUR)
    html = client.get(world["lesson"].course.get_absolute_url()).content.decode()
    assert "Set by Tina Turner for Year 10" in html and shown(NOW + 5 * HOUR) in html


def test_handing_in_the_last_exercise_with_htmx_brings_the_new_status_out_of_band(client, world):
    snippet = world["items"]["snippet"]
    assign(world["cohort"], world["lesson"], blocks=[snippet.block], due=NOW + HOUR)
    # Predicted in another tab: this prediction's swap is the first this page hears of it.
    make_prediction(world["student"], snippet, created_at=NOW)
    response, _ = submit_snippet(client, world, **HTMX)
    html = response.content.decode()
    assert '<div id="lesson-assignments" hx-swap-oob="true">' in html
    assert '<span class="status status-on-time">On time</span>' in html


def test_a_learner_without_assignments_gets_no_assignment_region(client, world):
    response, _ = submit_snippet(client, world, **HTMX)
    assert 'id="lesson-assignments"' not in response.content.decode()


def check_and_test_buttons(html: str, world) -> dict[str, bool]:
    """Whether each of Check (ordering) and Test it (code exercise) is disabled."""
    ordering = world["items"]["ordering"].block.key
    code = world["items"]["code_exercise"].block.key
    check = re.search(
        rf'id="exercise-{ordering}-practice".*?<button type="submit" class="button primary"([^>]*)>Check<',
        html,
        re.S,
    )
    test_it = re.search(rf'id="exercise-{code}-submit"([^>]*)>Test it<', html)
    return {"check": "disabled" in check.group(1), "test it": "disabled" in test_it.group(1)}


def test_a_closed_assignments_check_and_test_it_are_off_and_say_why(client, world):
    """They stayed active after closing and only refused once pressed (issue 39)."""
    lesson_url = world["lesson"].get_absolute_url()
    html = client.get(lesson_url).content.decode()
    assert check_and_test_buttons(html, world) == {"check": False, "test it": False}
    assign(world["cohort"], world["lesson"], closed_at=NOW)
    html = client.get(lesson_url).content.decode()
    assert check_and_test_buttons(html, world) == {"check": True, "test it": True}
    assert "so Check is off. You can still move the lines." in html
    assert "so Test it is off." in html
    # Moving a line (still allowed) swaps the board in: Check stays off.
    exercise = world["items"]["ordering"]
    board = client.get(reverse("tutor:ordering_practice", args=[exercise.pk]), **HTMX)
    assert "so Check is off." in board.content.decode()


def test_only_the_closed_exercises_buttons_are_off(client, world):
    assign(
        world["cohort"], world["lesson"], blocks=[world["items"]["ordering"].block], closed_at=NOW
    )
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert check_and_test_buttons(html, world) == {"check": True, "test it": False}
