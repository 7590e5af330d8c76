"""Runs in the learner's own browser, reported to the server in batches (static/js/
browser-run.js): kept as Runs flagged `in_browser` for the trail and the teacher, refused
when they are not the learner's to report, and never a verdict."""

import json

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import make_lesson, make_prediction, make_snippet, make_user
from tutor.models import LessonProgress, Run
from tutor.practice.snippet.forms import MAX_BROWSER_RUNS
from tutor.practice.snippet.models import Prediction
from tutor.trail.models import Trail

pytestmark = pytest.mark.django_db

CODE = 'print("hi")\n'


@pytest.fixture
def snippet():
    return make_snippet(code=CODE, expected_output="hi\n", key="hi")


@pytest.fixture
def learner(client):
    user = make_user("ada")
    client.force_login(user)
    return user


def revealed(user, snippet):
    return make_prediction(user, snippet, text="hi\n", verdict=Prediction.Verdict.RIGHT)


def a_run(**fields):
    return {"code": 'print("mine")\n', "stdin": "", "stdout": "mine\n", "stderr": "",
            "status": "ok", "exit_code": 0, "duration_ms": 3, "truncated": False, **fields}  # fmt: skip


def report(client, snippet, runs):
    return client.post(
        reverse("tutor:browser_runs_record", args=[snippet.pk]),
        {"runs": runs if isinstance(runs, str) else json.dumps(runs)},
    )


def test_a_batch_is_kept_as_finished_runs_flagged_as_run_in_the_browser(client, learner, snippet):
    revealed(learner, snippet)
    runs = [a_run(), a_run(code="print(1/0)\n", stdout="", stderr="ZeroDivisionError\n", status="error", exit_code=1)]
    response = report(client, snippet, runs)
    assert response.status_code == 200
    kept = Run.objects.filter(user=learner, snippet=snippet).order_by("pk")
    assert response.json() == {"recorded": [run.pk for run in kept]}
    assert [(run.in_browser, run.purpose, run.status, run.stdout) for run in kept] == [
        (True, "run", "ok", "mine\n"), (True, "run", "error", ""),
    ]
    assert all(run.is_final and run.code_hash for run in kept)


def test_the_trail_and_the_run_count_show_the_browser_runs(client, learner, snippet):
    revealed(learner, snippet)
    report(client, snippet, [a_run(), a_run()])
    trail = Trail.objects.get(user=learner, block=snippet.block)
    assert trail.runs == 2
    assert [mark[1] for mark in trail.marks] == ["brun", "brun"]
    assert LessonProgress.objects.get(user=learner, lesson=snippet.block.lesson).runs == 2


def test_a_browser_run_decides_nothing_not_even_the_first_prediction(client, learner, snippet):
    """Reporting the snippet's own code with its right output reveals nothing and counts
    no prediction: the server's reveal is the only answer."""
    other = make_snippet(lesson=snippet.block.lesson, code=CODE, expected_output="hi\n", key="other")
    revealed(learner, snippet)
    report(client, snippet, [a_run(code=CODE, stdout="hi\n")])
    assert not Prediction.objects.filter(snippet=other).exists()
    assert not Run.objects.filter(purpose=Run.Purpose.REVEAL, in_browser=True).exists()


def test_browser_runs_do_not_use_up_the_servers_run_allowance(client, learner, snippet, settings):
    settings.RUNS_PER_MINUTE = 2
    revealed(learner, snippet)
    report(client, snippet, [a_run(), a_run(), a_run()])
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]), {"code": CODE, "stdin": ""},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200


# Refusals -----------------------------------------------------------------------------


def test_anonymous_cannot_report_runs(client, snippet):
    response = report(client, snippet, [a_run()])
    assert response.status_code == 302
    assert not Run.objects.exists()


def test_a_get_is_not_allowed(client, learner, snippet):
    assert client.get(reverse("tutor:browser_runs_record", args=[snippet.pk])).status_code == 405


