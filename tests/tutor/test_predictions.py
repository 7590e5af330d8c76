from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_prediction, make_run, make_snippet, make_user
from tutor.actions.runs import execute_run
from tutor.models import LessonProgress, Run
from tutor.practice.snippet import actions as actions
from tutor.practice.snippet.models import CodeDraft, Prediction

pytestmark = pytest.mark.django_db

SEED_FIRST_LINES = 'print()\nprint("Optimising")\n'


def test_the_first_prediction_counts_and_later_ones_are_kept():
    user = make_user()
    snippet = make_snippet()
    first, _ = actions.submit_prediction(
        user=user, snippet=snippet, text="hello", said_out_loud=False
    )
    second, _ = actions.submit_prediction(
        user=user, snippet=snippet, text="hi", said_out_loud=False
    )
    assert first.is_first and not second.is_first
    assert first.snippet_version == snippet.version
    assert Prediction.objects.filter(user=user, snippet=snippet).count() == 2


def test_a_new_version_of_the_code_gets_a_new_first_prediction():
    user = make_user()
    snippet = make_snippet()
    actions.submit_prediction(user=user, snippet=snippet, text="hello", said_out_loud=False)
    snippet.code = 'print("bye")\n'
    snippet.save()
    again, _ = actions.submit_prediction(
        user=user, snippet=snippet, text="bye", said_out_loud=False
    )
    assert again.is_first
    assert again.snippet_version == 2


def test_a_prediction_waits_for_the_output_then_gets_its_verdict():
    user = make_user()
    snippet = make_snippet(code=SEED_FIRST_LINES)
    prediction, run = actions.submit_prediction(
        user=user, snippet=snippet, text="Optimising", said_out_loud=False
    )
    assert run.status == Run.Status.QUEUED
    assert prediction.verdict == Prediction.Verdict.PENDING

    execute_run(run_id=run.pk)  # the worker runs it and gives the verdicts waiting for it
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.WRONG  # the leading empty line is missing
    run.refresh_from_db()
    assert actions.settle_predictions(predictions=[prediction], run=run) == []  # given once


def test_a_right_prediction_against_a_cached_output_is_right_at_once():
    user = make_user()
    snippet = make_snippet()
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="hello\n")
    prediction, _ = actions.submit_prediction(
        user=user, snippet=snippet, text="hello  \n\n", said_out_loud=False
    )
    assert prediction.verdict == Prediction.Verdict.RIGHT


def test_the_real_output_is_run_once_per_version_of_the_code():
    snippet = make_snippet()
    _, first = actions.submit_prediction(
        user=make_user(), snippet=snippet, text="x", said_out_loud=False
    )
    _, second = actions.submit_prediction(
        user=make_user(), snippet=snippet, text="y", said_out_loud=True
    )
    assert first.pk == second.pk
    assert Run.objects.filter(purpose=Run.Purpose.REVEAL).count() == 1

    snippet.code = 'print("changed")\n'
    snippet.save()
    _, third = actions.submit_prediction(
        user=make_user(), snippet=snippet, text="z", said_out_loud=False
    )
    assert third.pk != first.pk
    assert third.code == snippet.code


def test_a_reveal_that_could_not_run_is_not_reused():
    snippet = make_snippet()
    failed = make_run(snippet, purpose=Run.Purpose.REVEAL, status=Run.Status.FAILED)
    run = actions.reveal_run(snippet=snippet)
    assert run.pk != failed.pk
    assert run.status == Run.Status.QUEUED


def test_a_reveal_whose_worker_died_is_failed_and_replaced():
    snippet = make_snippet()
    lost = make_run(snippet, purpose=Run.Purpose.REVEAL, status=Run.Status.RUNNING)
    Run.objects.filter(pk=lost.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    run = actions.reveal_run(snippet=snippet)
    lost.refresh_from_db()
    assert lost.status == Run.Status.FAILED
    assert run.pk != lost.pk


def test_said_out_loud_waits_for_the_learners_own_check():
    user = make_user()
    snippet = make_snippet()
    run = make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="hello\n")
    prediction, _ = actions.submit_prediction(
        user=user, snippet=snippet, text="ignored", said_out_loud=True
    )
    assert prediction.verdict == Prediction.Verdict.SELF_UNCHECKED
    assert prediction.text == ""
    assert actions.settle_predictions(predictions=[prediction], run=run) == []

    actions.record_self_check(prediction=prediction, got_it=True)
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_RIGHT
    assert LessonProgress.objects.get(user=user).predictions_right == 1


