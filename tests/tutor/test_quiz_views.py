"""A quiz given as an assignment, the student's pages: the start page, an attempt (all its
questions in one form), saving an answer (htmx and the plain form), checking one (feedback
at once), submitting and the results; every refusal; and what the page may tell when."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.question_world import option_tokens
from tests.tutor.quiz_world import KINDS, make_quiz, quiz_lesson, right_answers, wrong_choice
from tutor.assignments import actions as assignment_actions
from tutor.assignments.models import Assignment
from tutor.practice.questions.answers import option_token
from tutor.practice.questions.models import QuestionAnswer
from tutor.quizzes import actions
from tutor.quizzes.models import QuizAttempt

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SECRETS = ["wrong-vllm", "Built for CPUs", "It needs a GPU", "12.5", "fp16", "That is at 16 bits",
           "is-right", "Right answer"]


@pytest.fixture
def world(client):
    student = make_user()
    teacher = make_teacher()
    cohort = make_cohort(teacher, students=[student])
    lesson, questions = quiz_lesson()
    client.force_login(student)
    return {"student": student, "teacher": teacher, "cohort": cohort, "lesson": lesson, "questions": questions}


def quiz_of(world, **settings):
    return make_quiz(world["cohort"], world["lesson"], **settings)


def start(client, quiz):
    return client.post(reverse("tutor:quiz_begin", args=[quiz.pk]))


def attempt_page(client, attempt) -> str:
    return client.get(reverse("tutor:quiz_attempt", args=[attempt.pk])).content.decode()


@pytest.fixture
def clock(monkeypatch):
    """The server's clock, moved by the test (timezone.now everywhere)."""

    class Clock:
        now = timezone.now()

        def move(self, **delta):
            self.now += timedelta(**delta)

    moved = Clock()
    monkeypatch.setattr(timezone, "now", lambda: moved.now)
    return moved


# The start page --------------------------------------------------------------------------


def test_the_start_page_says_how_many_questions_attempts_time_and_due(client, world):
    quiz = quiz_of(world, attempts_allowed=2, time_limit=15)
    html = client.get(reverse("tutor:quiz_start", args=[quiz.pk])).content.decode()
    assert "<dd>4</dd>" in html  # the four questions; the snippet is not part of it
    assert "2 of 2" in html and "15 minutes" in html
    assert 'action="{}"'.format(reverse("tutor:quiz_begin", args=[quiz.pk])) in html


def test_someone_not_in_the_class_finds_no_quiz(client, world):
    quiz = make_quiz(lesson=world["lesson"])  # another class's
    assert client.get(reverse("tutor:quiz_start", args=[quiz.pk])).status_code == 404
    assert start(client, quiz).status_code == 404
    assert not QuizAttempt.objects.exists()


def test_an_assignment_that_is_no_quiz_has_no_quiz_page(client, world):
    assignment = quiz_of(world, quiz=False)
    assert client.get(reverse("tutor:quiz_start", args=[assignment.pk])).status_code == 404


def test_a_visitor_who_is_not_signed_in_is_sent_to_log_in(client, world):
    quiz = quiz_of(world)
    client.logout()
    response = client.get(reverse("tutor:quiz_start", args=[quiz.pk]))
    assert response.status_code == 302 and "login" in response["Location"]


def test_before_opening_the_quiz_cannot_be_started(client, world):
    quiz = quiz_of(world, opens=timezone.now() + timedelta(hours=1), due=timezone.now() + timedelta(days=1))
    html = client.get(reverse("tutor:quiz_start", args=[quiz.pk])).content.decode()
    assert "This quiz opens" in html and "Start the quiz" not in html
    response = start(client, quiz)
    assert response.status_code == 403 and "not open yet" in response.content.decode()
    assert not QuizAttempt.objects.exists()


def test_after_closing_the_quiz_cannot_be_started(client, world):
    quiz = quiz_of(world, closed_at=timezone.now())
    response = start(client, quiz)
    assert response.status_code == 403 and "Closed by your teacher" in response.content.decode()