def test_without_the_csrf_token_the_report_is_refused(learner, snippet):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    revealed(learner, snippet)
    assert report(client, snippet, [a_run()]).status_code == 403
    assert not Run.objects.exists()


def test_before_the_reveal_there_is_nothing_to_report(client, learner, snippet):
    response = report(client, snippet, [a_run()])
    assert response.status_code == 403
    assert not Run.objects.exists()


def test_a_snippet_of_a_draft_lesson_is_not_found(client, learner):
    hidden = make_snippet(lesson=make_lesson(status="draft"), code=CODE, key="draft")
    revealed(learner, hidden)
    assert report(client, hidden, [a_run()]).status_code == 404
    assert report(client, type("S", (), {"pk": 99999})(), [a_run()]).status_code == 404


@pytest.mark.parametrize(
    "runs",
    [
        "not json",
        "[]",
        "{}",
        json.dumps(["a run"]),
        [a_run()] * (MAX_BROWSER_RUNS + 1),
        [a_run(code="   ")],
        [a_run(code="x" * 20_001)],
        [a_run(stdin="x" * 20_001)],
        [a_run(stdout="x" * (64 * 1024 + 1))],
        [a_run(stdout="x" * (40 * 1024), stderr="y" * (30 * 1024))],
        [a_run(status="queued")],
        [a_run(status="failed")],
        [a_run(status="running")],
        [a_run(exit_code="0")],
        [a_run(exit_code=True)],
        [a_run(duration_ms=-1)],
        [a_run(duration_ms=None)],
        [a_run(code=7)],
    ],
    ids=lambda runs: (runs if isinstance(runs, str) else json.dumps(runs))[:40],
)
def test_a_report_that_is_not_a_browser_runs_is_refused_and_nothing_is_kept(
    client, learner, snippet, runs
):
    revealed(learner, snippet)
    response = report(client, snippet, runs)
    assert response.status_code == 400
    assert response.json()["error"]
    assert not Run.objects.exists()


def test_an_oversized_report_is_refused(client, learner, snippet):
    revealed(learner, snippet)
    response = report(client, snippet, "x" * 2_000_001)
    assert response.status_code == 413
    assert not Run.objects.exists()


def test_more_runs_a_minute_than_parsnip_records_are_refused(client, learner, snippet, settings):
    settings.BROWSER_RUNS_PER_MINUTE = 3
    revealed(learner, snippet)
    assert report(client, snippet, [a_run(), a_run()]).status_code == 200
    response = report(client, snippet, [a_run(), a_run()])
    assert response.status_code == 429
    assert "in a minute" in response.json()["error"]
    assert Run.objects.count() == 2


def test_another_learners_snippet_run_cannot_be_reported_for_them(client, learner, snippet):
    """The runs are always the logged-in learner's: a report names no user."""
    other = make_user("grace")
    revealed(learner, snippet)
    report(client, snippet, [a_run() | {"user": other.pk}])
    assert list(Run.objects.values_list("user", flat=True)) == [learner.pk]


# The page and the Python it loads ------------------------------------------------------


def test_the_run_form_carries_what_running_in_the_browser_needs(client, learner, snippet, python_in_browser):
    revealed(learner, snippet)
    html = client.get(snippet.block.lesson.get_absolute_url()).text
    assert f'data-browser-record="{reverse("tutor:browser_runs_record", args=[snippet.pk])}"' in html
    assert "vendor/pyodide-" in html and "python-worker.js" in html
    assert "&quot;cpu_seconds&quot;: 5" in html  # the snippet's limits, as the sandbox's
    assert 'class="button stop-button"' in html and "browser-output-template" in html


def test_with_running_in_the_browser_off_the_form_has_none_of_it(client, learner, snippet):
    revealed(learner, snippet)
    html = client.get(snippet.block.lesson.get_absolute_url()).text
    assert "data-browser-worker" not in html


