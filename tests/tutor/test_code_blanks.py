"""Fill in the blanks in code (`code_blanks`): the learner's fills put into the program, the
program run by the worker, the answer graded by its output once it is back (a try only
then); fills the question accepts at once need no run; malformed fills are refused and not
a try; `check_content` runs the solution (in a quiz: test_quiz_code_blanks.py)."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.factories import make_lesson
from tests.tutor.question_world import make_question
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.questions.code_runs import ProgramRunning
from tutor.practice.questions.models import QuestionAnswer, QuestionTries

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def work_through_queue() -> None:
    """The worker: every queued run executed (and settled) in turn."""
    for run_id in Run.objects.filter(status=Run.Status.QUEUED).values_list("pk", flat=True):
        execute_run(run_id=run_id)


def post(client, block, htmx=True, **fills):
    data = {f"blank-{name}": text for name, text in fills.items()}
    return client.post(reverse("tutor:question_answer", args=[block.pk]), data, **(HTMX if htmx else {}))


def tries(learner, block) -> int:
    row = QuestionTries.objects.filter(user=learner, block=block).first()
    return row.tries if row else 0


def page(client, block) -> str:
    return client.get(block.lesson.get_absolute_url()).content.decode()


def test_the_page_shows_the_program_and_expected_output_but_not_the_solution(client, learner):
    block = make_question("code_blanks")
    html = page(client, block)
    assert "The filled program must print:" in html and "13.0 GB" in html
    assert 'name="blank-bits"' in html and 'name="blank-model"' in html
    assert 'value=""' in html and "a right fill" not in html  # no solution fill
    assert "sizes[&#x27;13b&#x27;]" not in html
    assert "<fieldset" in html and "<legend>Fill in the blanks in the program</legend>" in html


def test_fills_the_question_accepts_are_right_at_once_without_a_run(client, learner):
    block = make_question("code_blanks")
    html = post(client, block, bits="8", model=' "13b" ').content.decode()
    assert "Right, on the first try." in html
    assert not Run.objects.exists()


def test_other_fills_run_in_the_sandbox_pending_then_graded_right(client, learner):
    block = make_question("code_blanks")
    response = post(client, block, bits="4 * 2", model="'13b'")
    html = response.content.decode()
    assert response.status_code == 200 and "Your program is running" in html
    assert 'hx-trigger="submit, load delay:50ms"' in html  # the page asks again
    assert 'value="4 * 2"' in html  # the fills kept while it runs
    assert tries(learner, block) == 0  # not a try yet
    run = Run.objects.get()
    assert run.user == learner and run.purpose == Run.Purpose.CHECK
    assert "bits = 4 * 2\n" in run.code
    assert "Your program is running" in page(client, block)  # without JavaScript too

    work_through_queue()
    html = post(client, block, bits="4 * 2", model="'13b'").content.decode()
    assert "Right, on the first try." in html
    assert tries(learner, block) == 1 and Run.objects.count() == 1  # the same run, reused
    answer = QuestionAnswer.objects.get(user=learner, block=block)
    assert answer.right and answer.answer["fills"] == {"bits": "4 * 2", "model": "'13b'"}
    assert QuestionTries.objects.get(user=learner, block=block).pending == {}


def test_a_program_that_prints_something_else_is_wrong_and_shows_what_it_printed(client, learner):
    block = make_question("code_blanks")
    post(client, block, bits="16", model="'13b'")
    work_through_queue()
    html = post(client, block, bits="16", model="'13b'").content.decode()
    assert "Not right." in html and "1 try left" in html
    assert "Your filled program printed:" in html and "26.0 GB" in html
    assert "(a right fill" not in html  # the solution waits until earned
    # A wrong fill set is a group of wrong answers (a cluster), and a try.
    assert QuestionAnswer.objects.get(user=learner, block=block).right is False
    assert tries(learner, block) == 1

    post(client, block, bits="1", model="'7b'")
    work_through_queue()
    html = post(client, block, bits="1", model="'7b'").content.decode()
    assert "Not right." in html and "(a right fill: 8)" in html  # every try used: shown now
    assert tries(learner, block) == 2


def test_a_program_that_fails_is_wrong(client, learner):
    block = make_question("code_blanks")
    post(client, block, bits="8", model="'70b'")
    work_through_queue()
    html = post(client, block, bits="8", model="'70b'").content.decode()
    assert "Not right." in html and "KeyError" in html


@pytest.mark.parametrize(
    ("fills", "message"),
    [
        ({"bits": "8"}, "Fill in every blank first"),
        ({"bits": "8\nimport os", "model": "'13b'"}, "takes one line"),
        ({"bits": "8\r", "model": "'13b'"}, "takes one line"),
        ({"bits": "8" * 201, "model": "'13b'"}, "at most 200 characters"),
    ],
)
def test_malformed_fills_are_refused_and_are_not_a_try(client, learner, fills, message):
    block = make_question("code_blanks")
    response = post(client, block, **fills)
    assert response.status_code == 400 and message in response.content.decode()
    assert tries(learner, block) == 0 and not Run.objects.exists()


def test_answering_needs_an_account(client):
    block = make_question("code_blanks")
    response = post(client, block, htmx=False, bits="8", model="'13b'")
    assert response.status_code == 302 and "login" in response["Location"]
    assert not Run.objects.exists()


def test_a_draft_lessons_question_is_not_found(client, learner):
    block = make_question("code_blanks", make_lesson(status="draft"))
    assert post(client, block, bits="8", model="'13b'").status_code == 404


def test_a_finished_question_takes_no_more_fills(client, learner):
    block = make_question("code_blanks")
    post(client, block, bits="8", model="'13b'")
    response = post(client, block, bits="9", model="'13b'")
    assert response.status_code == 409
    assert not Run.objects.exists() and tries(learner, block) == 1


def test_without_javascript_an_answer_redirects_to_the_question(client, learner):
    block = make_question("code_blanks", key="fill")
    response = post(client, block, htmx=False, bits="2 * 4", model="'13b'")
    assert response.status_code == 302 and response["Location"].endswith("#question-fill")
    html = page(client, block)
    assert "See the result" in html and 'value="2 * 4"' in html
    work_through_queue()
    post(client, block, htmx=False, bits="2 * 4", model="'13b'")
    assert "Right, on the first try." in page(client, block)


def test_check_content_runs_the_solution():
    block = make_question("code_blanks")
    out = io.StringIO()
    call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert "the solution prints the expected output" in out.getvalue()


def test_check_content_refuses_a_solution_that_prints_something_else():
    block = make_question("code_blanks", expected_output="26.0 GB\n")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert "the solution prints '13.0 GB', not the expected output" in out.getvalue()


def test_check_content_refuses_a_solution_with_a_syntax_error():
    block = make_question(
        "code_blanks", blanks=[{"key": "bits", "solution": "8 +", "answers": []},
                               {"key": "model", "solution": "'13b'", "answers": []}],
    )
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert "the solution stops: SyntaxError" in out.getvalue()


def test_a_wrong_fill_set_is_a_group_and_the_item_analysis_counts_it(client):
    from django.db.models import Q

    from tests.factories import make_cohort, make_teacher, make_user
    from tutor import practice
    from tutor.practice.questions.actions import answer_question

    teacher, students = make_teacher(), [make_user(f"s{n}") for n in range(3)]
    cohort = make_cohort(teacher, students=students)
    block = make_question("code_blanks", title="In code")
    wrong = {"bits": "16", "model": "'13b'"}
    with pytest.raises(ProgramRunning):  # the first waits for the worker; the run is shared
        answer_question(user=students[0], block=block, answer=wrong)
    work_through_queue()
    for student in students[:2]:
        answer_question(user=student, block=block, answer=wrong)
    answer_question(user=students[2], block=block, answer={"bits": "8", "model": "'13b'"})
    assert Run.objects.count() == 1  # one run for the same filled program

    in_class = Q(user__memberships__cohort=cohort)
    found = practice.get("code_blanks").clusters(in_class=in_class, blocks=[block])[block.pk]
    [group] = found.groups
    assert group.count == 2 and "16" in group.description
    assert found.right == 1 and "bits: 8" in found.right_answer

    client.force_login(teacher)
    html = client.get(reverse("tutor:class_lesson", args=[cohort.pk, block.lesson.pk])).content.decode()
    assert "1 of 3 who answered got it right (33%)" in html and "bits: 16" in html


def test_a_learner_over_their_run_allowance_is_told_and_it_is_not_a_try(client, learner, settings):
    settings.RUNS_PER_MINUTE = 0
    block = make_question("code_blanks")
    response = post(client, block, bits="4 + 4", model="'13b'")
    assert response.status_code == 429 and "runs in the last minute" in response.content.decode()
    assert tries(learner, block) == 0 and not Run.objects.exists()
