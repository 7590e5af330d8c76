"""The content admin keeps text exactly: saving a form as it was shown changes no row.

The forms are read from the rendered page and sent back as a browser would (WebTest:
every field as shown, a textarea's first line break after the tag dropped, and here its
line breaks sent as CRLF, as browsers send them).
"""

import re

import pytest
from django.urls import reverse

from course.kinds.code_exercise import CodeExercise, CodeTest
from course.kinds.ordering import OrderingExercise, OrderingLine
from course.kinds.snippet import Snippet
from course.models import (
    Block,
    Course,
    GlossaryTerm,
    Lesson,
)
from tests.factories import make_admin, make_ordering_attempt, make_prediction, make_user
from tutor.practice.code_exercise.models import Submission
from tutor.practice.ordering.actions import arrange_lines
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

SEED = "optimising-speed-and-memory"
# A browser sends every line break of a textarea (CR, LF or CRLF) as CRLF.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def content_rows() -> dict:
    """Every content row and many-to-many link, and the learners' work on it."""
    models = [
        Course,
        Lesson,
        Block,
        Snippet,
        OrderingExercise,
        OrderingLine,
        GlossaryTerm,
        Lesson.terms.through,
        OrderingLine.depends_on.through,
        GlossaryTerm.see_also.through,
        Prediction,
        OrderingAttempt,
        OrderingArrangement,
        CodeExercise,
        CodeTest,
        Submission,
    ]
    return {model._meta.label: list(model.objects.order_by("pk").values()) for model in models}


@pytest.fixture
def learner_work(sample_content):
    """A learner right first time on the seed's snippet, and part-way through its exercise."""
    learner = make_user()
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_prediction(learner, snippet)
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    make_ordering_attempt(learner, exercise, verdict=OrderingAttempt.Verdict.WRONG, order=["def"])
    arrange_lines(user=learner, exercise=exercise, order=["def", "return"], unused=[])
    return learner


def submit_as_shown(app, url: str, user):
    """Open the change form, send every field back as the page shows it, press Save."""
    page = app.get(url, user=user)
    form = next(form for form in page.forms.values() if "_save" in form.fields)
    textareas = 0
    for fields in form.fields.values():
        for field in fields:
            if field.tag == "textarea" and field.value:
                field.value = LINE_BREAK.sub("\r\n", field.value)
                textareas += 1
    response = form.submit("_save", user=user)
    assert response.status_code == 302, response.text[:3000]
    return textareas


def change_url(model: str, pk: int) -> str:
    return reverse(f"admin:course_{model}_change", args=[pk])


@pytest.mark.parametrize(
    "model, find",
    [
        ("lesson", lambda: Lesson.objects.get(slug=SEED)),
        ("snippet", lambda: Snippet.objects.get(block__key="kv-cache-vram")),
        ("snippet", lambda: Snippet.objects.get(block__key="backend-latency")),
        ("snippet", lambda: Snippet.objects.get(block__key="refused-request")),  # input, raises
        (
            "orderingexercise",
            lambda: OrderingExercise.objects.get(block__key="kv-cache-vram-order"),
        ),
        ("glossaryterm", lambda: GlossaryTerm.objects.get(slug="kv-cache")),
        ("course", lambda: Course.objects.get()),
    ],
)
def test_saving_an_unchanged_admin_form_changes_no_row(django_app, learner_work, model, find):
    before = content_rows()
    version = Snippet.objects.get(block__key="kv-cache-vram").version

    textareas = submit_as_shown(django_app, change_url(model, find().pk), make_admin())

    assert textareas, "the form has text to keep"
    assert content_rows() == before
    assert Snippet.objects.get(block__key="kv-cache-vram").version == version
    prediction = Prediction.objects.get(user=learner_work)
    assert prediction.is_first and prediction.verdict == Prediction.Verdict.RIGHT


def test_a_lone_cr_or_crlf_from_the_files_survives_an_unchanged_save(django_app, sample_content):
    snippet = Snippet.objects.get(block__key="backend-latency")
    Snippet.objects.filter(pk=snippet.pk).update(
        code="print('a\\rb')\r\nprint()\n", caption="two\nlines", expected_output="a\rb\r\n\n"
    )
    before = content_rows()

    submit_as_shown(django_app, change_url("snippet", snippet.pk), make_admin())

    assert content_rows() == before


def test_edited_code_keeps_its_leading_empty_lines_and_indentation(django_app, learner_work):
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    admin = make_admin()
    form = django_app.get(change_url("snippet", snippet.pk), user=admin).forms["snippet_form"]
    form["code"] = "\r\n\r\n    x = 1  \r\nprint(x)\t\r\n"
    form["expected_output"] = "\r\n1\r\n\r\n"
    form["caption"] = "  Spaced caption  "
    form.submit("_save", user=admin)

    snippet.refresh_from_db()
    assert snippet.code == "\n\n    x = 1  \nprint(x)\t\n"
    assert snippet.expected_output == "\n1\n\n"
    assert snippet.caption == "  Spaced caption  "
    assert snippet.version == 2
    # The learner's first prediction was on version 1, and still counts for it.
    assert Prediction.objects.get(user=learner_work).snippet_version == 1


def test_an_edited_ordering_line_keeps_its_indentation(django_app, sample_content):
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    line = exercise.lines.get(key="return")
    admin = make_admin()
    form = django_app.get(change_url("orderingexercise", exercise.pk), user=admin).forms[
        "orderingexercise_form"
    ]
    index = next(n for n in range(20) if form[f"lines-{n}-key"].value == "return")
    form[f"lines-{index}-text"] = "        return bits * capacity / 1024  # GiB"
    form.submit("_save", user=admin)

    line.refresh_from_db()
    assert line.text == "        return bits * capacity / 1024  # GiB"


def test_the_admin_keeps_a_snippets_input_and_refuses_a_raises_that_names_no_exception(
    django_app, sample_content
):
    snippet = Snippet.objects.get(block__key="refused-request")
    admin = make_admin()
    form = django_app.get(change_url("snippet", snippet.pk), user=admin).forms["snippet_form"]
    form["raises"] = "a 401 error"
    page = form.submit("_save", user=admin)
    assert page.status_code == 200
    assert "&#x27;a 401 error&#x27; is not an exception&#x27;s name" in page.text

    form = page.forms["snippet_form"]
    form["raises"] = "PermissionError"
    form["stdin"] = "\r\n  change-me-7f3a  \r\n"
    assert form.submit("_save", user=admin).status_code == 302
    snippet.refresh_from_db()
    assert (snippet.stdin, snippet.raises, snippet.version) == (
        "\n  change-me-7f3a  \n",
        "PermissionError",
        2,
    )
