"""Step-through pages and POSTs: start from a snippet, a run, a failed test; each step's
page and its htmx region; the slider; the "reached" POST; refusals, other learners,
anonymous readers; a fixed number of queries per step.

Traces here are written by hand in the tracer's format (tests/tutor/stepping_data.py),
so every page can be shown without a worker; tests/tutor/test_stepping_worker.py traces
for real, through the queue and the worker."""

import pytest
from django.urls import reverse

from tests.factories import make_learner_run, make_prediction, make_run, make_snippet, make_user
from tests.tutor.stepping_data import (
    ALIASING_CODE,
    NESTING_CODE,
    aliasing_trace,
    nesting_trace,
    printing_trace,
)
from tutor import queueing
from tutor.models import Run
from tutor.practice.snippet.models import Prediction
from tutor.practice.stepping.models import Stepping, Trace

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def no_worker(monkeypatch):
    queued = []
    monkeypatch.setattr(queueing, "enqueue_run", queued.append)
    return queued


def traced(code: str, data: dict, stdin: str = "") -> Trace:
    """A trace the worker has finished."""
    run = make_run(code=code, stdin=stdin, purpose=Run.Purpose.TRACE)
    trace = Trace(code=code, stdin=stdin, run=run)
    trace.keep(data)
    trace.save()
    return trace


def stepping_of(user, trace: Trace, **fields) -> Stepping:
    fields.setdefault("origin", Stepping.Origin.SNIPPET)
    return Stepping.objects.create(user=user, trace=trace, **fields)


def step_url(stepping, number) -> str:
    return reverse("tutor:step_detail", args=[stepping.pk, number])


# Starting ------------------------------------------------------------------------------


def test_step_through_a_snippet_after_its_reveal_queues_one_trace_and_opens_it(
    client, learner, no_worker, django_capture_on_commit_callbacks
):
    snippet = make_snippet(code="print(1)\n")
    make_prediction(learner, snippet, text="1\n")
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="1\n")
    url = reverse("tutor:stepping_snippet", args=[snippet.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url)
    stepping = Stepping.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("tutor:stepping_detail", args=[stepping.pk])
    trace = stepping.trace
    assert (trace.code, trace.run.purpose, trace.run.user) == (
        "print(1)\n",
        Run.Purpose.TRACE,
        learner,
    )
    assert no_worker == [trace.run.pk]
    # The same code and input again (another learner too): the same trace, no new run.
    other = make_user()
    make_prediction(other, snippet, text="1\n")
    client.force_login(other)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, **HX)
    assert Trace.objects.count() == 1 and len(no_worker) == 1
    assert Stepping.objects.count() == 2


def test_a_click_from_the_panel_takes_the_whole_page_to_the_stepping(client, learner, no_worker):
    snippet = make_snippet()
    make_prediction(learner, snippet)
    response = client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]), **HX)
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse(
        "tutor:stepping_detail", args=[Stepping.objects.get().pk]
    )


def test_before_the_reveal_stepping_is_refused(client, learner, no_worker):
    snippet = make_snippet()
    response = client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]), **HX)
    assert response.status_code == 403
    assert response["HX-Retarget"] == f"#snippet-{snippet.block.key}-message"
    assert "reveal the answer first" in response.content.decode()
    assert not Stepping.objects.exists() and not Trace.objects.exists()


def test_a_wrong_prediction_is_kept_to_open_at_the_first_difference(client, learner, no_worker):
    snippet = make_snippet(code="print()\nprint('a')\n", expected_output="\na\n")
    make_prediction(learner, snippet, text="a\n", verdict=Prediction.Verdict.WRONG)
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="\na\n")
    client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]))
    assert Stepping.objects.get().prediction == "a\n"


def test_step_through_the_learners_own_run(client, learner, no_worker):
    snippet = make_snippet()
    make_prediction(learner, snippet)
    run = make_learner_run(learner, snippet, code="x = 2\nprint(x)\n", stdin="")
    client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]), {"run": run.pk})
    stepping = Stepping.objects.get()
    assert (stepping.origin, stepping.trace.code) == (Stepping.Origin.OWN, "x = 2\nprint(x)\n")


