"""A fill-in-the-code question in a quiz: the fills saved with the attempt, the filled program
run by the worker (the lesson page's code_runs, one run per program), the answer graded when
the run is back -- at once when checked, at submit, or after submitting when the run was still
under way -- and counted in the score, the teacher's answers, the item analysis and the LMS's
score. Nothing tells whether it is right before the quiz's feedback rule allows."""

import pytest
from django.urls import reverse

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.question_world import make_question
from tests.tutor.quiz_world import make_quiz, quiz_lesson
from tests.tutor.test_code_blanks import work_through_queue
from tutor import signals
from tutor.assignments.models import Assignment
from tutor.models import Run
from tutor.practice.questions.models import QuestionAnswer
from tutor.quizzes import actions
from tutor.quizzes.analysis import quiz_analysis
from tutor.quizzes.models import QuizAnswer, QuizAttempt
from tutor.tasks import fail_stale_runs

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SOLUTION = ["'13b'", "(a right fill"]


@pytest.fixture
def world(client):
    student = make_user()
    cohort = make_cohort(make_teacher(), students=[student])
    lesson, questions = quiz_lesson()
    code = make_question("code_blanks", lesson, key="q-code", title="Fill the program")
    client.force_login(student)
    return {"student": student, "cohort": cohort, "lesson": lesson, "choice": questions["choice"], "code": code}


def begin(client, world, **settings) -> QuizAttempt:
    quiz = make_quiz(world["cohort"], world["lesson"], blocks=[world["choice"], world["code"]], **settings)
    client.post(reverse("tutor:quiz_begin", args=[quiz.pk]))
    return QuizAttempt.objects.get(assignment=quiz)


def fills(block, **typed) -> dict:
    return {f"q{block.pk}-blank-{name}": text for name, text in typed.items()}


def save(client, attempt, block, **typed):
    return client.post(reverse("tutor:quiz_answer", args=[attempt.pk, block.pk]), fills(block, **typed), **HTMX)


def check(client, attempt, block, **typed):
    return client.post(reverse("tutor:quiz_check", args=[attempt.pk, block.pk]), fills(block, **typed), **HTMX)


def submit(client, attempt):
    client.post(reverse("tutor:quiz_submit", args=[attempt.pk]))
    attempt.refresh_from_db()


def page(client, attempt) -> str:
    return client.get(reverse("tutor:quiz_attempt", args=[attempt.pk])).content.decode()


def test_the_attempt_shows_the_program_with_empty_blanks_and_no_solution(client, world):
    attempt = begin(client, world)
    html = page(client, attempt)
    code = world["code"]
    assert f'name="q{code.pk}-blank-bits"' in html and f'name="q{code.pk}-blank-model"' in html
    assert "The filled program must print:" in html and "13.0 GB" in html
    for secret in SOLUTION:
        assert secret not in html


def test_saving_keeps_the_fills_runs_the_program_once_and_tells_nothing(client, world):
    attempt = begin(client, world)
    code = world["code"]
    response = save(client, attempt, code, bits="4 * 2", model="'13b'")
    html = response.content.decode()
    assert response.status_code == 200 and "Saved at" in html and "Right" not in html
    saved = QuizAnswer.objects.get(attempt=attempt, block=code)
    assert saved.answer["fills"] == {"bits": "4 * 2", "model": "'13b'"} and saved.running
    run = Run.objects.get()
    assert run.user == world["student"] and "bits = 4 * 2\n" in run.code

    work_through_queue()  # the worker runs it, and grades the answer there
    saved.refresh_from_db()
    assert not saved.running and saved.right and saved.score == 1.0
    assert saved.answer["output"] == "13.0 GB\n"
    html = page(client, attempt)
    assert 'value="4 * 2"' in html  # the fills shown again
    for secret in [*SOLUTION, "Right.", "Your filled program printed"]:
        assert secret not in html, secret
    assert not QuestionAnswer.objects.exists()  # recorded when submitted


