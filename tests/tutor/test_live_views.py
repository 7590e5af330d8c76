"""The live view (teachers), its poll and its POSTs, and the learner's "Raise hand"
button: as a page, as the partial htmx swaps, refused in the site's shape."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import (
    make_cohort,
    make_exercise,
    make_lesson,
    make_snippet,
    make_teacher,
    make_user,
)
from tests.tutor.assignment_world import NOW, assign, do_everything, do_ordering, practice_lesson
from tutor.assignments.models import Extension
from tutor.live import actions
from tutor.live.models import LessonActivity, LiveSettings, RaisedHand

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def exercise():
    return make_exercise()


@pytest.fixture
def lesson(exercise):
    return exercise.block.lesson


@pytest.fixture
def student():
    return make_user("sam")


@pytest.fixture
def teacher():
    return make_teacher("tess")


@pytest.fixture
def cohort(teacher, student):
    return make_cohort(teacher, students=[student], name="Year 10")


def live(cohort, lesson):
    return reverse("tutor:live_view", args=[cohort.pk, lesson.pk])


def clear_url(cohort, lesson):
    return reverse("tutor:live_hands_clear", args=[cohort.pk, lesson.pk])


def fail_three_times(student, exercise):
    for _ in range(3):
        actions.record(
            user=student, block=exercise.block, what="checked the order — wrong", failed=True
        )


# The teacher's page and its poll --------------------------------------------------------


def test_the_teacher_sees_each_student_their_block_last_action_and_stuck_in_words(
    client, teacher, cohort, student, exercise, lesson
):
    calm = make_user("ada")
    cohort.memberships.create(student=calm)
    fail_three_times(student, exercise)
    client.force_login(teacher)
    response = client.get(live(cohort, lesson))
    assert response.status_code == 200
    html = response.text
    assert "Live view" in html and 'hx-trigger="every 3s, parsnip:shown" data-poll-every' in html
    assert 'href="' + live(cohort, lesson) + '" class="refresh-link">Refresh</a>' in html
    assert '⚠ Stuck</strong> <span class="stuck-why">3 failed in a row' in html
    assert "checked the order — wrong" in html
    assert f"{exercise.block.key} (put it in order)" in html
    # Stuck first, in the table's order.
    assert html.index(">sam</a>") < html.index(">ada</a>")
    assert "Not started" in html


def test_a_student_working_in_another_lesson_is_away_not_stuck(
    client, teacher, cohort, student, exercise, lesson
):
    """Eleven minutes "without progress" here were spent in another lesson: say so."""
    fail_three_times(student, exercise)
    LessonActivity.objects.filter(user=student).update(
        acted_at=timezone.now() - timedelta(minutes=11), since=timezone.now() - timedelta(minutes=11)
    )
    elsewhere = make_exercise(make_lesson(title="Loops again"))
    actions.record(user=student, block=elsewhere.block, what="moved a line", failed=None)
    client.force_login(teacher)
    html = client.get(live(cohort, lesson)).text
    assert "⚠ Stuck" not in html
    assert 'Away</span> <span class="away-where">In “Loops again” · ' in html
    assert "<strong>0</strong> stuck" in html


def test_a_student_who_has_done_nothing_for_a_while_is_last_seen_not_stuck(
    client, teacher, cohort, student, exercise, lesson
):
    actions.record(user=student, block=exercise.block, what="moved a line", failed=None)
    LessonActivity.objects.filter(user=student).update(
        acted_at=timezone.now() - timedelta(minutes=40), since=timezone.now() - timedelta(minutes=40)
    )
    client.force_login(teacher)
    html = client.get(live(cohort, lesson)).text
    assert "⚠ Stuck" not in html
    assert "Last seen 40 min ago" in html
    assert "for 40 min" not in html
    # Still here a little while ago: stuck, as before.
    LessonActivity.objects.filter(user=student).update(
        acted_at=timezone.now() - timedelta(minutes=7), since=timezone.now() - timedelta(minutes=7)
    )
    html = client.get(live(cohort, lesson)).text
    assert "⚠ Stuck" in html and "7 min without progress" in html


def test_the_live_view_names_a_snippet_by_its_caption(client, teacher, cohort, student, lesson):
    snippet = make_snippet(lesson, key="s-fits", caption="Does it fit?")
    actions.record(user=student, block=snippet.block, what="predicted", failed=False)
    RaisedHand.objects.create(user=student, lesson=lesson, block=snippet.block)
    client.force_login(teacher)
    html = client.get(live(cohort, lesson)).text
    assert "Does it fit? (" in html and "about Does it fit? (" in html
    assert "s-fits (" not in html


def test_the_poll_gets_only_the_board(client, teacher, cohort, lesson):
    client.force_login(teacher)
    response = client.get(live(cohort, lesson), **HTMX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="live-board"')
    assert "<html" not in response.text
    assert "HX-Request" in response["Vary"]


def test_students_are_refused_and_other_teachers_do_not_find_the_class(
    client, cohort, lesson, student
):
    client.force_login(student)
    assert client.get(live(cohort, lesson)).status_code == 403
    client.force_login(make_teacher())
    assert client.get(live(cohort, lesson)).status_code == 404
    client.force_login(cohort.teacher)
    assert client.get(reverse("tutor:live_view", args=[cohort.pk, 999999])).status_code == 404


def test_an_expired_session_on_the_poll_goes_to_log_in(client, cohort, lesson):
    response = client.get(
        live(cohort, lesson), **HTMX, HTTP_HX_CURRENT_URL="http://testserver" + live(cohort, lesson)
    )
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith("/accounts/login/")


def test_the_class_page_and_the_lesson_page_link_to_the_live_view(
    client, teacher, cohort, lesson, student
):
    from tutor.actions.progress import refresh_lesson_progress

    refresh_lesson_progress(user=student, lesson=lesson)
    client.force_login(teacher)
    url = live(cohort, lesson)
    assert url in client.get(reverse("tutor:class_detail", args=[cohort.pk])).text
    assert url in client.get(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk])).text


def test_the_live_board_costs_the_same_queries_for_3_or_40_students(
    client, teacher, exercise, lesson, django_assert_num_queries
):
    small = make_cohort(teacher, students=[make_user() for _ in range(3)])
    big = make_cohort(teacher, students=[make_user() for _ in range(40)])
    for cohort in (small, big):
        for membership in cohort.memberships.select_related("student"):
            fail_three_times(membership.student, exercise)
            actions.raise_hand(user=membership.student, lesson=lesson)
    client.force_login(teacher)
    client.get(live(small, lesson), **HTMX)  # warm: session, user
    with django_assert_num_queries(7) as few:
        assert client.get(live(small, lesson), **HTMX).text.count("⚠ Stuck") == 3
    with django_assert_num_queries(len(few.captured_queries)):
        assert client.get(live(big, lesson), **HTMX).text.count("⚠ Stuck") == 40


# Hands: the learner's button ----------------------------------------------------------------


def hand_url(lesson):
    return reverse("tutor:hand", args=[lesson.pk])


def test_a_student_of_a_class_sees_the_button_and_raises_their_hand_without_javascript(
    client, cohort, student, lesson
):
    client.force_login(student)
    page = client.get(lesson.get_absolute_url()).text
    assert "Raise hand" in page and f'action="{hand_url(lesson)}"' in page
    response = client.post(hand_url(lesson), {"hand": "raise"})
    assert response.status_code == 302
    assert response["Location"] == f"{lesson.get_absolute_url()}#raise-hand"
    assert "Hand raised — lower it" in client.get(lesson.get_absolute_url()).text
    client.post(hand_url(lesson), {"hand": "lower"})
    assert not RaisedHand.objects.exists()


def test_with_htmx_the_button_swaps_to_lower_it(client, cohort, student, lesson):
    client.force_login(student)
    response = client.post(hand_url(lesson), {"hand": "raise"}, **HTMX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="raise-hand"')
    assert "Hand raised — lower it" in response.text
    response = client.post(hand_url(lesson), {"hand": "lower"}, **HTMX)
    assert "Raise hand" in response.text


def test_a_raised_hand_asks_again_and_goes_down_once_the_teacher_clears_it(
    client, cohort, student, lesson
):
    client.force_login(student)
    raised = client.post(hand_url(lesson), {"hand": "raise"}, **HTMX).text
    assert (
        f'hx-get="{hand_url(lesson)}" hx-trigger="every 10s, parsnip:shown" data-poll-every'
        in raised
    )
    assert "Hand raised — lower it" in client.get(hand_url(lesson), **HTMX).text
    actions.clear_hands(cohort=cohort, lesson=lesson)
    lowered = client.get(hand_url(lesson), **HTMX).text
    assert "Raise hand" in lowered and "hx-trigger" not in lowered  # the polling stops
    response = client.get(hand_url(lesson))  # without htmx: back to the lesson
    assert response.status_code == 302 and response["Location"].endswith("#raise-hand")


def test_a_student_in_no_class_has_no_button_and_is_refused(client, lesson):
    loner = make_user("lone")
    client.force_login(loner)
    assert "Raise hand" not in client.get(lesson.get_absolute_url()).text
    response = client.post(hand_url(lesson), {"hand": "raise"}, **HTMX)
    assert response.status_code == 403
    assert response["HX-Retarget"] == "#raise-hand-message"
    assert "join your teacher’s class first" in response.text
    assert not RaisedHand.objects.exists()


def test_bad_hand_input_is_refused_in_words(client, cohort, student, lesson):
    client.force_login(student)
    response = client.post(hand_url(lesson), {"hand": "wave"}, **HTMX)
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#raise-hand-message"
    response = client.post(hand_url(lesson), {"hand": "wave"})
    assert response.status_code == 302  # back to the lesson, with the message on top
    assert not RaisedHand.objects.exists()
    assert client.put(hand_url(lesson)).status_code == 405
    assert client.post(reverse("tutor:hand", args=[999999]), {"hand": "raise"}).status_code == 404


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_hand_says_which_item_it_is_about_and_the_live_view_shows_it(
    client, teacher, cohort, student, exercise, lesson, headers
):
    # The item the student last worked on is chosen already.
    actions.record(user=student, block=exercise.block, what="moved lines")
    client.force_login(student)
    page = client.get(lesson.get_absolute_url()).text
    assert f'<option value="{exercise.block.pk}" selected>{exercise.title}</option>' in page
    assert '<option value="">the whole lesson</option>' in page

    response = client.post(
        hand_url(lesson), {"hand": "raise", "block": exercise.block.pk}, **headers
    )
    hand = RaisedHand.objects.get()
    assert hand.block == exercise.block
    shown = response.text if headers else client.get(lesson.get_absolute_url()).text
    assert f"Your teacher sees it, about {exercise.title}." in shown

    client.force_login(teacher)
    queue = client.get(live(cohort, lesson)).text
    queue = queue[queue.index('class="hand-queue"') :]
    assert f'<strong class="hand-about">about {exercise.title} (put it in order)</strong>' in queue


def test_a_hand_about_the_whole_lesson_or_an_item_elsewhere(client, cohort, student, lesson):
    client.force_login(student)
    client.post(hand_url(lesson), {"hand": "raise", "block": ""})
    assert RaisedHand.objects.get().block is None
    RaisedHand.objects.all().delete()
    elsewhere = make_exercise()
    response = client.post(hand_url(lesson), {"hand": "raise", "block": elsewhere.block.pk}, **HTMX)
    assert response.status_code == 400 and "That item is not in this lesson." in response.text
    response = client.post(hand_url(lesson), {"hand": "raise", "block": "x"}, **HTMX)
    assert response.status_code == 400
    assert not RaisedHand.objects.exists()


def test_a_draft_lessons_hand_is_not_found(client, cohort, student):
    draft = make_lesson(status="draft")
    client.force_login(student)
    assert client.post(hand_url(draft), {"hand": "raise"}).status_code == 404


def test_anonymous_is_sent_to_log_in(client, lesson):
    response = client.post(hand_url(lesson), {"hand": "raise"})
    assert response.status_code == 302 and "/login/" in response["Location"]


# Hands: the teacher's queue -------------------------------------------------------------------


def test_the_queue_shows_hands_oldest_first_with_the_block_and_clears_one(
    client, teacher, cohort, student, exercise, lesson
):
    other = make_user("bea")
    cohort.memberships.create(student=other)
    actions.record(user=other, block=exercise.block, what="moved lines")
    actions.raise_hand(user=other, lesson=lesson)
    actions.raise_hand(user=student, lesson=lesson)
    client.force_login(teacher)
    html = client.get(live(cohort, lesson)).text
    queue = html[html.index('class="hand-queue"') :]
    assert queue.index("bea") < queue.index("sam")
    assert f"on {exercise.block.key} (put it in order)" in queue
    response = client.post(clear_url(cohort, lesson), {"student": other.pk}, **HTMX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="live-board"')
    assert list(RaisedHand.objects.values_list("user__username", flat=True)) == ["sam"]


def test_clearing_every_hand_without_javascript(client, teacher, cohort, student, lesson):
    actions.raise_hand(user=student, lesson=lesson)
    client.force_login(teacher)
    response = client.post(clear_url(cohort, lesson), {"all": "on"})
    assert response.status_code == 302 and response["Location"] == live(cohort, lesson)
    assert not RaisedHand.objects.exists()


def test_clearing_nobody_or_someone_outside_the_class_is_refused(client, teacher, cohort, lesson):
    outsider = make_user("out")
    make_cohort(students=[outsider])
    actions.raise_hand(user=outsider, lesson=lesson)
    client.force_login(teacher)
    for data in ({}, {"student": "abc"}, {"student": outsider.pk}):
        response = client.post(clear_url(cohort, lesson), data, **HTMX)
        assert response.status_code == 400, data
        assert response["HX-Retarget"] == "#live-message"
    assert RaisedHand.objects.count() == 1


def test_only_the_classs_teacher_clears_its_hands(client, cohort, student, lesson):
    actions.raise_hand(user=student, lesson=lesson)
    client.force_login(student)
    assert client.post(clear_url(cohort, lesson), {"all": "on"}).status_code == 403
    client.force_login(make_teacher())
    assert client.post(clear_url(cohort, lesson), {"all": "on"}).status_code == 404
    assert RaisedHand.objects.count() == 1


# The class's rules --------------------------------------------------------------------------------


def settings_url(cohort, lesson):
    return reverse("tutor:live_settings", args=[cohort.pk, lesson.pk])


def test_the_teacher_changes_when_a_student_counts_as_stuck(
    client, teacher, cohort, student, exercise, lesson
):
    fail_three_times(student, exercise)
    client.force_login(teacher)
    response = client.post(settings_url(cohort, lesson), {"stuck_failures": 4, "stuck_minutes": 10})
    assert response.status_code == 302 and response["Location"] == live(cohort, lesson)
    rules = LiveSettings.objects.get(cohort=cohort)
    assert (rules.stuck_failures, rules.stuck_minutes) == (4, 10)
    html = client.get(live(cohort, lesson)).text
    assert "⚠ Stuck" not in html
    assert "4 failed checks or submissions in a row" in html


def test_bad_rules_are_refused_with_the_form_again(client, teacher, cohort, lesson):
    client.force_login(teacher)
    for data in (
        {"stuck_failures": 0, "stuck_minutes": 5},
        {"stuck_failures": "x", "stuck_minutes": 5},
        {"stuck_failures": 3},
        {"stuck_failures": 3, "stuck_minutes": 100000},
    ):
        response = client.post(settings_url(cohort, lesson), data)
        assert response.status_code == 400, data
        assert 'class="errorlist' in response.text
    assert not LiveSettings.objects.exists()


def test_only_the_classs_teacher_changes_its_rules(client, cohort, student, lesson):
    data = {"stuck_failures": 4, "stuck_minutes": 10}
    client.force_login(student)
    assert client.post(settings_url(cohort, lesson), data).status_code == 403
    client.force_login(make_teacher())
    assert client.post(settings_url(cohort, lesson), data).status_code == 404
    assert not LiveSettings.objects.exists()


# The live view of an assignment ---------------------------------------------------------------


def test_an_assignments_live_view_shows_where_each_student_stands_on_it(client):
    lesson, items = practice_lesson()
    done, halfway, extended = make_user("dana"), make_user("hal"), make_user("ext")
    teacher = make_teacher()
    cohort = make_cohort(teacher, students=[done, halfway, extended])
    assignment = assign(cohort, lesson, due=NOW + timedelta(days=2))
    Extension.objects.create(
        assignment=assignment, student=extended, due_at=NOW + timedelta(days=5)
    )
    do_everything(done, items, NOW)
    do_ordering(halfway, items["ordering"], NOW)
    client.force_login(teacher)
    url = live(cohort, lesson) + f"?assignment={assignment.pk}"
    html = client.get(url).text
    assert "Live view · Assignment" in html and "Assigned (the whole lesson): due" in html
    row = {
        name: html[html.index(f">{name}</a>") :].split("</tr>")[0]
        for name in ("dana", "hal", "ext")
    }
    assert "On time</span>" in row["dana"] and "3 of 3 done" in row["dana"]
    assert "Not yet done</span>" in row["hal"] and "1 of 3 done" in row["hal"]
    assert "0 of 3 done" in row["ext"] and "(extension)" in row["ext"]
    # it polls itself, scoped; its forms keep the scope; it leads back to the assignment
    assert f'hx-get="{url}"' in html and f'href="{url}" class="refresh-link"' in html
    assert f'name="assignment" value="{assignment.pk}"' in html
    assert reverse("tutor:assignment_detail", args=[cohort.pk, assignment.pk]) in html
    # the assignment's page links to it; the lesson's own live view has no such column
    page = client.get(reverse("tutor:assignment_detail", args=[cohort.pk, assignment.pk]))
    assert url in page.text
    assert '<th scope="col">Assignment</th>' not in client.get(live(cohort, lesson)).text


def test_an_assignment_of_another_class_or_lesson_or_a_bad_one_is_not_found(
    client, teacher, cohort, lesson
):
    other_class = assign(make_cohort(teacher, students=[make_user()]), lesson)
    other_lesson = assign(cohort, make_lesson())
    client.force_login(teacher)
    for value in (other_class.pk, other_lesson.pk, "abc", "-1", "999999"):
        assert client.get(live(cohort, lesson) + f"?assignment={value}").status_code == 404
        response = client.post(clear_url(cohort, lesson), {"all": "on", "assignment": value})
        assert response.status_code == 404
    mine = assign(cohort, lesson)
    client.force_login(make_teacher())  # another teacher: the class is not found first
    assert client.get(live(cohort, lesson) + f"?assignment={mine.pk}").status_code == 404
    client.force_login(cohort.memberships.first().student)
    assert client.get(live(cohort, lesson) + f"?assignment={mine.pk}").status_code == 403


def test_clearing_hands_and_changing_rules_stay_on_the_assignments_live_view(
    client, teacher, cohort, student, lesson
):
    assignment = assign(cohort, lesson)
    scoped = live(cohort, lesson) + f"?assignment={assignment.pk}"
    actions.raise_hand(user=student, lesson=lesson)
    client.force_login(teacher)
    response = client.post(
        clear_url(cohort, lesson), {"student": student.pk, "assignment": assignment.pk}
    )
    assert response.status_code == 302 and response["Location"] == scoped
    actions.raise_hand(user=student, lesson=lesson)
    board = client.post(
        clear_url(cohort, lesson), {"student": student.pk, "assignment": assignment.pk}, **HTMX
    ).text
    assert f'hx-get="{scoped}"' in board and '<th scope="col">Assignment</th>' in board
    assert not RaisedHand.objects.exists()
    response = client.post(
        settings_url(cohort, lesson),
        {"stuck_failures": 4, "stuck_minutes": 9, "assignment": assignment.pk},
    )
    assert response.status_code == 302 and response["Location"] == scoped
    response = client.post(
        settings_url(cohort, lesson), {"stuck_failures": 0, "assignment": assignment.pk}
    )
    assert response.status_code == 400 and f'hx-get="{scoped}"' in response.text


def test_an_assignments_live_board_costs_the_same_queries_for_3_or_40_students(
    client, teacher, lesson, exercise, django_assert_num_queries
):
    boards = []
    for size in (3, 40):
        cohort = make_cohort(teacher, students=[make_user() for _ in range(size)])
        for membership in cohort.memberships.select_related("student"):
            fail_three_times(membership.student, exercise)
        boards.append(live(cohort, lesson) + f"?assignment={assign(cohort, lesson).pk}")
    client.force_login(teacher)
    client.get(boards[0], **HTMX)  # warm: session, user
    with django_assert_num_queries(11) as few:
        assert client.get(boards[0], **HTMX).text.count("Not yet done</span>") == 3
    with django_assert_num_queries(len(few.captured_queries)):
        assert client.get(boards[1], **HTMX).text.count("Not yet done</span>") == 40


def test_the_hands_list_of_items_costs_no_query_per_item(client, cohort, student, lesson):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(student)
    client.get(lesson.get_absolute_url())
    with CaptureQueriesContext(connection) as few:
        client.get(lesson.get_absolute_url())
    for _ in range(3):
        make_exercise(lesson)
    client.get(lesson.get_absolute_url())  # the new blocks' content, cached once
    with CaptureQueriesContext(connection) as more:
        page = client.get(lesson.get_absolute_url()).text
    assert len(more.captured_queries) == len(few.captured_queries)
    about = page.split('id="hand-about"', 1)[1].split("</select>", 1)[0]
    assert about.count('<option value="') == 1 + 4  # the whole lesson, and each exercise