def test_starting_goes_to_the_attempt_and_starting_again_carries_on_with_it(client, world):
    quiz = quiz_of(world, attempts_allowed=1)
    first = start(client, quiz)
    attempt = QuizAttempt.objects.get()
    assert first.status_code == 302 and first["Location"] == reverse("tutor:quiz_attempt", args=[attempt.pk])
    assert start(client, quiz)["Location"] == first["Location"]
    assert QuizAttempt.objects.count() == 1


def test_every_attempt_used_is_refused(client, world):
    quiz = quiz_of(world, attempts_allowed=1)
    start(client, quiz)
    actions.submit_attempt(attempt=QuizAttempt.objects.get())
    response = start(client, quiz)
    assert response.status_code == 403 and "used every attempt" in response.content.decode()
    assert QuizAttempt.objects.count() == 1


# The attempt -----------------------------------------------------------------------------


def test_the_attempt_shows_every_question_in_one_form_with_fieldsets_and_no_answer(client, world):
    quiz = quiz_of(world, time_limit=10)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    html = attempt_page(client, attempt)
    assert html.count("<fieldset") == 4 and html.count("<legend>") == 4
    assert html.count('id="quiz-form"') == 1
    assert "Ends at" in html and 'data-ends-at="' in html
    for secret in SECRETS:
        assert secret not in html, secret
    # The options in the learner's own order, as on the lesson page.
    choice = world["questions"]["choice"]
    tokens = [t for t in option_tokens(html.replace(f'name="q{choice.pk}-option"', 'name="option"'))]
    assert set(tokens) == {option_token(world["student"].pk, choice.pk, o["key"]) for o in choice.items}


def test_the_questions_order_is_the_attempts_own_and_kept(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    html = attempt_page(client, attempt)
    places = [html.index(f'id="quiz-q{pk}"') for pk in attempt.order]
    assert places == sorted(places)
    assert attempt_page(client, attempt) == html or sorted(attempt.order) == sorted(q.pk for q in world["questions"].values())


def test_another_students_attempt_is_not_found(client, world):
    quiz = quiz_of(world)
    other = make_user()
    world["cohort"].memberships.create(student=other)
    attempt = actions.start_attempt(assignment=quiz, student=other)
    assert client.get(reverse("tutor:quiz_attempt", args=[attempt.pk])).status_code == 404
    answer = reverse("tutor:quiz_answer", args=[attempt.pk, attempt.order[0]])
    assert client.post(answer, {}, **HTMX).status_code == 404
    assert client.post(reverse("tutor:quiz_submit", args=[attempt.pk])).status_code == 404
    assert not QuizAttempt.objects.get(pk=attempt.pk).is_submitted


def test_an_answer_saved_with_htmx_says_saved_and_tells_nothing(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    choice = world["questions"]["choice"]
    url = reverse("tutor:quiz_answer", args=[attempt.pk, choice.pk])
    response = client.post(url, right_answers(world["student"], world["questions"]), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and f'id="quiz-q{choice.pk}-saved"' in html and "Saved at" in html
    assert "Right" not in html
    (saved,) = attempt.answers.all()
    assert saved.block == choice and saved.score == 1.0
    assert not QuestionAnswer.objects.exists()  # recorded when submitted


def test_saving_again_replaces_the_answer(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    choice = world["questions"]["choice"]
    url = reverse("tutor:quiz_answer", args=[attempt.pk, choice.pk])
    client.post(url, right_answers(world["student"], world["questions"]), **HTMX)
    client.post(url, wrong_choice(world["student"], choice), **HTMX)
    (saved,) = attempt.answers.all()
    assert saved.score == 0 and saved.answer == ["wrong-vllm"]


def test_a_question_not_in_the_attempt_is_refused(client, world):
    quiz = quiz_of(world, blocks=[world["questions"]["choice"]])
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    outside = world["questions"]["number"]
    response = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, outside.pk]), {f"q{outside.pk}-number": "12.5"}, **HTMX)
    assert response.status_code == 404
    assert not attempt.answers.exists()


@pytest.mark.parametrize("kind, fields, words", [
    ("choice", {"option": "option-0000000000000000"}, "not one of this question"),
    ("choice", {}, "Choose an answer first"),
    ("number", {"number": "twelve"}, "Type a number"),
    ("number", {"number": "12,5"}, "decimals with a point"),
    ("blanks", {"blank-bits": "x" * 500}, "at most"),
])
def test_a_malformed_answer_is_refused_and_says_why(client, world, kind, fields, words):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    block = world["questions"][kind]
    data = {f"q{block.pk}-{name}": value for name, value in fields.items()}
    response = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, block.pk]), data, **HTMX)
    assert response.status_code == 400 and words in response.content.decode()
    assert not attempt.answers.exists()


