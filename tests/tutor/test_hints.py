"""Hint ladders on the lesson page: the server shows the rungs a learner took and nothing
beyond, takes the next one on a POST (plain or htmx), refuses what may not be taken, and
records each rung for teachers."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from course.models import Status
from tests.factories import make_cohort, make_lesson, make_teacher, make_user
from tests.tutor.assignment_world import assign
from tests.tutor.hint_world import (
    CODE_HINTS,
    code_with_hints,
    ordering_with_hints,
    question_with_hints,
    reloaded,
)
from tests.tutor.question_world import option_tokens
from tutor.live.models import LessonActivity
from tutor.practice.hints.models import HintUse
from tutor.practice.questions.models import QuestionTries

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def signed_in(user=None) -> Client:
    client = Client()
    client.force_login(user or make_user())
    return client


def url(block) -> str:
    return reverse("tutor:hint_next", args=[block.pk])


def page(client, block) -> str:
    return client.get(block.lesson.get_absolute_url()).content.decode()


def take(client, block, rung, **extra):
    return client.post(url(block), {"rung": str(rung)}, **extra)


def test_a_ladder_shows_only_its_first_button_until_a_hint_is_asked_for():
    block = code_with_hints()
    html = page(signed_in(), block)
    assert "Show a hint (1 of 2)" in html
    assert "Start with a" not in html and "Halve with" not in html
    assert "return n // 2" not in html


def test_each_rung_shows_what_it_earned_and_nothing_beyond():
    user = make_user()
    client = signed_in(user)
    block = code_with_hints()
    response = take(client, block, 1)
    assert response.status_code == 302
    assert response["Location"].endswith(f"#exercise-{block.key}-hints")
    html = page(client, block)
    assert "Start with a <code>def</code>." in html
    assert "Halve with" not in html
    assert "Show a hint (2 of 2)" in html

    take(client, block, 2)
    html = page(client, block)
    assert "Halve with <code>//</code>." in html
    assert "def half(n):" not in html
    assert "Show a line of the solution (1 of 2)" in html

    take(client, block, 3)
    html = page(client, block)
    assert "def half(n):" in html and "return n // 2" not in html
    assert "Show a line of the solution (2 of 2)" in html

    take(client, block, 4)
    html = page(client, block)
    assert "return n // 2" in html
    assert "That is the whole solution." in html
    assert "Show a line" not in html
    assert list(HintUse.objects.filter(user=user, block=block).values_list("rung", flat=True)) == [1, 2, 3, 4]


def test_an_htmx_rung_swaps_the_region_alone_and_announces_the_new_rung():
    client = signed_in()
    block = code_with_hints()
    response = take(client, block, 1, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<div id="exercise-{block.key}-hints"')
    assert 'role="status"' in html and "data-new-rung" in html
    assert "Start with a" in html and "Halve with" not in html
    assert "<html" not in html


def test_an_ordering_ladder_places_one_line_at_a_time():
    client = signed_in()
    block = ordering_with_hints()
    for rung in (1, 2, 3):
        take(client, block, rung)
    html = page(client, block)
    assert "Print comes last." in html
    assert "Line <code>x = 1</code> goes 1st." in html
    assert "Line <code>y = x + 1</code> goes 2nd." in html
    assert "print(y)</code> goes" not in html
    assert "Show where a line goes (3 of 3)" in html


def test_a_questions_last_rung_shows_the_answer_and_finishes_it():
    user = make_user()
    client = signed_in(user)
    block = question_with_hints()
    html = page(client, block)
    assert "Which is written in C++?" not in html
    take(client, block, 1)
    html = page(client, block)
    assert "Which is written in C++?" in html
    assert "Show the answer (this finishes the question)" in html
    assert "The right answer:" not in html
    token = option_tokens(html)[0]
    response = take(client, block, 2, **HX)
    html = response.content.decode()
    assert "The right answer:" in html and "llama.cpp" in html
    assert 'hx-swap-oob="true"' in html and "Right answer" in html  # the question, marked
    assert QuestionTries.objects.get(user=user, block=block).finished
    answer = client.post(reverse("tutor:question_answer", args=[block.pk]), {"option": token}, **HX)
    assert answer.status_code == 409


def test_a_number_questions_answer_rung_gives_the_number_and_its_units():
    client = signed_in()
    block = question_with_hints("number", hints=["Twice the 8-bit size halves at 4 bits."])
    take(client, block, 1)
    html = take(client, block, 2, **HX).content.decode()
    assert "<strong>12.5</strong> GB" in html


def test_a_second_click_on_the_same_rung_takes_one_rung():
    user = make_user()
    client = signed_in(user)
    block = code_with_hints()
    assert take(client, block, 1, **HX).status_code == 200
    again = take(client, block, 1, **HX)
    assert again.status_code == 200
    assert "Show a hint (2 of 2)" in again.content.decode()
    assert HintUse.objects.filter(user=user, block=block).count() == 1


def test_the_live_view_reads_how_many_hints_were_used():
    user = make_user()
    client = signed_in(user)
    block = code_with_hints()
    make_cohort(students=[user])
    take(client, block, 1)
    take(client, block, 2)
    assert LessonActivity.objects.get(user=user).what == "used 2 hints"
    take(client, block, 3)
    assert LessonActivity.objects.get(user=user).what == "used 2 hints and 1 piece of the solution"


# Refusals -----------------------------------------------------------------------------


def test_a_reader_not_logged_in_is_sent_to_log_in_and_takes_nothing():
    block = code_with_hints()
    response = Client().post(url(block), {"rung": "1"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    response = Client().post(url(block), {"rung": "1"}, **HX)
    assert "/login/" in response["HX-Redirect"]
    assert not HintUse.objects.exists()
    assert "Log in to get hints" in page(Client(), block)


def test_a_lesson_the_learner_may_not_see_has_no_ladder_to_climb():
    block = code_with_hints(make_lesson(status=Status.DRAFT))
    assert take(signed_in(), block, 1).status_code == 404
    assert not HintUse.objects.exists()


def test_an_item_without_hints_and_a_block_of_another_kind_have_no_ladder():
    client = signed_in()
    assert take(client, code_with_hints(hints=[], key="bare"), 1).status_code == 404
    assert take(client, question_with_hints(hints=[]), 1).status_code == 404
    from tests.factories import make_snippet

    assert take(client, make_snippet().block, 1).status_code == 404
    assert not HintUse.objects.exists()


def test_past_the_last_rung_and_skipping_ahead_are_refused():
    client = signed_in()
    block = code_with_hints()
    skipped = take(client, block, 3, **HX)
    assert skipped.status_code == 409
    assert "one at a time" in skipped.content.decode()
    for rung in (1, 2, 3, 4):
        take(client, block, rung)
    past = take(client, block, 5, **HX)
    assert past.status_code == 409
    assert "every hint and the whole solution" in past.content.decode()
    assert HintUse.objects.count() == 4


@pytest.mark.parametrize("rung", ["", "one", "-1", "1.5", "9" * 40])
def test_a_rung_that_is_not_a_number_is_refused(rung):
    client = signed_in()
    block = code_with_hints()
    response = client.post(url(block), {"rung": rung}, **HX)
    assert response.status_code == 400
    assert not HintUse.objects.exists()


def test_a_plain_refusal_comes_back_to_the_ladder_with_the_reason():
    client = signed_in()
    block = code_with_hints()
    response = take(client, block, 2, follow=True)
    assert "one at a time" in response.content.decode()


def test_a_get_is_not_a_rung():
    assert signed_in().get(url(code_with_hints())).status_code == 405


def test_a_closed_assignment_takes_no_more_hints():
    student = make_user()
    block = code_with_hints()
    assign(make_cohort(students=[student]), block.lesson, closed_at=timezone.now())
    response = take(signed_in(student), block, 1, **HX)
    assert response.status_code == 403
    assert "Closed by your teacher" in response.content.decode()
    assert not HintUse.objects.exists()
    assert "Show a hint" not in page(signed_in(student), block)


def test_an_open_assignment_offers_the_next_rung():
    student = make_user()
    block = code_with_hints()
    assign(make_cohort(students=[student]), block.lesson)
    assert "Show a hint (1 of 2)" in page(signed_in(student), block)


def test_a_closed_book_student_gets_no_hints_outside_the_assignment():
    student = make_user()
    exam = make_lesson(title="The exam")
    now = timezone.now()
    assign(
        make_cohort(students=[student]), exam, closed_book=True,
        opens=now - timedelta(minutes=5), due=now + timedelta(hours=1),
    )
    client = Client()
    client.post(reverse("login"), {"username": student.username, "password": "pw"})
    client.force_login(student)
    inside = code_with_hints(exam, key="inside")
    outside = code_with_hints(key="outside")
    assert take(client, outside, 1).status_code == 403
    assert take(client, inside, 1).status_code == 302
    assert list(HintUse.objects.values_list("block", flat=True)) == [inside.pk]


def test_a_finished_question_takes_no_more_rungs():
    user = make_user()
    block = question_with_hints(hints=["One.", "Two."])
    client = signed_in(user)
    take(client, block, 1)
    QuestionTries.objects.filter(user=user, block=block).update(tries=2, finished_at=timezone.now())
    response = take(client, block, 2, **HX)
    assert response.status_code == 409
    assert "Show a hint" not in page(client, block)


# What an assignment says a hint costs ---------------------------------------------------


def test_the_ladder_says_what_a_hint_costs_in_the_students_assignment():
    student = make_user()
    block = code_with_hints()
    assign(make_cohort(students=[student], name="Monday group"), block.lesson, hint_cost=10)
    html = page(signed_in(student), block)
    assert "In the assignment for “Monday group”, each hint or piece of the solution costs 10% of this item's score." in html
    assert "costs 10%" not in page(signed_in(), block)  # another learner's lesson page


def test_content_edited_to_fewer_hints_shows_what_the_ladder_now_has():
    user = make_user()
    client = signed_in(user)
    block = code_with_hints()
    for rung in (1, 2):
        take(client, block, rung)
    type(block).objects.filter(pk=block.pk).update(values={"hints": [CODE_HINTS[0]]})
    block = reloaded(block)
    html = page(client, block)
    assert "Start with a" in html
    assert "def half(n):" in html  # rung 2 is now the first piece of the solution
    assert "return n // 2" not in html


# What teachers see ----------------------------------------------------------------------


def test_the_item_analysis_says_who_used_hints_and_how_far_up_they_went():
    ada, bob, cy = make_user("ada"), make_user("bob"), make_user("cy")
    teacher = make_teacher()
    cohort = make_cohort(teacher, students=[ada, bob, cy])
    block = code_with_hints()
    ordering_with_hints(block.lesson)
    for rung in (1, 2, 3):
        take(signed_in(ada), block, rung)
    take(signed_in(bob), block, 1)
    take(signed_in(make_user("outsider")), block, 1)
    response = signed_in(teacher).get(reverse("tutor:class_lesson", args=[cohort.pk, block.lesson.pk]))
    html = response.content.decode()
    assert "Hints used" in html
    row = html[html.index(f"#exercise-{block.key}"):]
    row = row[: row.index("</tr>")]
    assert "2 of 3 (67%)" in row  # ada and bob; not the outsider
    assert "2.0 of 4 steps (2 hints, then the solution)" in row
    assert row.rstrip().endswith("<td>1</td>")  # ada saw a piece of the solution
    other = html[html.index("#exercise-order-me"):]
    assert "0 of 3 (0%)" in other[: other.index("</tr>")]


def test_a_lesson_without_hints_has_no_hints_section():
    teacher = make_teacher()
    cohort = make_cohort(teacher, students=[make_user()])
    block = code_with_hints(hints=[])
    response = signed_in(teacher).get(reverse("tutor:class_lesson", args=[cohort.pk, block.lesson.pk]))
    assert "Hints used" not in response.content.decode()


def test_the_students_timeline_lists_each_rung_they_took():
    ada, teacher = make_user("ada"), make_teacher()
    cohort = make_cohort(teacher, students=[ada])
    block = code_with_hints()
    for rung in (1, 2, 3):
        take(signed_in(ada), block, rung)
    html = signed_in(teacher).get(reverse("tutor:class_student", args=[cohort.pk, ada.pk])).content.decode()
    assert f"Took hint 1 of 2 on “{block.key}”" in html
    assert f"Took hint 2 of 2 on “{block.key}”" in html
    assert f"Saw piece 1 of the solution of “{block.key}”" in html


def test_another_teachers_pages_show_nothing_of_the_class():
    ada = make_user("ada")
    cohort = make_cohort(make_teacher(), students=[ada])
    block = code_with_hints()
    other = signed_in(make_teacher())
    assert other.get(reverse("tutor:class_lesson", args=[cohort.pk, block.lesson.pk])).status_code == 404
    assert other.get(reverse("tutor:class_student", args=[cohort.pk, ada.pk])).status_code == 404


def test_my_progress_says_how_many_hints_each_lesson_took():
    user = make_user()
    client = signed_in(user)
    block = code_with_hints()
    for rung in (1, 2, 3):
        take(client, block, rung)
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert "3 hints used" in html


def test_a_question_a_running_quiz_asks_has_no_ladder_until_the_quiz_is_over():
    """The last rung is the answer: while a quiz of the learner's class asks the question,
    its ladder is neither on the lesson page nor climbable."""
    from tests.tutor.quiz_world import make_quiz

    user = make_user()
    client = signed_in(user)
    block = question_with_hints()
    cohort = make_cohort(make_teacher(), students=[user])
    quiz = make_quiz(cohort, block.lesson)
    html = page(client, block)
    assert "Part of your quiz" in html and "Show a hint" not in html
    for extra in ({}, HX):
        response = take(client, block, 1, **extra)
        assert response.status_code in (302, 403)
        if extra:
            assert response.status_code == 403 and "its hints wait" in response.content.decode()
    assert not HintUse.objects.filter(user=user).exists()
    quiz.due_at = timezone.now() - timedelta(minutes=1)  # over (closing it would close its items)
    quiz.save()
    assert "Show a hint" in page(client, block)
    assert take(client, block, 1).status_code == 302
    assert HintUse.objects.filter(user=user, block=block).count() == 1