def test_fills_the_question_accepts_are_graded_without_a_run(client, world):
    attempt = begin(client, world)
    save(client, attempt, world["code"], bits="8", model='"13b"')
    saved = QuizAnswer.objects.get(attempt=attempt)
    assert saved.right and not saved.running and not Run.objects.exists()


def test_malformed_fills_are_refused_and_nothing_is_kept(client, world):
    attempt = begin(client, world)
    response = save(client, attempt, world["code"], bits="8\nimport os", model="'13b'")
    assert response.status_code == 400 and "takes one line" in response.content.decode()
    assert not QuizAnswer.objects.exists() and not Run.objects.exists()


def test_checking_at_once_while_the_program_runs_shows_it_running_then_graded(client, world):
    attempt = begin(client, world, feedback=Assignment.Feedback.AT_ONCE)
    code = world["code"]
    response = check(client, attempt, code, bits="16", model="'13b'")
    html = response.content.decode()
    assert response.status_code == 200 and "Your program is running" in html
    assert "Not right." not in html and "(a right fill" not in html
    result_url = reverse("tutor:quiz_question", args=[attempt.pk, code.pk])
    assert f'hx-get="{result_url}"' in html and 'hx-trigger="load delay:1s"' in html
    again = save(client, attempt, code, bits="8", model="'13b'")  # checked: final, even while it runs
    assert again.status_code == 409

    # The page asks again: still running, it says so again.
    assert "Your program is running" in client.get(result_url, **HTMX).content.decode()
    work_through_queue()
    html = client.get(result_url, **HTMX).content.decode()
    assert "Not right." in html and "Your filled program printed:" in html and "26.0 GB" in html
    assert "(a right fill: 8)" in html  # checked at once: final, the solution shown
    assert f'hx-get="{result_url}"' not in html  # no more asking
    (recorded,) = QuestionAnswer.objects.filter(attempt=attempt, block=code)
    assert recorded.right is False and recorded.answer["fills"] == {"bits": "16", "model": "'13b'"}


def test_without_javascript_the_result_link_goes_to_the_attempt_page(client, world):
    attempt = begin(client, world, feedback=Assignment.Feedback.AT_ONCE)
    code = world["code"]
    response = client.get(reverse("tutor:quiz_question", args=[attempt.pk, code.pk]))
    assert response.status_code == 302 and response["Location"].endswith(f"#quiz-q{code.pk}")


def test_another_students_question_result_is_not_found(client, world):
    attempt = begin(client, world)
    client.force_login(make_user())
    assert client.get(reverse("tutor:quiz_question", args=[attempt.pk, world["code"].pk]), **HTMX).status_code == 404


def test_a_checked_answer_is_graded_at_once_when_the_run_is_quick(client, world):
    attempt = begin(client, world, feedback=Assignment.Feedback.AT_ONCE)
    code = world["code"]
    save(client, attempt, code, bits="4 * 2", model="'13b'")
    work_through_queue()
    html = check(client, attempt, code, bits="4 * 2", model="'13b'").content.decode()
    assert "Right." in html and "Your program is running" not in html
    assert Run.objects.count() == 1  # the same program: its run reused
    assert QuestionAnswer.objects.get(attempt=attempt).right


def test_a_run_still_under_way_at_submit_is_graded_when_it_ends_and_counts(client, world, django_capture_on_commit_callbacks):
    told = []

    def receiver(sender, *, assignment_id, student_id, **kwargs):
        told.append(QuizAttempt.objects.get(assignment=assignment_id, student=student_id).score)

    signals.quiz_submitted.connect(receiver)
    try:
        attempt = begin(client, world, feedback=Assignment.Feedback.AFTER_SUBMITTING)
        code = world["code"]
        save(client, attempt, code, bits="4 * 2", model="'13b'")
        with django_capture_on_commit_callbacks(execute=True):
            submit(client, attempt)
        assert attempt.is_submitted and attempt.score == 0.0  # nothing yet: the choice unanswered
        assert told == [0.0]
        html = page(client, attempt)
        assert "1 program is still running" in html and "Your program is running" in html
        attempt_url = reverse("tutor:quiz_attempt", args=[attempt.pk])
        assert f'hx-get="{attempt_url}" hx-select=".quiz-results"' in html  # asks for the whole results again
        assert not QuestionAnswer.objects.filter(block=code).exists()

        with django_capture_on_commit_callbacks(execute=True):
            work_through_queue()  # the worker grades it, rescoring the attempt and telling the LMS
        attempt.refresh_from_db()
        assert attempt.score == 0.5  # one of two questions right
        assert told == [0.0, 0.5]
        assert QuestionAnswer.objects.get(attempt=attempt, block=code).right
        html = page(client, attempt)
        assert "Score: 50%" in html and "still running" not in html
    finally:
        signals.quiz_submitted.disconnect(receiver)


