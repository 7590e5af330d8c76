"""A learner's burst of clicks, sent at once from several threads: the per-learner caps
hold (the count and the insert it allows are one step), on a file SQLite database and,
in `make test`'s second pass, on PostgreSQL."""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from tests.factories import make_prediction, make_snippet, make_user
from tutor.actions.runs import RunRefused, queue_run
from tutor.models import Run
from tutor.practice.snippet.actions import PredictionRefused, submit_prediction
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db(transaction=True)


def at_once(count: int, action) -> list:
    """Call `action()` from `count` threads released together; each result or exception."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def worker(index: int) -> None:
        barrier.wait()
        try:
            results[index] = action()
        except Exception as exc:
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_eight_runs_at_once_are_held_to_the_pending_cap(settings):
    settings.RUNS_PENDING_MAX = 3
    settings.RUNS_PER_MINUTE = 100
    user = make_user()
    snippet = make_snippet()
    results = at_once(8, lambda: queue_run(code="print(1)\n", user=user, snippet=snippet))
    assert sum(isinstance(r, Run) for r in results) == 3
    assert sum(isinstance(r, RunRefused) for r in results) == 5
    assert Run.objects.filter(user=user).count() == 3


def test_runs_at_once_are_held_to_the_per_minute_limit(settings):
    settings.RUNS_PENDING_MAX = 100
    settings.RUNS_PER_MINUTE = 5
    user = make_user()
    snippet = make_snippet()
    results = at_once(12, lambda: queue_run(code="print(1)\n", user=user, snippet=snippet))
    assert sum(isinstance(r, Run) for r in results) == 5
    assert Run.objects.filter(user=user).count() == 5


def test_another_learner_is_not_held_back_by_the_first(settings):
    settings.RUNS_PENDING_MAX = 1
    first, second = make_user(), make_user()
    snippet = make_snippet()
    queue_run(code="print(1)\n", user=first, snippet=snippet)
    assert queue_run(code="print(1)\n", user=second, snippet=snippet).user == second


def test_a_flood_of_predictions_stores_no_more_than_the_limit(settings):
    settings.PREDICTIONS_PER_MINUTE = 5
    user = make_user()
    snippet = make_snippet()
    results = at_once(
        12,
        lambda: submit_prediction(user=user, snippet=snippet, text="x", said_out_loud=False),
    )
    assert sum(isinstance(r, PredictionRefused) for r in results) == 7
    assert Prediction.objects.filter(user=user).count() == 5
    assert Prediction.objects.filter(user=user, is_first=True).count() == 1


def test_eight_run_clicks_over_http_get_three_runs_and_five_clear_refusals(settings):
    settings.RUNS_PENDING_MAX = 3
    user = make_user()
    snippet = make_snippet(code="print(1)\n", key="burst")
    make_prediction(user, snippet, text="1\n", verdict=Prediction.Verdict.RIGHT)
    clients = [Client() for _ in range(8)]
    for client in clients:
        client.force_login(user)
    url = reverse("tutor:run_create", args=[snippet.pk])
    iterator = iter(clients)
    lock = threading.Lock()

    def click():
        with lock:
            client = next(iterator)
        return client.post(url, {"code": "print(2)\n"}, HTTP_HX_REQUEST="true")

    responses = at_once(8, click)
    assert sorted(r.status_code for r in responses) == [200] * 3 + [429] * 5
    refused = [r.content.decode() for r in responses if r.status_code == 429]
    assert all("runs waiting for a worker" in html for html in refused)
    assert Run.objects.filter(user=user, purpose=Run.Purpose.RUN).count() == 3


def test_a_refused_run_keeps_the_learners_code(client, settings):
    settings.RUNS_PENDING_MAX = 0
    user = make_user()
    client.force_login(user)
    snippet = make_snippet(code="print(1)\n", key="keep")
    make_prediction(user, snippet, text="1\n", verdict=Prediction.Verdict.RIGHT)
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": "print(2)\n"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 429
    assert snippet.drafts.get(user=user).code == "print(2)\n"


def test_a_prediction_flood_over_http_is_refused_in_words(client, settings):
    settings.PREDICTIONS_PER_MINUTE = 2
    user = make_user()
    client.force_login(user)
    snippet = make_snippet(key="flood")
    url = reverse("tutor:prediction_create", args=[snippet.pk])
    statuses = [
        client.post(url, {"text": "x", "mode": "typed"}, HTTP_HX_REQUEST="true").status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 429, 429]
    plain = client.post(url, {"text": "x", "mode": "typed"}, follow=True).content.decode()
    assert "predictions in the last minute" in plain
    assert Prediction.objects.filter(user=user).count() == 2


def test_a_class_revealing_one_snippet_at_once_shares_one_run():
    snippet = make_snippet()
    learners = [make_user() for _ in range(12)]
    queue = iter(learners)
    lock = threading.Lock()

    def reveal():
        with lock:
            learner = next(queue)
        return submit_prediction(user=learner, snippet=snippet, text="x", said_out_loud=False)

    results = at_once(12, reveal)
    assert not [r for r in results if isinstance(r, Exception)]
    assert Run.objects.filter(purpose=Run.Purpose.REVEAL).count() == 1
    assert len({run.pk for _, run in results}) == 1
    assert Prediction.objects.filter(is_first=True).count() == 12


def test_a_class_revealing_while_the_worker_finishes_the_run_leaves_no_verdict_waiting():
    """Twelve learners press Reveal as the worker saves the shared run's output and gives the
    verdicts it finds: whatever the order, every prediction ends with its verdict, given
    either by the worker or by the click that saved it after the worker looked."""
    from tutor.actions.runs import execute_run
    from tutor.practice.snippet.actions import reveal_run

    snippet = make_snippet()
    run = reveal_run(snippet=snippet)  # queued by a learner a moment before
    learners = iter([make_user() for _ in range(12)])
    lock = threading.Lock()

    def reveal_or_work():
        with lock:
            learner = next(learners, None)
        if learner is None:
            return execute_run(run_id=run.pk)
        return submit_prediction(user=learner, snippet=snippet, text="x", said_out_loud=False)

    results = at_once(13, reveal_or_work)
    assert not [r for r in results if isinstance(r, Exception)]
    assert Run.objects.get(pk=run.pk).is_final
    assert Prediction.objects.count() == 12
    assert not Prediction.objects.pending().exists()


def test_one_learners_draft_saved_from_eight_requests_at_once_is_one_row_holding_one_of_them():
    """Typing in two tabs, or a save and a Run at once: each request replaces the draft in
    one statement, so there is one row, holding what one of them sent, and none failed."""
    from tutor.practice.snippet.actions import save_draft
    from tutor.practice.snippet.models import CodeDraft

    snippet, learner = make_snippet(), make_user()
    sent = iter([f"print({n})\n" for n in range(8)])
    lock = threading.Lock()

    def save():
        with lock:
            code = next(sent)
        return save_draft(user=learner, snippet=snippet, code=code)

    results = at_once(8, save)
    assert not [r for r in results if isinstance(r, Exception)]
    kept = CodeDraft.objects.get(user=learner, snippet=snippet)
    assert kept.code in {f"print({n})\n" for n in range(8)}
    assert {draft.pk for draft in results} == {kept.pk}  # each request's row is that one
