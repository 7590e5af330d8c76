"""The page a learner lands on for a course: lessons under their levels, their progress on
each, where to go on; and for a teacher, how a class stands on each lesson, to pick what
to assign."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.factories import (
    make_cohort,
    make_course,
    make_exercise,
    make_lesson,
    make_lesson_progress,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.assignments.actions import create_assignment

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def course():
    course = make_course(title="Local models")
    for n, (title, level) in enumerate(
        [("Tokens", "Beginner"), ("Hardware", "Beginner"), ("Sampling", "Practitioner"), ("Batching", "Master")],
        start=1,
    ):
        lesson = make_lesson(course, title=title, slug=title.lower(), position=n, level=level)
        make_snippet(lesson)
        make_snippet(lesson)
        make_exercise(lesson)
    return course


def page(client, course, **query):
    return client.get(reverse("tutor:course_detail", args=[course.slug]), query)


def lesson(course, title):
    return course.lessons.get(title=title)


def finish(user, lesson_, **fields):
    return make_lesson_progress(
        user, lesson_, snippets_predicted=2, exercises_solved=1, completed_at=timezone.now(), **fields
    )


def test_the_levels_say_how_many_of_their_lessons_the_learner_finished(client, course):
    learner = make_user()
    finish(learner, lesson(course, "Tokens"))
    make_lesson_progress(learner, lesson(course, "Hardware"), snippets_predicted=1)
    client.force_login(learner)

    html = page(client, course).text

    assert "1 of 2 lessons complete" in html  # Beginner
    assert "0 of 1 lesson complete" in html  # Practitioner, and Master
    assert html.index("Beginner</h2>") < html.index("Practitioner</h2>") < html.index("Master</h2>")
    assert "✓</span> Complete" in html
    assert "33% done" in html  # Hardware: one item of three
    assert html.count("Not started") == 2


def test_a_learner_goes_on_with_the_unfinished_lesson_they_worked_on_last(client, course):
    learner = make_user()
    earlier = timezone.now() - timedelta(days=2)
    make_lesson_progress(learner, lesson(course, "Tokens"), snippets_predicted=1, updated_at=earlier)
    make_lesson_progress(learner, lesson(course, "Sampling"), snippets_predicted=2)
    client.force_login(learner)

    html = page(client, course).text

    url = reverse("tutor:lesson_detail", args=[course.slug, "sampling"])
    assert f'href="{url}">Continue where you left off: Sampling</a>' in html
    assert "67% done" in html


def test_with_nothing_half_done_the_next_lesson_is_the_first_not_started(client, course):
    learner = make_user()
    finish(learner, lesson(course, "Tokens"))
    client.force_login(learner)

    assert "Next: Hardware</a>" in page(client, course).text


def test_a_new_learner_is_asked_to_start_with_the_first_lesson(client, course):
    client.force_login(make_user())

    html = page(client, course).text

    assert "Start with: Tokens</a>" in html
    assert html.count("Not started") == 4


def test_a_learner_who_finished_every_lesson_is_told_so(client, course):
    learner = make_user()
    for each in course.lessons.all():
        finish(learner, each)
    client.force_login(learner)

    html = page(client, course).text

    assert "You have finished every lesson of this course." in html
    assert "Continue where" not in html and "Next:" not in html


def test_a_reader_who_is_not_logged_in_sees_the_lessons_without_progress(client, course):
    html = page(client, course).text

    assert "Sampling" in html
    assert "Not started" not in html and "Start with" not in html and "complete" not in html


def test_each_lesson_says_what_it_practises(client, course):
    html = page(client, course).text

    assert html.count("Snippets <strong>2</strong>") == 4
    assert html.count("Ordering exercises <strong>1</strong>") == 4


def test_a_teacher_sees_how_their_class_stands_on_each_lesson_and_can_assign_it(client, course):
    teacher = make_teacher()
    ada, bob, cy = make_user("ada"), make_user("bob"), make_user("cy")
    cohort = make_cohort(teacher, students=[ada, bob, cy], name="Year 10")
    finish(ada, lesson(course, "Tokens"))
    make_lesson_progress(bob, lesson(course, "Tokens"))
    make_lesson_progress(make_user("outsider"), lesson(course, "Tokens"))  # not in the class
    now = timezone.now()
    create_assignment(
        cohort=cohort, lesson=lesson(course, "Hardware"), blocks=[], opens_at=now, due_at=now + timedelta(days=7)
    )
    client.force_login(teacher)

    html = page(client, course).text

    assert "<strong>Year 10</strong>: 3 students." in html
    tokens = html[html.index(">Tokens</a>"):html.index(">Hardware</a>")]
    assert "2 started, 1 finished" in tokens
    assign = reverse("tutor:assignment_create", args=[cohort.pk]) + f"?lesson={lesson(course, 'Tokens').pk}"
    assert f'href="{assign}">Assign to Year 10</a>' in tokens
    hardware = html[html.index(">Hardware</a>"):html.index(">Sampling</a>")]
    assert "Set, due" in hardware and "Assign to" not in hardware
    # The teacher's own progress is not what the page is about.
    assert "Not started" not in html and "Start with" not in html.split('id="course-lessons"')[1]


def test_the_link_to_assign_a_lesson_opens_the_form_with_that_lesson_chosen(client, course):
    teacher = make_teacher()
    cohort = make_cohort(teacher)
    client.force_login(teacher)
    chosen = lesson(course, "Sampling")

    html = client.get(reverse("tutor:assignment_create", args=[cohort.pk]), {"lesson": chosen.pk}).text

    assert f'<option value="{chosen.pk}" selected>' in html


def test_a_teacher_chooses_the_class_and_htmx_swaps_only_the_lessons(client, course):
    teacher = make_teacher()
    make_cohort(teacher, name="Alpha")
    beta = make_cohort(teacher, name="Beta", students=[make_user()])
    someone_elses = make_cohort(make_teacher(), name="Not yours")
    client.force_login(teacher)

    assert "<strong>Alpha</strong>: 0 students." in page(client, course).text
    full = page(client, course, **{"class": beta.pk}).text
    assert "<strong>Beta</strong>: 1 student." in full and "<html" in full
    partial = client.get(reverse("tutor:course_detail", args=[course.slug]), {"class": beta.pk}, **HTMX)
    assert partial.text.lstrip().startswith('<div id="course-lessons"')
    assert "<strong>Beta</strong>: 1 student." in partial.text and "<html" not in partial.text
    assert "HX-Request" in partial["Vary"]
    # Another teacher's class is never shown: the page falls back to one of theirs.
    for value in (someone_elses.pk, "nope", "²"):
        html = page(client, course, **{"class": value}).text
        assert "Not yours" not in html and "<strong>Alpha</strong>" in html


def test_a_student_never_gets_the_teachers_view(client, course):
    student = make_user()
    cohort = make_cohort(students=[student], name="Year 10")
    client.force_login(student)

    for response in (page(client, course, **{"class": cohort.pk}), client.get(
        reverse("tutor:course_detail", args=[course.slug]), {"class": cohort.pk}, **HTMX
    )):
        assert "Assign to" not in response.text and "started," not in response.text


def test_the_page_costs_the_same_queries_whatever_the_number_of_lessons(client, course):
    teacher = make_teacher()
    make_cohort(teacher, students=[make_user()])
    client.force_login(teacher)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert page(client, course).status_code == 200
        return len(queries)

    before = count()
    for n in range(5, 12):
        more = make_lesson(course, position=n, level="Master")
        make_snippet(more)
        make_exercise(more)
    assert count() == before
