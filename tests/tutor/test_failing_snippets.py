"""Snippets that read input and fail on purpose: predict the output and the error, reveal
both the way a learner reads them."""

import pytest
from django.urls import reverse

from course.kinds.snippet import Snippet
from tests.factories import make_snippet
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
PRINTED = "200 OK /health\nAsking the model with the key from the input...\n"
ERROR = "PermissionError: 401 Unauthorized: wrong or missing API key"


@pytest.fixture
def refused(sample_content) -> Snippet:
    """The sample course's snippet that reads a key from its input and stops on a 401."""
    return Snippet.objects.get(block__key="refused-request")


def reveal(client, snippet, text: str) -> str:
    """Predict, let the worker run the reveal, and show the answer (as htmx polls it)."""
    client.post(
        reverse("tutor:prediction_create", args=[snippet.pk]), {"text": text, "mode": "typed"}, **HX
    )
    run = Run.objects.get(purpose=Run.Purpose.REVEAL, snippet=snippet)
    execute_run(run_id=run.pk)
    prediction = Prediction.objects.get(snippet=snippet)
    return client.get(
        reverse("tutor:prediction_detail", args=[prediction.pk]), **HX
    ).content.decode()


def test_the_lesson_shows_the_input_a_snippet_reads(client, learner, refused):
    html = client.get(refused.block.lesson.get_absolute_url()).content.decode()
    block = html.split('id="snippet-refused-request"')[1]
    assert "Its input, what <code>input()</code> reads:" in block
    assert "change-me-7f3b" in block


def test_the_reveal_runs_the_snippet_fed_its_input(client, learner, refused):
    reveal(client, refused, PRINTED + "PermissionError")
    run = Run.objects.get(purpose=Run.Purpose.REVEAL)
    assert run.stdin == "change-me-7f3b\n"
    assert run.stdout == PRINTED


def test_output_then_the_errors_name_is_spot_on(client, learner, refused):
    html = reveal(client, refused, PRINTED + "PermissionError")

    assert Prediction.objects.get().verdict == Prediction.Verdict.RIGHT
    assert "Spot on" in html
    # The error as a learner reads it: their own frames and the last line, nothing around them.
    traceback = html.split('aria-label="The error it stops with">')[1].split("</pre>")[0]
    assert "File &quot;main.py&quot;, line 16, in &lt;module&gt;" in traceback
    assert "File &quot;main.py&quot;, line 9, in send" in traceback
    assert traceback.strip().endswith(ERROR)
    assert "/usr/" not in traceback and "sandbox" not in traceback


def test_a_prediction_that_misses_the_error_is_not_right_and_says_why(client, learner, refused):
    html = reveal(client, refused, PRINTED + "Answer received")

    assert Prediction.objects.get().verdict == Prediction.Verdict.WRONG
    assert "It stops with an error: end your prediction with the error&#x27;s name" in html
    assert "(<code>PermissionError</code>)" in html
    error_row = html.split('class="line line-wrong line-error"')[1].split("</tr>")[0]
    assert ERROR in error_row and "Answer received" in error_row


def test_library_frames_are_left_out_of_the_reveal(client, learner):
    snippet = make_snippet(
        code='import json\n\nprint("parsing")\njson.loads("{")\n',
        expected_output="parsing\n",
        raises="JSONDecodeError",
    )
    html = reveal(client, snippet, "parsing\nJSONDecodeError")

    assert Prediction.objects.get().verdict == Prediction.Verdict.RIGHT
    traceback = html.split('aria-label="The error it stops with">')[1].split("</pre>")[0]
    assert "File &quot;main.py&quot;, line 4" in traceback
    assert "json/" not in traceback and "decoder.py" not in traceback
    assert "json.decoder.JSONDecodeError: Expecting property name" in traceback


def test_changing_the_input_is_a_new_version_with_a_reveal_of_its_own(client, learner, refused):
    reveal(client, refused, PRINTED + "PermissionError")
    refused.stdin = "change-me-7f3a\n"
    refused.save()
    assert refused.version == 2

    html = client.get(refused.block.lesson.get_absolute_url()).content.decode()
    panel = html.split('id="snippet-refused-request-practice"')[1].split(
        'id="snippet-llama-server'
    )[0]
    assert "What will it print?" in panel  # the learner predicts the new version afresh
    client.post(
        reverse("tutor:prediction_create", args=[refused.pk]),
        {"text": "200 OK /health", "mode": "typed"},
        **HX,
    )
    new = Run.objects.filter(purpose=Run.Purpose.REVEAL).order_by("-pk").first()
    assert new.stdin == "change-me-7f3a\n"
    assert Run.objects.filter(purpose=Run.Purpose.REVEAL).count() == 2


def test_changing_only_the_declared_output_or_exception_keeps_the_version(refused):
    refused.expected_output = "something else\n"
    refused.raises = "KeyError"
    refused.save()
    assert refused.version == 1


def test_the_snippets_teaching_text_is_on_the_page(client, refused):
    html = client.get(refused.block.lesson.get_absolute_url()).content.decode()
    block = html.split('id="snippet-refused-request"')[1].split('<figure class="snippet">')[0]
    assert "A refused request should stop the client" in block
