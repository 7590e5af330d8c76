"""The lesson page as tutor composes it: content, each practice kind's state, progress.
A page view reads and never writes."""

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from course import kinds
from course.kinds.snippet import Snippet
from course.models import GlossaryTerm, Lesson
from tests.factories import make_prediction, make_run, make_snippet, make_user
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


# A learner's page: the content is loaded once per process and content version --------

SEED = "/learn/local-models/optimising-speed-and-memory/"


def test_a_learners_page_costs_a_fixed_number_of_queries_once_its_content_is_loaded(
    client, learner, sample_content, django_assert_num_queries
):
    client.get(SEED)  # loads the lesson's content for this content version
    # The session, the user, the lesson with the content version, the learner's hand (which
    # also tells that they are in no class, so no assignment is asked for), the ordering
    # exercise's dependencies; the learner's predictions, drafts of snippets, arrangements,
    # drafts of exercises, submissions; the progress; and since quizzes and hint ladders,
    # the quizzes holding the lesson's questions and the hint rungs taken.
    with django_assert_num_queries(13):
        assert client.get(SEED).status_code == 200
    # Another learner reads the content loaded for the first: the same queries, none more.
    other = Client()
    other.force_login(make_user())
    with django_assert_num_queries(13):
        assert other.get(SEED).status_code == 200


def test_a_learner_in_a_class_sees_their_assignment_and_one_in_no_class_pays_nothing_for_it(
    client, learner, sample_content, django_assert_num_queries
):
    from tests.factories import make_cohort
    from tutor.assignments.models import Assignment

    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    cohort = make_cohort(students=[learner], name="Ms Rivera's class")
    now = timezone.now()
    Assignment.objects.create(
        cohort=cohort, lesson=lesson, opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    client.get(SEED)
    # The same as a learner in no class, and the assignments on the lesson (those that
    # show hidden tests once due, what is set) with the learner's standing on each (the
    # lesson's items, when each kind's was done, extensions).
    with django_assert_num_queries(20):
        page = client.get(SEED).text
    assert 'class="lesson-assignment' in page
    # Out of the class: no assignment, and none asked for.
    cohort.memberships.all().delete()
    with django_assert_num_queries(13):  # as for a learner in no class, above
        assert 'class="lesson-assignment' not in client.get(SEED).text


def test_an_edit_of_a_snippet_shows_at_once_to_a_learner_who_read_the_page(
    client, learner, sample_content
):
    assert "Compare backend latency across hardware." in client.get(SEED).text
    snippet = Snippet.objects.get(caption="Compare backend latency across hardware.")
    snippet.caption = "Compare latency, edited a moment ago."
    snippet.save()  # as the admin saves it: the content version moves on
    page = client.get(SEED).text
    assert "Compare latency, edited a moment ago." in page
    assert "Compare backend latency across hardware." not in page


def test_an_edit_in_the_admin_shows_at_once_to_a_learner_who_read_the_page(
    client, learner, sample_content, admin_client
):
    assert "Video RAM, renamed in the admin" not in client.get(SEED).text
    term = GlossaryTerm.objects.get(slug="vram")
    response = admin_client.post(
        reverse("admin:course_glossaryterm_change", args=[term.pk]),
        {
            "term": "Video RAM, renamed in the admin",
            "slug": "vram",
            "definition": term.definition,
            "see_also": list(term.see_also.values_list("pk", flat=True)),
        },
    )
    assert response.status_code == 302
    assert "Video RAM, renamed in the admin" in client.get(SEED).text


def test_a_reimport_shows_at_once_to_a_learner_who_read_the_page(
    client, learner, sample_content, settings, tmp_path
):
    assert "Compare backend latency across hardware." in client.get(SEED).text
    content = tmp_path / "content"
    shutil.copytree(Path(settings.BASE_DIR) / "content", content)
    lesson_file = content / "local-models" / "optimising-speed-and-memory.yaml"
    lesson_file.write_text(
        lesson_file.read_text().replace(
            "Compare backend latency across hardware.", "Compare latency, as re-imported."
        )
    )
    call_command("import_content", str(content), verbosity=0)
    page = client.get(SEED).text
    assert "Compare latency, as re-imported." in page
    assert "Compare backend latency across hardware." not in page


def test_a_new_prediction_shows_at_once_on_a_page_whose_content_is_loaded(
    client, learner, sample_content
):
    client.get(SEED)
    snippet = Snippet.objects.get(caption="Compare backend latency across hardware.")
    make_prediction(learner, snippet, text="a prediction made just now")
    assert "a prediction made just now" in client.get(SEED).text