@pytest.mark.parametrize("value", ["abc", "-1", "0"])
def test_a_bad_run_number_is_refused_clearly(client, learner, no_worker, value):
    snippet = make_snippet()
    make_prediction(learner, snippet)
    response = client.post(
        reverse("tutor:stepping_snippet", args=[snippet.pk]), {"run": value}, **HX
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == f"#snippet-{snippet.block.key}-message"
    assert not Stepping.objects.exists()


def test_another_learners_run_is_refused(client, learner, no_worker):
    snippet = make_snippet()
    make_prediction(learner, snippet)
    theirs = make_learner_run(make_user(), snippet)
    response = client.post(
        reverse("tutor:stepping_snippet", args=[snippet.pk]), {"run": theirs.pk}, **HX
    )
    assert response.status_code == 400
    assert "not one of yours" in response.content.decode()


def test_stepping_is_rate_limited_like_runs(client, learner, no_worker, settings):
    settings.RUNS_PENDING_MAX = 1
    snippet = make_snippet()
    make_prediction(learner, snippet)
    Run.objects.create(user=learner, code="x", status=Run.Status.QUEUED)
    response = client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]), **HX)
    assert response.status_code == 429
    assert "waiting for a worker" in response.content.decode()
    # Without JavaScript: back to the snippet, with the reason at the top.
    response = client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]))
    assert response.status_code == 302 and f"#snippet-{snippet.block.key}" in response.url


def test_anonymous_readers_are_sent_to_log_in(client):
    snippet = make_snippet()
    response = client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]))
    assert response.status_code == 302 and "/login" in response.url.lower()
    trace = traced(ALIASING_CODE, aliasing_trace())
    stepping = stepping_of(make_user(), trace)
    for url in (step_url(stepping, 1), reverse("tutor:stepping_detail", args=[stepping.pk])):
        response = client.get(url)
        assert response.status_code == 302 and "next=" in response.url
        assert client.get(url, **HX)["HX-Redirect"].startswith(reverse("login"))


def test_a_get_cannot_start_stepping(client, learner):
    snippet = make_snippet()
    assert client.get(reverse("tutor:stepping_snippet", args=[snippet.pk])).status_code == 405


# Waiting for the trace -------------------------------------------------------------------


def test_while_the_worker_traces_the_page_waits_and_polls(client, learner, no_worker):
    snippet = make_snippet()
    make_prediction(learner, snippet)
    client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]))
    stepping = Stepping.objects.get()
    url = reverse("tutor:stepping_detail", args=[stepping.pk])
    page = client.get(url).content.decode()
    assert "Tracing the program" in page
    assert '<meta http-equiv="refresh"' in page  # without JavaScript, it asks again itself
    partial = client.get(url, **HX).content.decode()
    assert partial.lstrip().startswith('<section id="stepping-waiting"') and "hx-get" in partial


def test_once_traced_the_stepping_opens_at_its_first_step(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    url = reverse("tutor:stepping_detail", args=[stepping.pk])
    assert client.get(url).url == step_url(stepping, 1)
    assert client.get(url, **HX)["HX-Redirect"] == step_url(stepping, 1)


def test_a_wrong_prediction_opens_at_the_first_differing_step(client, learner):
    trace = traced("print()\nprint('a')\n", printing_trace(["", "a"]))
    stepping = stepping_of(learner, trace, prediction="a\n")
    assert client.get(reverse("tutor:stepping_detail", args=[stepping.pk])).url == step_url(
        stepping, 2
    )


def test_a_trace_the_worker_lost_can_be_tried_again(
    client, learner, no_worker, django_capture_on_commit_callbacks
):
    run = make_run(code="print(1)\n", purpose=Run.Purpose.TRACE, status=Run.Status.FAILED)
    trace = Trace.objects.create(code="print(1)\n", run=run)
    stepping = stepping_of(learner, trace)
    page = client.get(reverse("tutor:stepping_detail", args=[stepping.pk])).content.decode()
    assert "couldn't trace this program" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("tutor:stepping_retry", args=[stepping.pk]))
    assert response.status_code == 302
    trace.refresh_from_db()
    assert trace.run_id != run.pk and no_worker == [trace.run_id]


def test_a_program_python_cannot_read_says_so(client, learner):
    data = {
        "version": 1,
        "status": "syntax_error",
        "stopped": None,
        "error": {"line": 1, "message": "invalid syntax"},
        "stdout": "",
        "steps": [],
    }
    stepping = stepping_of(learner, traced("print(\n", data))
    page = client.get(reverse("tutor:stepping_detail", args=[stepping.pk])).content.decode()
    assert "Python could not read this program: line 1: invalid syntax." in page
    assert "hx-get" not in page.split('id="stepping-waiting"')[1][:200]  # no polling


# The step pages --------------------------------------------------------------------------


