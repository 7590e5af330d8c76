"""The lesson page as tutor composes it: content, each practice kind's state, progress.
A page view reads and never writes."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from course import kinds
from tests.factories import make_prediction, make_run, make_snippet
from tutor import practice
from tutor.models import Run
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")


def writes_in(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]


def test_every_practice_kind_practises_a_block_kind_of_the_content():
    names = [kind.name for kind in practice.every()]
    assert names == [name for name in kinds.names() if name in names]
    assert {"snippet", "ordering"} <= set(names)
    for kind in practice.every():
        assert kind.template and kind.count() is not None


def test_the_lesson_page_never_writes_even_with_verdicts_and_runs_to_repair(client, learner):
    snippet = make_snippet(code='print("first")\nprint("second")\n')
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="first\nsecond\n")
    make_prediction(learner, snippet, text="first\nthird", verdict=Prediction.Verdict.PENDING)
    lost = make_run(
        snippet,
        user=learner,
        status=Run.Status.RUNNING,
        started_at=timezone.now() - timedelta(minutes=5),
        deadline_at=timezone.now() - timedelta(minutes=4),
    )
    url = snippet.block.lesson.get_absolute_url()
    with CaptureQueriesContext(connection) as queries:
        html = client.get(f"{url}?run={lost.pk}").content.decode()
    assert writes_in(queries.captured_queries) == []
    # What the learner sees is already right: the comparison, and the lost run as lost.
    assert "Not quite: 1 of 2 lines right, 1 different." in html
    assert "Parsnip lost this run" in html
    assert Prediction.objects.get().verdict == Prediction.Verdict.PENDING
    assert Run.objects.get(pk=lost.pk).status == Run.Status.RUNNING


def test_polls_never_write(client, learner):
    snippet = make_snippet()
    reveal = make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="hello\n")
    prediction = make_prediction(learner, snippet, text="hi", verdict=Prediction.Verdict.PENDING)
    lost = make_run(
        snippet,
        user=learner,
        status=Run.Status.RUNNING,
        started_at=timezone.now() - timedelta(minutes=5),
        deadline_at=timezone.now() - timedelta(minutes=4),
    )
    hx = {"HTTP_HX_REQUEST": "true"}
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(f"/predictions/{prediction.pk}/", **hx)
        run = client.get(f"/runs/{lost.pk}/", **hx)
    assert (answer.status_code, run.status_code) == (200, 200)
    assert writes_in(queries.captured_queries) == []
    assert "Parsnip lost this run" in run.content.decode()
    assert reveal.stdout.strip() in answer.content.decode()


@pytest.fixture
def callout_kind():
    """A display kind declared the way a new one is: one BlockKind, here with a
    stylesheet of its own (an existing one: the test needs a real static file)."""
    kind = kinds.register(
        kinds.BlockKind(
            name="test_callout",
            label="Callout",
            template="course/blocks/prose.html",
            fields=kinds.common_fields(),
            styles=("css/teaching.css",),
        )
    )
    yield kind
    kinds._kinds.pop(kind.name)


def test_a_display_kind_is_rendered_and_its_own_stylesheet_linked(client, callout_kind):
    from tests.factories import make_block, make_lesson

    lesson = make_lesson()
    make_block(lesson, kind="test_callout", key="note", body="Check the **units**.")
    html = client.get(lesson.get_absolute_url()).content.decode()
    assert "<strong>units</strong>" in html
    assert 'href="/static/css/teaching' in html
    # A page whose lesson has no such block links it too: the page's head is the same for
    # every lesson, so browsers cache one set of stylesheets.
    assert practice.assets()[0].count("css/teaching.css") == 1
