"""A quiz drawn from a course's questions by topic: the topics a course offers, the pool an
assignment keeps, each attempt's draw (stable, never more than asked), and everything after
it with questions of several lessons (score, standings, the CSV, item analysis, the lesson
pages holding the pool's questions, closing); the teacher's form and its refusals."""

import csv
import io
from datetime import timedelta

import pytest
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_cohort, make_course, make_lesson, make_teacher, make_user
from tests.tutor.question_world import make_question
from tutor.assignments import actions as assignment_actions
from tutor.assignments.closing import closed_to, quiz_holding
from tutor.assignments.models import Assignment
from tutor.assignments.status import standings
from tutor.practice.questions.answers import option_token
from tutor.practice.questions.topics import course_topics, questions_on
from tutor.quizzes import actions
from tutor.quizzes.analysis import quiz_analysis
from tutor.quizzes.models import QuizAttempt

pytestmark = pytest.mark.django_db


def minute(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


@pytest.fixture
def world(client):
    """A course of two lessons: three questions on memory in each (one of them in the
    second lesson also on speed), one on speed only, and a fill-in-the-code question on
    code (a topic of its own; drawn like any other question); another course with a memory question of its own."""
    teacher = make_teacher()
    students = [make_user(f"student-{n}") for n in range(6)]
    cohort = make_cohort(teacher, students=students)
    course = make_course()
    first, second = make_lesson(course, title="First"), make_lesson(course, title="Second")
    memory = [make_question("choice", first, key=f"memory-{n}", title=f"Memory {n}", topics=["memory"]) for n in range(3)]
    memory += [make_question("number", second, key="memory-3", title="Memory 3", topics=["memory", "speed"])]
    memory += [make_question("blanks", second, key=f"memory-{n}", title=f"Memory {n}", topics=["memory"]) for n in (4, 5)]
    speed = make_question("checkboxes", second, key="speed", title="Speed only", topics=["speed"])
    code = make_question("code_blanks", second, key="in-code", title="In code", topics=["code"])
    make_question("choice", make_lesson(title="Elsewhere"), key="elsewhere", topics=["memory"])
    client.force_login(teacher)
    return {"teacher": teacher, "students": students, "cohort": cohort, "course": course, "first": first,
            "second": second, "memory": memory, "speed": speed, "code": code}


def drawn_quiz(world, count=2, topics=("memory",), **settings):
    now = timezone.now()
    return assignment_actions.create_assignment(
        cohort=world["cohort"], lesson=world["first"], blocks=[], opens_at=now - timedelta(hours=1),
        due_at=now + timedelta(days=1), quiz=True, draw_count=count, draw_topics=list(topics), **settings,
    )


# The course's topics and the pool -------------------------------------------------------


def test_a_course_offers_its_topics_with_how_many_quiz_questions_each_has(world):
    assert course_topics(world["course"]) == [("code", 1), ("memory", 6), ("speed", 2)]


def test_the_pool_is_the_courses_quiz_questions_on_any_topic_from_every_lesson(world):
    pool = questions_on(world["course"], ["speed", "memory"])
    assert pool == [*world["memory"], world["speed"]]
    assert questions_on(world["course"], ["code"]) == [world["code"]]


def test_setting_a_drawn_quiz_keeps_its_pool_and_lists_it_on_the_lesson_chosen(world):
    quiz = drawn_quiz(world, count=2, topics=["speed"])
    assert quiz.lesson == world["first"] and quiz.is_drawn and not quiz.whole_lesson
    assert set(quiz.blocks.all()) == {world["memory"][3], world["speed"]} and quiz.draw_topics == ["speed"]


def test_drawing_more_than_the_pool_offers_is_refused(world):
    with pytest.raises(assignment_actions.AssignmentRefused, match="offer 2 questions: draw at most that many"):
        drawn_quiz(world, count=3, topics=["speed"])


def test_a_drawn_quiz_without_topics_is_refused(world):
    with pytest.raises(assignment_actions.AssignmentRefused, match="at least one topic"):
        drawn_quiz(world, topics=[])


# Each attempt's draw ------------------------------------------------------------------


def test_each_attempt_draws_its_questions_from_the_pool_once_and_keeps_them(world):
    quiz = drawn_quiz(world, count=2)
    student = world["students"][0]
    attempt = actions.start_attempt(assignment=quiz, student=student)
    assert len(attempt.order) == 2 and set(attempt.order) <= {block.pk for block in world["memory"]}
    # A reload or a second tab finds the same attempt, with the same questions in the same order.
    again = actions.start_attempt(assignment=quiz, student=student)
    assert again.pk == attempt.pk and again.order == attempt.order


def test_students_draw_questions_of_their_own(world):
    quiz = drawn_quiz(world, count=2)
    draws = {tuple(sorted(actions.start_attempt(assignment=quiz, student=s).order)) for s in world["students"]}
    assert len(draws) > 1


def test_a_second_attempt_draws_again_as_many(world):
    quiz = drawn_quiz(world, count=3, attempts_allowed=2)
    student = world["students"][0]
    first = actions.start_attempt(assignment=quiz, student=student)
    actions.submit_attempt(attempt=first)
    second = actions.start_attempt(assignment=quiz, student=student)
    assert second.number == 2 and len(second.order) == 3
    assert set(second.order) <= {block.pk for block in world["memory"]}
    # Each draw is seeded by the attempt: the order is the one the attempt would always get.
    assert second.order == actions.question_order(
        [b.pk for b in actions.questions_of(quiz)], assignment=quiz, student_id=student.pk, number=2
    )


def test_an_attempt_never_draws_more_than_asked_nor_more_than_the_pool_has_left(world):
    quiz = drawn_quiz(world, count=4)
    pool = [b.pk for b in actions.questions_of(quiz)]
    for number in range(1, 30):
        order = actions.question_order(pool, assignment=quiz, student_id=1, number=number)
        assert len(order) == 4 and len(set(order)) == 4 and set(order) <= set(pool)
    quiz.blocks.set(world["memory"][:3])  # questions removed from the content since it was set
    attempt = actions.start_attempt(assignment=quiz, student=world["students"][0])
    assert sorted(attempt.order) == sorted(b.pk for b in world["memory"][:3])


def test_without_shuffling_the_drawn_questions_come_in_the_courses_order(world):
    quiz = drawn_quiz(world, count=4, shuffle_questions=False)
    attempt = actions.start_attempt(assignment=quiz, student=world["students"][0])
    course_order = [b.pk for b in world["memory"]]
    assert attempt.order == sorted(attempt.order, key=course_order.index)


# After the draw: score, standings, CSV, item analysis, the lesson pages, closing ------------


def answer_right(attempt, student):
    """Answer the attempt's choice questions right, the others not at all."""
    for block in actions.questions_of(attempt.assignment):
        if block.pk in attempt.order and block.kind == "choice":
            data = QueryDict(mutable=True)
            data["option"] = option_token(student.pk, block.pk, "llama")
            actions.save_answer(attempt=attempt, block=block, data=data)


def test_the_score_is_over_the_questions_drawn_and_the_standing_counts_them(world):
    quiz = drawn_quiz(world, count=2)
    student = world["students"][0]
    attempt = actions.start_attempt(assignment=quiz, student=student)
    answer_right(attempt, student)
    attempt = actions.submit_attempt(attempt=attempt)
    choices = [pk for pk in attempt.order if pk in {b.pk for b in world["memory"][:3]}]
    assert attempt.score == pytest.approx(len(choices) / 2)
    standing = standings([quiz], [student.pk])[(quiz.pk, student.pk)]
    assert standing.total == 2 and standing.done == 2 and standing.score == attempt.score


def test_item_analysis_counts_each_question_over_the_attempts_that_drew_it(world):
    quiz = drawn_quiz(world, count=2)
    drew: dict[int, int] = {}
    for student in world["students"]:
        attempt = actions.start_attempt(assignment=quiz, student=student)
        answer_right(attempt, student)
        actions.submit_attempt(attempt=attempt)
        for pk in attempt.order:
            drew[pk] = drew.get(pk, 0) + 1
    found = {row.block.pk: row for row in quiz_analysis(quiz, [s.pk for s in world["students"]])}
    assert list(found) == [b.pk for b in world["memory"]]
    for block in world["memory"]:
        row = found[block.pk]
        assert row.students == drew.get(block.pk, 0)
        if row.students:  # the choices are answered right by all who drew them, the rest by none
            assert row.difficulty == (1.0 if block.kind == "choice" else 0.0)
            if block.kind == "choice":
                assert dict((text, share) for text, _right, share in row.options)["llama.cpp"] == 100


def test_the_csv_says_how_many_questions_are_drawn_on_which_topics(client, world):
    quiz = drawn_quiz(world, count=2)
    url = reverse("tutor:class_csv", args=[world["cohort"].pk]) + f"?assignment={quiz.pk}"
    text = b"".join(client.get(url).streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 6
    assert all(row["items"] == "2 drawn on memory" and row["items done"] == "0 of 2" for row in rows)


def test_while_it_runs_the_pools_questions_are_held_on_their_own_lesson_pages(world):
    quiz = drawn_quiz(world, count=2, topics=["speed"])
    student = world["students"][0]
    held = quiz_holding(student, list(world["second"].blocks.all()))
    assert set(held) == {world["memory"][3].pk, world["speed"].pk}
    assert all(assignment.pk == quiz.pk for assignment in held.values())
    assert quiz_holding(student, list(world["first"].blocks.all())) == {}


def test_the_lesson_page_of_a_pool_question_sends_it_to_the_quiz(client, world):
    quiz = drawn_quiz(world, count=2, topics=["speed"])
    client.force_login(world["students"][0])
    html = client.get(world["second"].get_absolute_url()).content.decode()
    assert reverse("tutor:quiz_start", args=[quiz.pk]) in html


def test_closing_a_drawn_quiz_closes_its_pool_and_nothing_else(world):
    quiz = drawn_quiz(world, count=2, topics=["speed"])
    assignment_actions.set_closed(assignment=quiz, closed=True)
    student = world["students"][0]
    assert closed_to(student, world["speed"]) is not None
    assert closed_to(student, world["memory"][0]) is None


def test_the_start_page_says_how_many_questions_an_attempt_draws(client, world):
    quiz = drawn_quiz(world, count=3)
    client.force_login(world["students"][0])
    html = client.get(reverse("tutor:quiz_start", args=[quiz.pk])).content.decode()
    assert "<dt>Questions</dt><dd>3</dd>" in html


# The teacher's form -------------------------------------------------------------------


def form_data(world, **changes):
    now = timezone.now()
    return {
        "lesson": world["first"].pk,
        "opens_at": minute(now),
        "due_at": minute(now + timedelta(days=1)),
        "quiz": "on",
        "attempts_allowed": "1",
        "feedback": "after-submitting",
        "draw_count": "5",
        "draw_topics": ["memory"],
    } | changes


def create(client, world, **changes):
    return client.post(reverse("tutor:assignment_create", args=[world["cohort"].pk]), form_data(world, **changes))


def test_the_form_offers_the_courses_topics_with_their_questions(client, world):
    html = client.get(reverse("tutor:assignment_create", args=[world["cohort"].pk]), {"lesson": world["first"].pk})
    text = html.content.decode()
    assert 'name="draw_count"' in text
    assert 'value="memory"> memory <span class="muted">(6 questions)</span>' in text
    assert 'value="speed"> speed <span class="muted">(2 questions)</span>' in text
    assert 'value="code"> code <span class="muted">(1 question)</span>' in text


def test_choosing_a_lesson_with_htmx_swaps_in_its_courses_topics(client, world):
    other = make_lesson(title="No topics")
    make_question("choice", other, key="plain")
    url = reverse("tutor:assignment_create", args=[world["cohort"].pk])
    response = client.get(url, {"lesson": other.pk}, HTTP_HX_REQUEST="true")
    text = response.content.decode()
    assert text.lstrip().startswith('<fieldset id="assignment-items"')
    assert "have no topics" in text and 'value="memory"' not in text


def test_a_teacher_sets_a_quiz_drawn_by_topic(client, world):
    response = create(client, world, draw_topics=["memory", "speed"])
    assert response.status_code == 302
    quiz = Assignment.objects.get()
    assert quiz.draw_count == 5 and quiz.draw_topics == ["memory", "speed"] and quiz.lesson == world["first"]
    assert quiz.blocks.count() == 7
    page = client.get(response["Location"]).content.decode()
    assert "Each attempt draws 5 questions at random from the course’s questions on memory, speed" in page


def test_the_edit_form_is_filled_with_the_draw_and_saving_it_unchanged_changes_nothing(client, world):
    quiz = drawn_quiz(world, count=4, topics=["memory"])
    url = reverse("tutor:assignment_edit", args=[world["cohort"].pk, quiz.pk])
    html = client.get(url).content.decode()
    assert 'name="draw_count" id="id_draw_count" value="4"' in html
    assert 'value="memory" checked' in html and 'value="speed" checked' not in html
    exercises = html.split('id="assignment-items"')[1].split('class="assignment-draw"')[0]
    assert 'name="blocks"' in exercises and " checked" not in exercises  # the pool is not ticked as exercises
    response = client.post(url, form_data(world, draw_count="4", opens_at=minute(quiz.opens_at), due_at=minute(quiz.due_at)))
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert quiz.draw_count == 4 and quiz.draw_topics == ["memory"] and quiz.blocks.count() == 6


def test_changing_a_drawn_quiz_back_to_the_lessons_questions_forgets_the_pool(client, world):
    quiz = drawn_quiz(world, count=2)
    url = reverse("tutor:assignment_edit", args=[world["cohort"].pk, quiz.pk])
    response = client.post(url, form_data(world, draw_count="", draw_topics=[]))
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert not quiz.is_drawn and quiz.whole_lesson and quiz.draw_topics == [] and not quiz.blocks.exists()


@pytest.mark.parametrize("changes, field, words", [
    ({"draw_count": "0"}, "draw_count", "Draw at least one question."),
    ({"draw_count": "many"}, "draw_count", "Give how many questions to draw as a whole number."),
    ({"draw_count": "7"}, "draw_count", "The topics ticked offer 6 questions: draw at most that many"),
    ({"draw_count": "3", "draw_topics": ["speed"]}, "draw_count", "The topics ticked offer 2 questions"),
    ({"draw_topics": []}, "draw_topics", "Tick at least one topic to draw the questions from."),
    ({"draw_count": ""}, "draw_count", "Say how many questions to draw from the topics ticked."),
    ({"quiz": ""}, "draw_count", "Drawing questions is for a quiz"),
    ({"draw_topics": ["nothing"]}, "draw_topics", "Choose topics of the lesson&#x27;s course, from the list."),
])
def test_a_bad_draw_is_refused_with_the_reason(client, world, changes, field, words):
    response = create(client, world, **changes)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Assignment.objects.exists()


def test_a_draw_with_exercises_ticked_is_refused(client, world):
    response = create(client, world, blocks=[world["memory"][0].pk])
    assert response.status_code == 400
    assert "A drawn quiz draws from its topics: untick the exercises." in response.content.decode()


def test_another_teacher_cannot_set_a_drawn_quiz_for_the_class(client, world):
    client.force_login(make_teacher("other"))
    assert create(client, world).status_code == 404
    client.force_login(world["students"][0])
    assert create(client, world).status_code == 403
    assert not Assignment.objects.exists()


def test_a_closed_book_drawn_quiz_takes_answers_on_questions_of_other_lessons(client, world):
    quiz = drawn_quiz(world, count=2, topics=["speed"], closed_book=True)
    student = world["students"][0]
    client.force_login(student)
    assert client.post(reverse("tutor:quiz_begin", args=[quiz.pk])).status_code == 302
    attempt = QuizAttempt.objects.get()
    assert client.get(reverse("tutor:quiz_attempt", args=[attempt.pk])).status_code == 200
    speed = world["speed"]  # of the second lesson; the quiz is listed on the first
    boxes = [option_token(student.pk, speed.pk, key) for key in ("llama", "ollama")]
    response = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, speed.pk]),
                           {f"q{speed.pk}-option": boxes}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Saved at" in response.content.decode()
    # The pool's questions are the quiz's: their lesson page is not open during it.
    assert client.get(world["second"].get_absolute_url()).status_code == 403


def test_the_list_of_assignments_says_a_quiz_is_drawn_by_topic(client, world):
    drawn_quiz(world, count=3)
    html = client.get(reverse("tutor:assignment_list", args=[world["cohort"].pk])).content.decode()
    assert "(a quiz of 3 questions drawn by topic)" in html and "(some exercises)" not in html


def test_the_sample_course_offers_five_questions_on_memory_from_several_lessons(sample_content):
    from course.models import Course

    course = Course.objects.get(slug="local-models")
    topics = dict(course_topics(course))
    assert topics["memory"] >= 5 and {"speed", "quantization", "tokens", "sampling"} <= set(topics)
    pool = questions_on(course, ["memory"])
    assert len({block.lesson_id for block in pool}) >= 3


def test_the_live_view_says_what_a_drawn_quiz_sets(client, world):
    quiz = drawn_quiz(world, count=3)
    url = reverse("tutor:live_view", args=[world["cohort"].pk, world["first"].pk])
    html = client.get(f"{url}?assignment={quiz.pk}").content.decode()
    assert "Assigned (a quiz of 3 questions drawn by topic)" in html
    assert "some of its exercises" not in html