def test_each_step_is_a_page_that_works_without_javascript(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    page = client.get(step_url(stepping, 3)).content.decode()
    assert "<title>Step through" in page
    assert 'Step 3 <span class="muted">of 6</span>' in page
    # Plain links to the neighbours and the ends, and a GET form for the slider.
    for number in (1, 2, 4, 6):
        assert f'href="{step_url(stepping, number)}"' in page
    assert f'action="{reverse("tutor:step_goto", args=[stepping.pk])}" method="get"' in page
    assert 'type="range" name="step" min="1" max="6" value="3"' in page
    # The line about to run and the line just run, marked in words too.
    assert (
        'aria-current="step"' in page
        and "runs next: </span>" in page
        and "just ran: </span>" in page
    )
    # Two names, one list: two pointers and two arrows to the same box.
    assert page.count('href="#object-1"') == 2 and page.count('class="arrow"') == 2
    assert 'id="object-1"' in page
    assert "`items` and `copy` name the same list." in page  # the screen reader's words
    assert 'aria-live="polite"' in page


def test_a_german_page_describes_the_step_in_german_for_a_screen_reader(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    page = client.get(step_url(stepping, 3), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    description = page.split('id="step-description">')[1].split("</p>")[0]
    assert description == (
        "Schritt 3 von 6. Zeile 2 wurde ausgeführt; als Nächstes kommt Zeile 3. "
        "`copy` ist jetzt eine Liste mit 2 Elementen. "
        "`items` und `copy` benennen dasselbe Objekt (Liste)."
    )
    # The box counts its items in German too.
    assert "· 2 Elemente</span>" in page


def test_objects_that_point_at_objects_are_joined_by_arrows_in_their_gutter(client, learner):
    stepping = stepping_of(learner, traced(NESTING_CODE, nesting_trace()))
    page = client.get(step_url(stepping, 1)).content.decode()
    gutter = page[page.index('class="memory-arrows memory-links"') :].split("</svg>")[0]
    titles = ["#1[0] → #2", "#1[1] → #3", "#3[&#x27;a&#x27;] → #2", "#4.next → #4"]
    assert all(f"<title>{title}</title>" in gutter for title in titles), gutter
    assert gutter.count('class="arrow"') == 4
    # the pointers stay in the boxes, for a phone (no arrows) and a screen reader
    assert page.count('href="#object-2"') == 2 and page.count('href="#object-4"') == 2


def test_with_htmx_only_the_step_region_comes_and_its_url_is_pushed(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    response = client.get(step_url(stepping, 2), **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="step-region"')
    assert "<title>Step through" not in html and "site-header" not in html
    assert response["HX-Push-Url"] == step_url(stepping, 2)
    # The screen reader's words go to the live region, which stays in the page.
    assert '<span id="step-description" hx-swap-oob="innerHTML">' in html
    assert "HX-Request" in response["Vary"]


def test_the_first_and_last_steps_have_no_link_beyond_them(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    first = client.get(step_url(stepping, 1)).content.decode()
    assert "data-step-previous" not in first and "data-step-next" in first
    last = client.get(step_url(stepping, 6)).content.decode()
    assert "data-step-next" not in last and "data-step-previous" in last
    assert "Output so far" in last and "7\n</pre>" in last


def test_a_step_beyond_the_trace_is_not_found(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    assert client.get(step_url(stepping, 7)).status_code == 404
    assert client.get(step_url(stepping, 0)).status_code == 404


def test_a_stopped_trace_says_why_at_its_last_step(client, learner):
    data = printing_trace(["a", "b"], stopped={"reason": "steps", "message": "", "step": 2})
    stepping = stepping_of(learner, traced("print('a')\nprint('b')\n", data))
    assert "Stopped early." in client.get(step_url(stepping, 3)).content.decode()
    assert "Stopped early." not in client.get(step_url(stepping, 2)).content.decode()


def test_another_learners_stepping_is_not_found(client, learner):
    stepping = stepping_of(make_user(), traced(ALIASING_CODE, aliasing_trace()))
    assert client.get(step_url(stepping, 1)).status_code == 404
    assert client.get(reverse("tutor:stepping_detail", args=[stepping.pk])).status_code == 404
    goto = reverse("tutor:step_goto", args=[stepping.pk])
    assert client.get(goto, {"step": 1}).status_code == 404
    assert (
        client.post(reverse("tutor:stepping_reached", args=[stepping.pk]), {"step": 1}).status_code
        == 404
    )
    assert client.post(reverse("tutor:stepping_retry", args=[stepping.pk])).status_code == 404


# The slider -------------------------------------------------------------------------------


def test_the_slider_goes_to_the_steps_own_url(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    goto = reverse("tutor:step_goto", args=[stepping.pk])
    assert client.get(goto, {"step": 4}).url == step_url(stepping, 4)
    assert client.get(goto, {"step": 99}).url == step_url(stepping, 6)  # the last there is
    response = client.get(goto, {"step": 5}, **HX)
    assert response["HX-Push-Url"] == step_url(stepping, 5)
    assert 'data-step="5"' in response.content.decode()


@pytest.mark.parametrize("value", ["", "x", "0", "-3", "1.5"])
def test_a_bad_step_is_refused_clearly(client, learner, value):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    response = client.get(reverse("tutor:step_goto", args=[stepping.pk]), {"step": value}, **HX)
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#stepping-message"
    response = client.post(
        reverse("tutor:stepping_reached", args=[stepping.pk]), {"step": value}, **HX
    )
    assert response.status_code == 400


# How far: recorded by POST, never by a GET ----------------------------------------------------


def test_a_step_page_writes_nothing_and_the_reached_post_keeps_the_furthest(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    client.get(step_url(stepping, 5))
    stepping.refresh_from_db()
    assert stepping.furthest_step == 0
    page = client.get(step_url(stepping, 5)).content.decode()
    assert (
        f'hx-post="{reverse("tutor:stepping_reached", args=[stepping.pk])}" hx-trigger="load"'
        in page
    )
    reached = reverse("tutor:stepping_reached", args=[stepping.pk])
    assert client.post(reached, {"step": 5}, **HX).status_code == 204
    assert client.post(reached, {"step": 2}, **HX).status_code == 204  # going back keeps 5
    assert client.post(reached, {"step": 500}, **HX).status_code == 204  # never beyond the end
    stepping.refresh_from_db()
    assert stepping.furthest_step == 6
    assert client.get(reached).status_code == 405


# Queries ------------------------------------------------------------------------------------


def long_trace(count: int) -> dict:
    return printing_trace([f"line {n}" for n in range(count)])


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_step_costs_a_fixed_number_of_queries(client, learner, django_assert_num_queries, where):
    data = long_trace(300)
    stepping = stepping_of(
        learner, traced("\n".join(f"print('line {n}')" for n in range(300)), data)
    )
    number = {"first": 1, "middle": 150, "last": 301}[where]
    # The session, the user, the stepping with its trace's summary and index, and the
    # part of the trace's steps that holds this step and the one before.
    with django_assert_num_queries(4):
        response = client.get(step_url(stepping, number), **HX)
    assert response.status_code == 200 and f"Step {number} " in response.content.decode()
    with django_assert_num_queries(4):
        assert client.get(step_url(stepping, number)).status_code == 200


# A failed test of a write-code submission ------------------------------------------------------


@pytest.fixture
def failed_submission(sample_content, learner):
    from course.kinds.code_exercise import CodeExercise
    from tutor.practice.code_exercise.models import Submission

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    results = [
        {"name": test.name, "visible": not test.hidden, "passed": False}
        for test in exercise.tests.all()
    ]
    code = "def kv_cache_vram(bits, capacity):\n    return bits\n"
    return Submission.objects.create(
        user=learner,
        exercise=exercise,
        code=code,
        verdict=Submission.Verdict.FAILED,
        results={"results": results},
    )


def test_a_failed_check_is_stepped_through_as_the_code_then_the_check(
    client, failed_submission, no_worker
):
    url = reverse("tutor:stepping_test", args=[failed_submission.pk])
    response = client.post(url, {"test": "16 bits for 1000 units is 16 GB"})
    stepping = Stepping.objects.get()
    assert response.url == reverse("tutor:stepping_detail", args=[stepping.pk])
    assert stepping.trace.code == (
        "def kv_cache_vram(bits, capacity):\n    return bits\nassert kv_cache_vram(16, 1000) == 16\n"
    )
    assert (stepping.from_line, stepping.origin, stepping.exercise) == (
        3,
        "test",
        failed_submission.exercise,
    )


def test_a_failed_io_test_is_stepped_through_with_its_input(client, failed_submission, no_worker):
    client.post(
        reverse("tutor:stepping_test", args=[failed_submission.pk]),
        {"test": "the program prints the table"},
    )
    stepping = Stepping.objects.get()
    assert stepping.trace.code == failed_submission.code and stepping.from_line is None


def test_a_failed_io_test_with_arguments_gets_them_in_a_first_line(
    client, failed_submission, no_worker
):
    failed_submission.exercise.tests.create(
        key="argued", name="takes two", args=["2", 3], stdout="5\n"
    )
    failed_submission.results["results"].append(
        {"name": "takes two", "visible": True, "passed": False}
    )
    failed_submission.save()
    client.post(reverse("tutor:stepping_test", args=[failed_submission.pk]), {"test": "takes two"})
    stepping = Stepping.objects.get()
    assert stepping.trace.code == (
        "import sys; sys.argv[1:] = ['2', '3']  # the test's arguments\n" + failed_submission.code
    )
    assert stepping.from_line == 2


@pytest.mark.parametrize("name", ["", "works for other bit widths", "no such test"])
def test_a_hidden_or_unknown_test_is_refused(client, failed_submission, no_worker, name):
    response = client.post(
        reverse("tutor:stepping_test", args=[failed_submission.pk]), {"test": name}, **HX
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == f"#exercise-{failed_submission.exercise.block.key}-message"
    assert not Stepping.objects.exists()


HIDDEN_TEST = "works for other bit widths"


def test_a_failed_hidden_test_is_stepped_through_once_the_exercise_is_solved(
    client, failed_submission, no_worker
):
    from tutor.practice.code_exercise.models import Submission

    url = reverse("tutor:stepping_test", args=[failed_submission.pk])
    assert client.post(url, {"test": HIDDEN_TEST}, **HX).status_code == 400
    Submission.objects.create(
        user=failed_submission.user,
        exercise=failed_submission.exercise,
        code="# solved",
        verdict=Submission.Verdict.PASSED,
        results={"results": []},
    )
    response = client.post(url, {"test": HIDDEN_TEST})
    stepping = Stepping.objects.get()
    assert response.url == reverse("tutor:stepping_detail", args=[stepping.pk])
    assert stepping.test_name == HIDDEN_TEST
    assert stepping.trace.code.startswith(failed_submission.code)
    assert "kv_cache_vram(" in stepping.trace.code[len(failed_submission.code) :]  # its check


@pytest.mark.parametrize("due, stepped", [(-1, True), (+1, False)], ids=["due", "not-due"])
def test_a_failed_hidden_test_is_stepped_through_once_an_assignment_shows_it(
    client, failed_submission, no_worker, due, stepped
):
    from datetime import timedelta

    from django.utils import timezone

    from tests.tutor.assignment_world import assign, class_of

    now, day = timezone.now(), timedelta(days=1)
    assign(
        class_of(failed_submission.user),
        failed_submission.exercise.block.lesson,
        opens=now - 3 * day,
        due=now + due * day,
        hidden_tests_after_due=True,
    )
    url = reverse("tutor:stepping_test", args=[failed_submission.pk])
    response = client.post(url, {"test": HIDDEN_TEST}, **HX)
    assert Stepping.objects.filter(test_name=HIDDEN_TEST).exists() is stepped
    assert (response.status_code == 400) is not stepped


def test_another_learners_submission_is_not_found(client, failed_submission, no_worker):
    client.force_login(make_user())
    url = reverse("tutor:stepping_test", args=[failed_submission.pk])
    assert client.post(url, {"test": "16 bits for 1000 units is 16 GB"}).status_code == 404


# Teachers ------------------------------------------------------------------------------------


def test_the_students_timeline_says_what_they_stepped_through_and_how_far(client, learner):
    from tests.factories import make_cohort, make_teacher

    teacher = make_teacher()
    cohort = make_cohort(teacher, students=[learner])
    snippet = make_snippet()
    snippet.block.title = "Latency"
    snippet.block.save()
    far = stepping_of(
        learner, traced(ALIASING_CODE, aliasing_trace()), snippet=snippet, furthest_step=4
    )
    stepping_of(learner, traced("print(1)\n", printing_trace(["1"])), snippet=snippet, origin="own")
    client.force_login(teacher)
    page = client.get(reverse("tutor:class_student", args=[cohort.pk, learner.pk])).content.decode()
    assert "Stepped through" in page
    assert "Reached step 4 of 6" in page
    assert "their version of “Latency”" in page and "Opened it" in page
    assert far.title == "“Latency”"


def test_a_line_that_just_ran_and_runs_again_says_both(client, learner):
    stepping = stepping_of(learner, traced(ALIASING_CODE, aliasing_trace()))
    page = client.get(step_url(stepping, 6)).content.decode()  # the module returns at line 5
    assert "just ran, and runs next: </span>" in page