def test_submitting_grades_programs_that_are_back(client, world):
    attempt = begin(client, world)
    code = world["code"]
    save(client, attempt, code, bits="4 * 2", model="'13b'")
    for run_id in Run.objects.values_list("pk", flat=True):  # back, but not yet settled
        Run.objects.filter(pk=run_id).update(status=Run.Status.OK, stdout="13.0 GB\n")
    submit(client, attempt)
    assert attempt.score == 0.5
    assert QuestionAnswer.objects.get(attempt=attempt, block=code).right


def test_a_run_parsnip_lost_is_run_again_and_the_answer_still_graded(client, world):
    attempt = begin(client, world)
    code = world["code"]
    save(client, attempt, code, bits="4 * 2", model="'13b'")
    Run.objects.update(status=Run.Status.FAILED, stderr=Run.WORKER_LOST_MESSAGE)
    submit(client, attempt)
    fail_stale_runs()  # the minute sweep: queues the program again
    saved = QuizAnswer.objects.get(attempt=attempt)
    assert saved.running and Run.objects.filter(status=Run.Status.QUEUED).count() == 1
    work_through_queue()
    saved.refresh_from_db()
    attempt.refresh_from_db()
    assert saved.right and attempt.score == 0.5


def test_the_sweep_grades_an_answer_whose_run_the_worker_left_unsettled(client, world):
    attempt = begin(client, world)
    save(client, attempt, world["code"], bits="16", model="'13b'")
    Run.objects.update(status=Run.Status.OK, stdout="26.0 GB\n")  # the worker stopped before settling
    submit(client, attempt)
    QuizAnswer.objects.filter(attempt=attempt).update(run=Run.objects.get())  # as if submit came first
    fail_stale_runs()
    saved = QuizAnswer.objects.get(attempt=attempt)
    assert not saved.running and saved.right is False


def test_a_second_answer_replaces_the_one_still_running(client, world):
    attempt = begin(client, world)
    code = world["code"]
    save(client, attempt, code, bits="16", model="'13b'")
    save(client, attempt, code, bits="8", model="'13b'")  # accepted at once
    work_through_queue()  # the first program's run ends: it grades nothing now
    saved = QuizAnswer.objects.get(attempt=attempt)
    assert saved.right and saved.answer["fills"]["bits"] == "8"


def test_the_item_analysis_counts_the_question(client, world):
    attempt = begin(client, world)
    save(client, attempt, world["code"], bits="4 * 2", model="'13b'")
    submit(client, attempt)
    work_through_queue()
    analyses = {a.block.pk: a for a in quiz_analysis(attempt.assignment, [world["student"].pk])}
    assert analyses[world["code"].pk].difficulty == 1.0 and analyses[world["choice"].pk].difficulty == 0.0


def test_a_whole_lessons_quiz_includes_its_fill_in_the_code_questions(world):
    quiz = make_quiz(world["cohort"], world["lesson"])
    assert world["code"] in actions.questions_of(quiz)


def test_a_change_while_a_blank_is_still_empty_saves_nothing_and_says_so(client, world):
    attempt = begin(client, world)
    response = save(client, attempt, world["code"], bits="8", model="")
    html = response.content.decode()
    assert response.status_code == 200 and "Fill in every blank: the answer is saved then." in html
    assert not QuizAnswer.objects.exists() and not Run.objects.exists()
