"""A fill-in-the-code question graded by tests instead of an expected output: the visible
tests shown (they are the task), the filled program graded by every test in one sandbox run
by the worker, the answer right when all pass; what a failed test found is shown, a hidden
test's only as the kind of failure; `check_content` runs the solution against the tests; in
a quiz the same."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.question_world import make_question
from tests.tutor.quiz_world import make_quiz
from tests.tutor.test_code_blanks import page, post, tries, work_through_queue
from tutor.models import Run
from tutor.practice.questions.models import QuestionAnswer
from tutor.quizzes.models import QuizAnswer, QuizAttempt

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
CODE = "def weights_gb(params_billion, bits):\n    return params_billion * {{per-weight}}\n"
TESTS = [
    {"key": "eight", "name": "8 billion at 8 bits take 8 GB", "check": "assert weights_gb(8, 8) == 8"},
    {"key": "four", "name": "4 bits take half", "shown": "hidden", "check": "assert weights_gb(8, 4) == 4"},
]


def by_tests(lesson=None, **values):
    full_tests = [{"shown": "visible", "stdin": "", "args": [], "stdout": "", **test} for test in TESTS]
    given = {"code": CODE, "expected_output": "", "tests": full_tests,
             "blanks": [{"key": "per-weight", "solution": "bits / 8", "answers": []}], **values}
    return make_question("code_blanks", lesson, **given)


def test_the_page_shows_the_visible_tests_not_the_hidden_one_nor_the_solution(client, learner):
    block = by_tests()
    html = page(client, block)
    assert "The filled program must pass these tests:" in html
    assert "8 billion at 8 bits take 8 GB" in html and "assert weights_gb(8, 8) == 8" in html
    assert "4 bits take half" not in html and "weights_gb(8, 4)" not in html
    assert "and 1 hidden test" in html
    assert "bits / 8" not in html and "The filled program must print:" not in html


def test_a_fill_that_passes_every_test_is_right_graded_by_the_worker(client, learner):
    block = by_tests()
    response = post(client, block, **{"per-weight": "bits/8"})
    assert "Your program is running" in response.content.decode() and tries(learner, block) == 0
    run = Run.objects.get()
    assert run.purpose == Run.Purpose.TESTS and "bits/8" in run.code
    work_through_queue()
    html = post(client, block, **{"per-weight": "bits/8"}).content.decode()
    assert "Right, on the first try." in html
    answer = QuestionAnswer.objects.get(block=block)
    assert answer.right and answer.answer["passed"] is True


def test_a_fill_that_fails_a_visible_test_says_what_it_found(client, learner):
    block = by_tests()
    post(client, block, **{"per-weight": "bits"})
    work_through_queue()
    html = post(client, block, **{"per-weight": "bits"}).content.decode()
    assert "Not right." in html and "What the tests found:" in html
    assert "8 billion at 8 bits take 8 GB" in html and "(a right fill" not in html
    assert QuestionAnswer.objects.get(block=block).right is False


def test_a_fill_that_fails_only_the_hidden_test_says_only_how_it_failed(client, learner):
    block = by_tests()
    fill = {"per-weight": "1 if bits == 8 else 2"}
    post(client, block, **fill)
    work_through_queue()
    html = post(client, block, **fill).content.decode()
    assert "Not right." in html and "A hidden test:" in html
    assert "4 bits take half" not in html and "weights_gb(8, 4)" not in html


def test_the_same_program_is_graded_once_even_for_another_learner(client, learner):
    block = by_tests()
    post(client, block, **{"per-weight": "bits/8"})
    work_through_queue()
    client.force_login(make_user())
    html = post(client, block, **{"per-weight": "bits/8"}).content.decode()
    assert "Right, on the first try." in html and Run.objects.count() == 1


def test_check_content_runs_the_solution_against_the_tests():
    block = by_tests()
    out = io.StringIO()
    call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert "the solution passes every test" in out.getvalue()


def test_check_content_refuses_a_solution_that_fails_a_test_naming_it_and_the_fix():
    block = by_tests(blanks=[{"key": "per-weight", "solution": "bits", "answers": []}])
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    text = out.getvalue()
    assert f"{block.lesson.slug} · {block.key}" in text
    assert "the solution fails test “8 billion at 8 bits take 8 GB”" in text
    assert "Fix the solution's fills or the test." in text


def test_in_a_quiz_a_question_graded_by_tests_counts_once_its_tests_ran(client):
    student = make_user()
    cohort = make_cohort(make_teacher(), students=[student])
    block = by_tests()
    quiz = make_quiz(cohort, block.lesson)
    client.force_login(student)
    client.post(reverse("tutor:quiz_begin", args=[quiz.pk]))
    attempt = QuizAttempt.objects.get()
    client.post(reverse("tutor:quiz_answer", args=[attempt.pk, block.pk]),
                {f"q{block.pk}-blank-per-weight": "bits/8"}, **HTMX)
    assert QuizAnswer.objects.get().running
    client.post(reverse("tutor:quiz_submit", args=[attempt.pk]))
    work_through_queue()
    attempt.refresh_from_db()
    assert attempt.score == 1.0 and QuestionAnswer.objects.get(attempt=attempt).right