def test_without_javascript_the_form_saves_every_answer_and_goes_to_submit(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    data = right_answers(world["student"], world["questions"]) | {"finish": "1"}
    response = client.post(reverse("tutor:quiz_save", args=[attempt.pk]), data)
    assert response.status_code == 302 and response["Location"] == reverse("tutor:quiz_submit", args=[attempt.pk])
    assert attempt.answers.count() == 4
    confirm = client.get(response["Location"]).content.decode()
    assert "You have answered 4 of 4 questions" in confirm
    done = client.post(reverse("tutor:quiz_submit", args=[attempt.pk]))
    assert done["Location"] == reverse("tutor:quiz_attempt", args=[attempt.pk])
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 1.0


def test_the_plain_form_keeps_the_good_answers_and_names_the_bad_one(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    number = world["questions"]["number"]
    data = right_answers(world["student"], world["questions"]) | {f"q{number.pk}-number": "lots", "finish": "1"}
    response = client.post(reverse("tutor:quiz_save", args=[attempt.pk]), data, follow=True)
    html = response.content.decode()
    assert "Type a number" in html
    assert attempt.answers.count() == 3
    assert not QuizAttempt.objects.get().is_submitted


# Time ------------------------------------------------------------------------------------


def test_a_timed_attempts_confirm_page_shows_when_it_ends_in_a_named_zone(client, world):
    quiz = quiz_of(world, time_limit=10)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    ends = timezone.localtime(attempt.ends_at).strftime("%H:%M")
    for url in (reverse("tutor:quiz_attempt", args=[attempt.pk]), reverse("tutor:quiz_submit", args=[attempt.pk])):
        html = client.get(url).content.decode()
        assert f"Ends at {ends} UTC" in html, url
        assert 'data-ends-at="' in html and "js/quiz.js" in html


def test_an_untimed_attempts_confirm_page_shows_no_end(client, world):
    start(client, quiz_of(world))
    attempt = QuizAttempt.objects.get()
    html = client.get(reverse("tutor:quiz_submit", args=[attempt.pk])).content.decode()
    assert "Ends at" not in html and "data-ends-at" not in html


def test_after_the_time_limit_answers_are_refused_and_the_attempt_is_submitted_as_saved(client, world, clock):
    quiz = quiz_of(world, time_limit=10)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    choice, number = world["questions"]["choice"], world["questions"]["number"]
    answers = right_answers(world["student"], world["questions"])
    client.post(reverse("tutor:quiz_answer", args=[attempt.pk, choice.pk]), answers, **HTMX)
    clock.move(minutes=10, seconds=5)  # within the grace: still taken
    ok = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, number.pk]), answers, **HTMX)
    assert ok.status_code == 200
    clock.move(seconds=10)
    blanks = world["questions"]["blanks"]
    late = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, blanks.pk]), answers, **HTMX)
    assert late.status_code == 409 and "Time is over" in late.content.decode()
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 0.5  # two of four right, as saved
    assert attempt.answers.count() == 2