def test_the_page_costs_the_same_queries_for_one_snippet_or_many(
    client, learner, snippet, python_in_browser
):
    revealed(learner, snippet)
    url = snippet.block.lesson.get_absolute_url()
    client.get(url)
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    for n in range(3):
        revealed(learner, make_snippet(lesson=snippet.block.lesson, code=CODE, key=f"more-{n}"))
    client.get(url)  # the lesson's content, cached again
    with CaptureQueriesContext(connection) as four:
        client.get(url)
    assert len(four) == len(one)


def test_the_browsers_python_is_the_servers_runner_and_explanations(client):
    from tutor.practice.snippet.browser import browser_python

    response = client.get(reverse("tutor:browser_python"), {"l": "en"})
    files = response.json()
    assert files["tutor/feedback.py"] == (settings.BASE_DIR / "tutor/feedback.py").read_text()
    assert files["tutor/sandbox/in_browser.py"].startswith('"""Run a learner')
    assert "immutable" not in response.get("Cache-Control", "")
    cached = client.get(reverse("tutor:browser_python"), {"l": "en", "v": browser_python("en")[1]})
    assert "immutable" in cached["Cache-Control"]


def test_the_browsers_explanations_have_every_message_in_each_language():
    from tutor.practice.snippet.browser import feedback_messages

    words = {language: feedback_messages(language) for language, _name in settings.LANGUAGES}
    english = words["en"]
    assert "Your program stopped with an error on line %(line)s" in english["messages"]
    assert "%(seconds)s second" in english["plurals"]
    for language, served in words.items():
        assert served["messages"].keys() == english["messages"].keys(), language
        assert served["plurals"].keys() == english["plurals"].keys(), language
        assert all(served["messages"].values()), language
    assert words["es"]["messages"] != english["messages"]
    assert words["de"]["messages"] != english["messages"]
    # Spanish has a third form, for the millions.
    assert words["es"]["plurals"]["%(seconds)s second"] == [
        "%(seconds)s segundo",
        "%(seconds)s segundos",
        "%(seconds)s segundos",
    ]


def test_the_page_asks_for_the_browsers_python_in_its_language(
    client, learner, snippet, python_in_browser
):
    from tutor.practice.snippet.browser import browser_python

    revealed(learner, snippet)
    client.post(reverse("tutor:set_language"), {"language": "de", "next": "/"})
    page = client.get(snippet.block.lesson.get_absolute_url()).content.decode()
    url = f"{reverse('tutor:browser_python')}?l=de&amp;v={browser_python('de')[1]}"
    assert url in page
    german = client.get(reverse("tutor:browser_python"), {"l": "de", "v": browser_python("de")[1]})
    assert "immutable" in german["Cache-Control"]
    words = json.loads(german.json()["tutor/feedback_messages.json"])
    assert (
        words["messages"]["Your program stopped with an error"]
        == "Dein Programm ist mit einem Fehler abgebrochen"
    )
    assert browser_python("de")[1] != browser_python("en")[1]


def test_the_browsers_python_explains_in_the_pages_language_without_django(tmp_path):
    """What the worker does: the served files in Python's files, Django absent."""
    import subprocess
    import sys

    from tutor.practice.snippet.browser import browser_python

    for path, text in json.loads(browser_python("de")[0]).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    script = (
        "import sys; sys.modules['django'] = None\n"
        "from tutor import feedback\n"
        "from tutor.sandbox import Limits\n"
        'stderr = \'Traceback (most recent call last):\\n  File "main.py", line 2, in <module>\\n'
        "NameError: name \\'x\\' is not defined\\n'\n"
        "why = feedback.explain_run(status='error', stderr=stderr, exit_code=1, stdin='', limits=Limits())\n"
        "print(why.title)\n"
        "slow = feedback.explain_run(status='timeout', stderr='', exit_code=None, stdin='', limits=Limits(cpu_seconds=1, wall_seconds=3))\n"
        "print(slow.text)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    title, slow = done.stdout.splitlines()[:2]
    assert title == "Dein Programm ist in Zeile 2 mit einem Fehler abgebrochen"
    assert "1 Sekunde" in slow and "3 Sekunden" in slow
