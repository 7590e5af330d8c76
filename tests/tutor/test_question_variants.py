"""Number questions that compute their answer: a variant per learner (stable, not re-rolled
by reloading), its answer computed in the sandbox by the worker once per variant and kept,
graded against it; the teacher sees the variant beside the answer; `check_content` runs
every variant and refuses a question where one fails."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.factories import make_cohort, make_lesson, make_teacher, make_user
from tests.tutor.question_world import make_question
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.questions import variants
from tutor.practice.questions.actions import answer_question
from tutor.practice.questions.models import QuestionAnswer, QuestionTries, QuestionVariant

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SIZED = {
    "body": "How many GB do the weights of a {{params}}B model take at {{bits}} bits?",
    "answer": None,
    "program": "def weights_gb(params_billion, bits):\n    return params_billion * bits / 8\n\nprint(weights_gb(params, bits))\n",
    "parameters": [{"name": "bits", "values": [4, 8, 16]}, {"name": "params", "from": 1, "to": 3}],
    "relative_tolerance": 0.01,
    "units": "GB",
    "mistakes": [],
}


def sized(lesson=None, **values):
    return make_question("number", lesson, key="sized", **{**SIZED, **values})


def values_of(block) -> dict:
    return block.kind_spec.values_of(block)


def work_through_queue() -> None:
    """The worker: every queued run executed (and settled) in turn."""
    for run_id in Run.objects.filter(status=Run.Status.QUEUED).values_list("pk", flat=True):
        execute_run(run_id=run_id)


def post(client, block, number: str):
    return client.post(reverse("tutor:question_answer", args=[block.pk]), {"number": number}, **HTMX)


def test_the_question_lists_every_variant_in_a_fixed_order():
    block = sized()
    every = variants.variants_of(block, values_of(block))
    assert len(every) == 9
    assert every[0] == {"bits": 4, "params": 1} and every[-1] == {"bits": 16, "params": 3}


def test_a_stated_sample_of_a_large_range_is_the_same_every_time():
    block = sized(parameters=[{"name": "bits", "values": [4, 8]}, {"name": "params", "from": 1, "to": 400}], variants=5)
    first = variants.variants_of(block, values_of(block))
    assert len(first) == 5 and first == variants.variants_of(block, values_of(block))


def test_each_learner_sees_their_own_variant_on_every_visit(client, learner):
    block = sized()
    mine = variants.learner_variant(block, values_of(block), user_id=learner.pk)
    html = client.get(block.lesson.get_absolute_url()).content.decode()
    text = f"How many GB do the weights of a {mine['params']}B model take at {mine['bits']} bits?"
    assert text in html and "{{" not in html
    assert text in client.get(block.lesson.get_absolute_url()).content.decode()
    others = {tuple(variants.learner_variant(block, values_of(block), user_id=n).items()) for n in range(1, 40)}
    assert len(others) > 3  # learners get different variants


def test_an_answer_waits_for_the_worker_to_compute_the_variant_and_is_graded_against_it(client, learner):
    block = sized()
    mine = variants.learner_variant(block, values_of(block), user_id=learner.pk)
    right = mine["params"] * mine["bits"] / 8

    response = post(client, block, str(right))
    assert response.status_code == 503 and "still being prepared" in response.content.decode()
    assert not QuestionTries.objects.filter(user=learner, tries__gt=0).exists()  # not a try

    work_through_queue()
    kept = QuestionVariant.objects.get(block=block, parameters=mine)
    assert kept.answer == right and kept.run is not None

    html = post(client, block, f"{right} GB").content.decode()
    assert "Right, on the first try." in html
    row = QuestionAnswer.objects.get(user=learner, block=block)
    assert row.variant == mine and row.expected == right and row.right


def test_a_variant_is_computed_once_for_every_learner_who_has_it():
    block = sized(parameters=[{"name": "bits", "values": [8]}, {"name": "params", "values": [2]}])
    learners = [make_user() for _ in range(3)]
    for user in learners[:1]:
        with pytest.raises(variants.VariantNotReady):
            answer_question(user=user, block=block, answer={"text": "2", "value": 2.0})
    work_through_queue()
    for user in learners:
        answer_question(user=user, block=block, answer={"text": "2", "value": 2.0})
    assert Run.objects.filter(purpose=Run.Purpose.CONTENT).count() == 1
    assert QuestionAnswer.objects.filter(block=block, right=True).count() == 3


def test_a_finished_question_shows_the_learners_own_variants_answer(client, learner):
    block = sized(tries=1)
    mine = variants.learner_variant(block, values_of(block), user_id=learner.pk)
    post(client, block, "999")
    work_through_queue()
    html = post(client, block, "999").content.decode()
    assert f"The right answer: {mine['params'] * mine['bits'] / 8:.12g} GB" in html


def test_the_teacher_sees_the_variant_beside_the_answer(client):
    teacher, student = make_teacher(), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    block = sized(make_lesson(), title="Sized")
    mine = variants.learner_variant(block, values_of(block), user_id=student.pk)
    with pytest.raises(variants.VariantNotReady):
        answer_question(user=student, block=block, answer={"text": "5", "value": 5.0})
    work_through_queue()
    answer_question(user=student, block=block, answer={"text": "5", "value": 5.0})
    client.force_login(teacher)
    html = client.get(reverse("tutor:class_student", args=[cohort.pk, student.pk])).content.decode()
    assert f"variant bits={mine['bits']}, params={mine['params']} (its answer {mine['params'] * mine['bits'] / 8:.12g})" in html


def test_check_content_runs_every_variant_and_keeps_their_answers():
    block = sized()
    out = io.StringIO()
    call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert "(9 variants, each computed)" in out.getvalue()
    assert QuestionVariant.objects.filter(block=block, answer__isnull=False).count() == 9


def test_check_content_refuses_a_question_one_of_whose_variants_fails():
    block = sized(program="print(8 / (bits - 8))\n")
    out = io.StringIO()
    with pytest.raises(CommandError, match="fail for some variant"):
        call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert "bits=8, params=1: the program stopped: ZeroDivisionError: division by zero" in out.getvalue()


def test_the_admins_check_outputs_reports_a_failing_variant(admin_client):
    import re

    block = sized(program="print(8 / (bits - 8))\n")
    response = admin_client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "check_outputs", "_selected_action": [block.lesson.pk]}, follow=True,
    )
    assert "Computing 9 variants" in response.text
    url = re.search(r'href="(/admin/course/lesson/check-outputs/\?runs=[0-9,]+)"', response.text).group(1)
    assert "waiting for the worker (9 of 9 variants)" in admin_client.get(url).text
    work_through_queue()
    html = admin_client.get(url).text
    assert "MISMATCH: bits=8, params=1: the program stopped: ZeroDivisionError: division by zero" in html
    assert QuestionVariant.objects.filter(block=block, answer__isnull=False).count() == 6