def test_an_attempt_over_time_is_submitted_when_the_student_comes_back(client, world, clock):
    quiz = quiz_of(world, time_limit=5)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    clock.move(minutes=6)
    html = attempt_page(client, attempt)
    attempt.refresh_from_db()
    assert attempt.is_submitted and "Score: 0%" in html


def test_the_scheduled_task_submits_attempts_over_time(world, clock):
    from tutor.tasks import submit_quiz_attempts_over_time

    quiz = quiz_of(world, time_limit=5)
    attempt = actions.start_attempt(assignment=quiz, student=world["student"])
    assert submit_quiz_attempts_over_time() == 0
    clock.move(minutes=5, seconds=11)
    assert submit_quiz_attempts_over_time() == 1
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 0


def test_closing_the_quiz_submits_the_open_attempts(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    client.post(reverse("tutor:quiz_answer", args=[attempt.pk, world["questions"]["choice"].pk]),
                right_answers(world["student"], world["questions"]), **HTMX)
    assignment_actions.set_closed(assignment=quiz, closed=True)
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 0.25
    late = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, world["questions"]["number"].pk]),
                       right_answers(world["student"], world["questions"]), **HTMX)
    assert late.status_code == 409


# Feedback --------------------------------------------------------------------------------


def submit_all(client, world, attempt, data):
    client.post(reverse("tutor:quiz_save", args=[attempt.pk]), data)
    client.post(reverse("tutor:quiz_submit", args=[attempt.pk]))
    attempt.refresh_from_db()


def test_after_submitting_the_score_and_what_was_right_but_no_right_answer_while_attempts_are_left(client, world):
    quiz = quiz_of(world, attempts_allowed=2, feedback=Assignment.Feedback.AFTER_SUBMITTING)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    choice = world["questions"]["choice"]
    submit_all(client, world, attempt, wrong_choice(world["student"], choice))
    html = attempt_page(client, attempt)
    assert "Score: 0%" in html
    assert "vLLM is fast on NVIDIA, not on a CPU." in html  # the feedback of what was chosen
    assert "Not right." in html
    for secret in ["Built for CPUs", "Right answer", "12.5", "fp16", "The right answer"]:
        assert secret not in html, secret


def test_after_submitting_the_last_attempt_the_right_answers_are_shown(client, world):
    quiz = quiz_of(world, attempts_allowed=1, feedback=Assignment.Feedback.AFTER_SUBMITTING)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    submit_all(client, world, attempt, wrong_choice(world["student"], world["questions"]["choice"]))
    html = attempt_page(client, attempt)
    assert "Right answer" in html and "The right answer: 12.5" in html and "(right: 16-bit)" in html


def test_after_the_due_date_nothing_is_told_until_the_last_extension_is_due(client, world, clock):
    other = make_user()
    world["cohort"].memberships.create(student=other)
    quiz = quiz_of(world, feedback=Assignment.Feedback.AFTER_DUE, due=timezone.now() + timedelta(hours=1))
    assignment_actions.grant_extension(assignment=quiz, student=other, due_at=timezone.now() + timedelta(hours=3))
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    submit_all(client, world, attempt, right_answers(world["student"], world["questions"]))
    clock.move(hours=2)  # past the class's date, not the extension's
    html = attempt_page(client, attempt)
    assert "submitted" in html and "Score:" not in html
    for secret in SECRETS:
        assert secret not in html, secret
    clock.move(hours=2)
    html = attempt_page(client, attempt)
    assert "Score: 100%" in html and "Right." in html


