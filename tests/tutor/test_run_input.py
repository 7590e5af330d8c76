"""Run with an input box, and a failed run explained in plain words next to its traceback:
as a full page (plain POST, no JavaScript) and as the htmx partial."""

import pytest
from django.urls import reverse

from tests.factories import make_prediction, make_run, make_snippet
from tutor.actions.runs import execute_run
from tutor.models import Run

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
GREET = 'name = input()\nprint("Hello,", name)\n'


@pytest.fixture
def snippet(learner):
    snippet = make_snippet(code=GREET, expected_output="Hello, Ada\n", stdin="Ada\n", key="greet")
    make_prediction(learner, snippet)  # revealed: the code is the learner's to run
    return snippet


def run(client, snippet, code=GREET, stdin="", **headers):
    return client.post(
        reverse("tutor:run_create", args=[snippet.pk]), {"code": code, "stdin": stdin}, **headers
    )


def run_and_show(client, snippet, **kwargs) -> str:
    """Run through the worker's code path and show the result as htmx polls it."""
    run(client, snippet, **kwargs, **HX)
    queued = Run.objects.filter(purpose=Run.Purpose.RUN).latest("pk")
    execute_run(run_id=queued.pk)
    return client.get(reverse("tutor:run_detail", args=[queued.pk]), **HX).content.decode()


def explanation(html: str) -> str:
    return html.split('class="run-explanation ')[1].split("</div>")[0]


def test_the_run_form_has_an_input_box_holding_the_snippets_input(client, snippet):
    html = client.get(snippet.block.lesson.get_absolute_url()).content.decode()
    form = html.split('class="run-form"')[1].split("</form>")[0]
    assert '<label class="stdin-label" for="snippet-greet-stdin">Input' in form
    assert 'name="stdin"' in form
    assert ">\nAda\n</textarea>" in form


def test_what_is_typed_in_the_input_box_is_the_programs_input(client, snippet):
    html = run_and_show(client, snippet, stdin="Grace\r\nHopper\r\n")
    assert Run.objects.get(purpose=Run.Purpose.RUN).stdin == "Grace\nHopper\n"
    assert "Hello, Grace" in html
    assert "run-explanation" not in html


def test_without_javascript_the_run_keeps_its_input_on_the_page(client, snippet):
    response = run(client, snippet, stdin="Grace\n")
    queued = Run.objects.get(purpose=Run.Purpose.RUN)
    assert response["Location"].endswith(f"?run={queued.pk}#snippet-greet")
    execute_run(run_id=queued.pk)

    html = client.get(response["Location"]).content.decode()

    assert "Hello, Grace" in html.split('id="snippet-greet-output"')[1]
    assert ">\nGrace\n</textarea>" in html.split('class="run-form"')[1]


def test_input_without_any_input_is_explained_next_to_the_traceback(client, snippet):
    html = run_and_show(client, snippet, stdin="")

    said = explanation(html)
    assert "Your program waited for input" in said
    assert "It called input() on line 1 to read a line, but no input was given." in said
    assert "Type what it should read in the Input box" in said
    traceback = html.split('aria-label="Errors">')[1].split("</pre>")[0]
    assert traceback.strip().endswith("EOFError: EOF when reading a line")
    assert html.index("run-explanation") < html.index('aria-label="Errors"')


def test_without_javascript_the_explanation_is_on_the_page(client, snippet):
    response = run(client, snippet, stdin="")
    execute_run(run_id=Run.objects.get(purpose=Run.Purpose.RUN).pk)
    html = client.get(response["Location"]).content.decode()
    assert "but no input was given" in explanation(html.split('id="snippet-greet-output"')[1])


def test_a_syntax_error_is_explained_with_its_line(client, snippet):
    html = run_and_show(
        client, snippet, code='name = input(\nprint("Hello,", name)\n', stdin="Ada\n"
    )
    said = explanation(html)
    assert "Python couldn&#x27;t read your program: a SyntaxError on line 1" in said
    assert "nothing ran" in said


@pytest.mark.parametrize(
    "status, words",
    [
        (Run.Status.TIMEOUT, ["Too slow", "compute for 2 seconds and take 3 seconds in all"]),
        (Run.Status.MEMORY, ["Too much memory", "may use 128 MiB of memory"]),
        (Run.Status.OUTPUT_LIMIT, ["Too much output", "may print 8 KiB"]),
    ],
)
def test_a_run_stopped_at_a_limit_is_explained_with_the_limit(client, learner, status, words):
    snippet = make_snippet(
        code="print(1)\n",
        key="limited",
        run_limits={"cpu_seconds": 2, "wall_seconds": 3, "memory_mb": 128, "output_kb": 8},
    )
    make_prediction(learner, snippet)
    stopped = make_run(snippet, user=learner, status=status, duration_ms=3000)

    html = client.get(reverse("tutor:run_detail", args=[stopped.pk]), **HX).content.decode()

    said = explanation(html)
    for word in words:
        assert word in said


def test_a_too_long_input_is_refused_clearly(client, snippet):
    response = run(client, snippet, stdin="x" * 20_001, **HX)
    assert response.status_code == 400
    assert "That input is too long" in response.content.decode()
    assert not Run.objects.filter(purpose=Run.Purpose.RUN).exists()