def test_the_self_check_is_given_once_and_cannot_be_changed_later():
    user = make_user()
    snippet = make_snippet()
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="hello\n")
    prediction, _ = actions.submit_prediction(
        user=user, snippet=snippet, text="", said_out_loud=True
    )
    actions.record_self_check(prediction=prediction, got_it=False)
    with pytest.raises(actions.SelfCheckRefused, match="already said"):
        actions.record_self_check(prediction=prediction, got_it=True)
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_WRONG
    assert LessonProgress.objects.get(user=user).predictions_right == 0


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING, Run.Status.FAILED])
def test_no_self_check_before_the_real_output_is_known(status):
    user = make_user()
    snippet = make_snippet()
    make_run(snippet, purpose=Run.Purpose.REVEAL, status=status)
    prediction = make_prediction(
        user, snippet, text="", said_out_loud=True, verdict=Prediction.Verdict.SELF_UNCHECKED
    )
    with pytest.raises(actions.SelfCheckRefused, match="Wait for the real output"):
        actions.record_self_check(prediction=prediction, got_it=True)
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_UNCHECKED
    assert not LessonProgress.objects.filter(user=user, predictions_right__gt=0).exists()


def test_no_self_check_on_a_typed_prediction_or_an_older_version_of_the_code():
    user = make_user()
    snippet = make_snippet()
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="hello\n")
    typed = make_prediction(user, snippet, text="nope", verdict=Prediction.Verdict.WRONG)
    with pytest.raises(actions.SelfCheckRefused, match="checked for you"):
        actions.record_self_check(prediction=typed, got_it=True)
    typed.refresh_from_db()
    assert typed.verdict == Prediction.Verdict.WRONG

    aloud = make_prediction(
        user,
        snippet,
        text="",
        said_out_loud=True,
        is_first=False,
        verdict=Prediction.Verdict.SELF_UNCHECKED,
    )
    snippet.code = 'print("changed")\n'
    snippet.save()
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="changed\n")
    with pytest.raises(actions.SelfCheckRefused, match="code has changed"):
        actions.record_self_check(prediction=aloud, got_it=True)
    aloud.refresh_from_db()
    assert aloud.verdict == Prediction.Verdict.SELF_UNCHECKED


def test_a_failed_run_leaves_the_prediction_pending():
    user = make_user()
    snippet = make_snippet()
    prediction = make_prediction(user, snippet, text="hello", verdict=Prediction.Verdict.PENDING)
    run = make_run(snippet, purpose=Run.Purpose.REVEAL, status=Run.Status.FAILED)
    assert actions.settle_predictions(predictions=[prediction], run=run) == []
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.PENDING
    assert prediction.text == "hello"


def test_drafts_are_kept_per_learner_and_snippet_and_reset_forgets_them():
    user, other = make_user(), make_user()
    snippet = make_snippet()
    first = actions.save_draft(user=user, snippet=snippet, code="print(1)\n")
    second = actions.save_draft(user=user, snippet=snippet, code="print(2)\n")
    actions.save_draft(user=other, snippet=snippet, code="print(3)\n")
    kept = CodeDraft.objects.get(user=user, snippet=snippet)
    assert kept.code == "print(2)\n"
    assert first.pk == second.pk == kept.pk  # replaced in place, not a row per save
    assert kept.updated_at >= first.updated_at

    assert actions.save_draft(user=user, snippet=snippet, code=snippet.code) is None
    assert not CodeDraft.objects.filter(user=user).exists()

    actions.discard_draft(user=other, snippet=snippet)
    assert not CodeDraft.objects.exists()
