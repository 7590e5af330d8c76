"""A quiz, the teacher's side: setting one in the assignment form (its settings, and the
refusals when its items are not questions), and the scores on the assignment page, in the
class grid and its CSV; the student's score on My progress and the lesson page."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.assignment_world import practice_lesson
from tests.tutor.quiz_world import make_quiz, quiz_lesson, right_answers, wrong_choice
from tutor.assignments.models import Assignment
from tutor.quizzes import actions
from tutor.quizzes.models import QuizAttempt

pytestmark = pytest.mark.django_db


def minute(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


@pytest.fixture
def world(client):
    teacher = make_teacher()
    ann, bob = make_user("ann"), make_user("bob")
    cohort = make_cohort(teacher, students=[ann, bob])
    lesson, questions = quiz_lesson()
    client.force_login(teacher)
    return {"teacher": teacher, "ann": ann, "bob": bob, "cohort": cohort, "lesson": lesson, "questions": questions}


def form_data(world, **changes):
    now = timezone.now()
    return {
        "lesson": world["lesson"].pk,
        "opens_at": minute(now),
        "due_at": minute(now + timedelta(days=1)),
        "quiz": "on",
        "attempts_allowed": "2",
        "time_limit": "20",
        "shuffle_questions": "on",
        "feedback": "after-due",
    } | changes


def create(client, world, **changes):
    return client.post(reverse("tutor:assignment_create", args=[world["cohort"].pk]), form_data(world, **changes))


def test_the_form_offers_the_quiz_settings(client, world):
    html = client.get(reverse("tutor:assignment_create", args=[world["cohort"].pk])).content.decode()
    assert "Give its questions as a quiz" in html
    for name in ("attempts_allowed", "time_limit", "shuffle_questions", "feedback"):
        assert f'name="{name}"' in html
    assert "<legend>Quiz</legend>" in html


def test_a_teacher_gives_a_lessons_questions_as_a_quiz(client, world):
    response = create(client, world)
    assert response.status_code == 302
    quiz = Assignment.objects.get()
    assert quiz.quiz and quiz.attempts_allowed == 2 and quiz.time_limit == 20
    assert quiz.shuffle_questions and quiz.feedback == "after-due"
    page = client.get(response["Location"]).content.decode()
    assert "Given as a quiz: 2 attempts, 20 minutes each" in page


def test_a_quiz_of_a_lesson_without_questions_is_refused(client, world):
    lesson, _items = practice_lesson()
    response = create(client, world, lesson=lesson.pk)
    assert response.status_code == 400
    assert "has no questions to give as a quiz" in response.content.decode()
    assert not Assignment.objects.exists()


def test_a_quiz_with_an_item_that_is_no_question_is_refused(client, world):
    snippet = world["lesson"].blocks.get(kind="snippet")
    choice = world["questions"]["choice"]
    response = create(client, world, blocks=[snippet.pk, choice.pk])
    assert response.status_code == 400
    assert "A quiz holds questions only: untick" in response.content.decode()


def test_a_quiz_may_hold_a_fill_in_the_code_question(client, world):
    from tests.tutor.question_world import make_question

    in_code = make_question("code_blanks", world["lesson"], key="in-code", title="In code")
    choice = world["questions"]["choice"]
    response = create(client, world, blocks=[in_code.pk, choice.pk])
    assert response.status_code == 302
    quiz = Assignment.objects.get()
    assert quiz.quiz and set(quiz.blocks.values_list("pk", flat=True)) == {in_code.pk, choice.pk}


@pytest.mark.parametrize("changes, words", [
    ({"attempts_allowed": "0"}, "Allow at least one attempt."),
    ({"time_limit": "0"}, "A time limit is at least one minute."),
    ({"time_limit": "soon"}, "Give the minutes as a whole number."),
    ({"feedback": "never"}, "Choose when students see the feedback"),
])
def test_bad_quiz_settings_are_refused_with_the_reason(client, world, changes, words):
    response = create(client, world, **changes)
    assert response.status_code == 400 and words in response.content.decode()


def test_the_edit_form_is_filled_with_the_quiz_settings(client, world):
    quiz = make_quiz(world["cohort"], world["lesson"], attempts_allowed=3, time_limit=7, feedback="at-once")
    html = client.get(reverse("tutor:assignment_edit", args=[world["cohort"].pk, quiz.pk])).content.decode()
    assert 'name="attempts_allowed" id="id_attempts_allowed" value="3"' in html
    assert 'name="time_limit" id="id_time_limit" value="7"' in html
    assert 'id="feedback-at-once" value="at-once" checked' in html


def scored_world(world):
    quiz = make_quiz(world["cohort"], world["lesson"], attempts_allowed=2)
    attempt = actions.start_attempt(assignment=quiz, student=world["ann"])
    from django.http import QueryDict

    answers = right_answers(world["ann"], world["questions"])
    for block in world["questions"].values():
        data = QueryDict(mutable=True)
        for key, value in answers.items():
            if key.startswith(f"q{block.pk}-"):
                data.setlist(key[len(f"q{block.pk}-"):], value if isinstance(value, list) else [value])
        if block.kind != "checkboxes":
            actions.save_answer(attempt=attempt, block=block, data=data)
    actions.submit_attempt(attempt=attempt, now=attempt.started_at + timedelta(minutes=3, seconds=5))
    return quiz


def test_the_assignment_page_shows_attempts_best_score_and_time_taken(client, world):
    quiz = scored_world(world)
    html = client.get(reverse("tutor:assignment_detail", args=[world["cohort"].pk, quiz.pk])).content.decode()
    assert "<th scope=\"col\">Score</th>" in html
    assert "1 of 2" in html and "75%" in html and "3 min 5 s" in html
    assert "0 of 2" in html  # bob: no attempt


def test_the_class_grid_of_a_quiz_shows_the_scores(client, world):
    quiz = scored_world(world)
    html = client.get(reverse("tutor:class_detail", args=[world["cohort"].pk]) + f"?assignment={quiz.pk}").content.decode()
    assert "75%" in html and "3 min 5 s" in html


def test_the_csv_of_a_quiz_has_attempts_and_score(client, world):
    quiz = scored_world(world)
    response = client.get(reverse("tutor:class_csv", args=[world["cohort"].pk]) + f"?assignment={quiz.pk}")
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = {row["username"]: row for row in csv.DictReader(io.StringIO(text))}
    assert rows["ann"]["attempts"] == "1" and rows["ann"]["score (best attempt, %)"] == "75"
    assert rows["ann"]["status"] == "On time"
    assert rows["bob"]["attempts"] == "0" and rows["bob"]["score (best attempt, %)"] == ""


def test_the_student_sees_their_score_on_my_progress_and_the_lesson(client, world):
    quiz = scored_world(world)
    client.force_login(world["ann"])
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert "Quiz score 75%" in html and reverse("tutor:quiz_start", args=[quiz.pk]) in html
    lesson = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Your score: 75%" in lesson


def test_a_student_who_has_not_taken_it_is_invited_to(client, world):
    quiz = make_quiz(world["cohort"], world["lesson"])
    client.force_login(world["bob"])
    lesson = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Take the quiz" in lesson and reverse("tutor:quiz_start", args=[quiz.pk]) in lesson
    # Its questions are answered in the quiz: no count of them "done" on the lesson page.
    assert " done." not in lesson


def test_a_quiz_answered_wrong_scores_its_partial_credit(world):
    quiz = make_quiz(world["cohort"], world["lesson"])
    attempt = actions.start_attempt(assignment=quiz, student=world["bob"])
    from django.http import QueryDict

    choice = world["questions"]["choice"]
    data = QueryDict(mutable=True)
    data["option"] = wrong_choice(world["bob"], choice)[f"q{choice.pk}-option"]
    actions.save_answer(attempt=attempt, block=choice, data=data)
    boxes = world["questions"]["checkboxes"]
    data = QueryDict(mutable=True)
    from tutor.practice.questions.answers import option_token

    data.setlist("option", [option_token(world["bob"].pk, boxes.pk, "llama")])  # one of two right
    actions.save_answer(attempt=attempt, block=boxes, data=data)
    done = actions.submit_attempt(attempt=attempt)
    assert done.score == pytest.approx(0.5 / 4)
    assert QuizAttempt.objects.get().score == done.score


# Item analysis -----------------------------------------------------------------------


def test_the_corrected_point_biserial_is_the_items_correlation_with_the_rest():
    from tutor.quizzes.analysis import corrected_point_biserial

    assert corrected_point_biserial([1, 1, 0, 0], [3, 2, 1, 0]) == pytest.approx(0.8944, abs=1e-4)
    assert corrected_point_biserial([1, 1, 1], [3, 2, 1]) is None  # no spread: not given
    assert corrected_point_biserial([1, 0], [1, 0]) is None  # too few students


def test_the_assignment_page_shows_each_questions_difficulty_discrimination_and_option_shares(client, world):
    carl = make_user("carl")
    world["cohort"].memberships.create(student=carl)
    quiz = make_quiz(world["cohort"], world["lesson"])
    from django.http import QueryDict

    choice, number = world["questions"]["choice"], world["questions"]["number"]
    for student, right in ((world["ann"], True), (world["bob"], False), (carl, True)):
        attempt = actions.start_attempt(assignment=quiz, student=student)
        data = QueryDict(mutable=True)
        from tutor.practice.questions.answers import option_token

        data["option"] = option_token(student.pk, choice.pk, "llama" if right else "wrong-vllm")
        actions.save_answer(attempt=attempt, block=choice, data=data)
        data = QueryDict(mutable=True)
        data["number"] = "12.5" if student != carl else "3"
        actions.save_answer(attempt=attempt, block=number, data=data)
        actions.submit_attempt(attempt=attempt)
    html = client.get(reverse("tutor:assignment_detail", args=[world["cohort"].pk, quiz.pk])).content.decode()
    assert "Item analysis" in html and "corrected point-biserial" in html
    section = html[html.index('id="quiz-analysis"'):]
    assert "67%" in section  # each question: 2 of 3 right
    assert "llama.cpp <strong>(right)</strong>: 67%" in section and "vLLM: 33%" in section
    assert "-0.50" in section  # choice: right for ann and carl, the rest (number) for ann and bob


def test_the_item_analysis_formula_is_read_in_the_pages_language():
    from django.utils import translation

    from tutor.quizzes.analysis import FORMULA

    with translation.override("de"):
        assert str(FORMULA).startswith("Schwierigkeit: die mittlere Punktzahl")
    with translation.override("es"):
        assert str(FORMULA).startswith("Dificultad: la nota media")
    assert str(FORMULA).startswith("Difficulty: the mean score")