def test_at_once_a_checked_question_shows_its_feedback_and_is_final(client, world):
    quiz = quiz_of(world, feedback=Assignment.Feedback.AT_ONCE)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    choice = world["questions"]["choice"]
    url = reverse("tutor:quiz_check", args=[attempt.pk, choice.pk])
    response = client.post(url, wrong_choice(world["student"], choice), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "Not right." in html and "vLLM is fast on NVIDIA" in html
    assert "Right answer" in html  # checked: final, the right option marked
    assert QuestionAnswer.objects.filter(attempt=attempt, block=choice).count() == 1
    again = client.post(url, right_answers(world["student"], world["questions"]), **HTMX)
    assert again.status_code == 409 and "final" in again.content.decode()
    save = client.post(reverse("tutor:quiz_answer", args=[attempt.pk, choice.pk]),
                       right_answers(world["student"], world["questions"]), **HTMX)
    assert save.status_code == 409
    page = attempt_page(client, attempt)
    number = world["questions"]["number"]
    assert "12.5" not in page  # unchecked questions tell nothing
    assert f'formaction="{reverse("tutor:quiz_check", args=[attempt.pk, number.pk])}"' in page


def test_checking_is_refused_when_feedback_comes_after_submitting(client, world):
    quiz = quiz_of(world, feedback=Assignment.Feedback.AFTER_SUBMITTING)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    choice = world["questions"]["choice"]
    response = client.post(reverse("tutor:quiz_check", args=[attempt.pk, choice.pk]),
                           wrong_choice(world["student"], choice), **HTMX)
    assert response.status_code == 400 and not attempt.answers.exists()


# Scores and the teacher's views of answers ---------------------------------------------


def test_submitting_records_each_answer_for_the_teachers_views(client, world):
    quiz = quiz_of(world)
    start(client, quiz)
    attempt = QuizAttempt.objects.get()
    submit_all(client, world, attempt, right_answers(world["student"], world["questions"]))
    rows = QuestionAnswer.objects.filter(attempt=attempt)
    assert rows.count() == 4 and all(row.right for row in rows)
    # ... but not as the lesson page's practice of the question
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Right, on the first try" not in html


def test_the_score_is_the_best_submitted_attempt(client, world):
    quiz = quiz_of(world, attempts_allowed=2)
    start(client, quiz)
    first = QuizAttempt.objects.get()
    submit_all(client, world, first, right_answers(world["student"], world["questions"]))
    start(client, quiz)
    second = QuizAttempt.objects.get(number=2)
    submit_all(client, world, second, wrong_choice(world["student"], world["questions"]["choice"]))
    from tutor.assignments.status import standings

    standing = standings([quiz], [world["student"].pk])[(quiz.pk, world["student"].pk)]
    assert standing.score == 1.0 and standing.attempts == 2
    assert standing.submitted_at == first.submitted_at and standing.label == "On time"


# The lesson page while the quiz runs ----------------------------------------------------


def test_while_the_quiz_runs_the_lesson_page_sends_its_questions_to_the_quiz(client, world):
    quiz = quiz_of(world)
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert html.count("Part of your quiz") == 4
    assert reverse("tutor:quiz_start", args=[quiz.pk]) in html
    assert 'action="{}"'.format(reverse("tutor:question_answer", args=[world["questions"]["choice"].pk])) not in html


@pytest.mark.parametrize("kind", KINDS)
def test_while_the_quiz_runs_the_practice_answer_is_refused(client, world, kind):
    quiz_of(world)
    block = world["questions"][kind]
    data = {"option": option_token(world["student"].pk, block.pk, "llama"), "number": "12.5", "blank-bits": "8"}
    response = client.post(reverse("tutor:question_answer", args=[block.pk]), data, **HTMX)
    assert response.status_code == 403 and "part of your quiz" in response.content.decode()
    assert not QuestionAnswer.objects.exists()


def test_once_the_quiz_is_due_for_everyone_the_questions_are_practice_again(client, world, clock):
    quiz_of(world, due=timezone.now() + timedelta(hours=1))
    clock.move(hours=2)
    block = world["questions"]["choice"]
    response = client.post(reverse("tutor:question_answer", args=[block.pk]),
                           {"option": option_token(world["student"].pk, block.pk, "llama")}, **HTMX)
    assert response.status_code == 200
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Part of your quiz" not in html


def test_a_quiz_of_another_class_does_not_hold_the_questions(client, world):
    make_quiz(lesson=world["lesson"])
    html = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert "Part of your quiz" not in html
