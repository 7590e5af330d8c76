"""Stepping through for real: the POST queues a TRACE run, the worker (`execute_run`, as
the other run tests call it) traces it in the sandbox with tutor.sandbox.tracing, and the
pages show it. On the seed lesson's snippets, the first differing step lands right; hostile
programs give a clear stopped trace, never a crash or a page that waits for ever."""

import pytest
from django.urls import reverse

from course.kinds.snippet import Snippet
from tests.factories import make_prediction, make_snippet
from tutor import queueing, tasks
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.snippet.models import Prediction
from tutor.practice.stepping.models import Stepping, Trace

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def start_and_trace(client, snippet, **data) -> Stepping:
    """Press "Step through", then let the worker trace the program."""
    client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]), data)
    stepping = Stepping.objects.latest("pk")
    run = stepping.trace.run
    if not run.is_final:
        execute_run(run_id=run.pk)
    stepping.refresh_from_db()
    return stepping


def opened_at(client, stepping) -> int:
    url = client.get(reverse("tutor:stepping_detail", args=[stepping.pk])).url
    return int(url.rstrip("/").rsplit("/", 1)[1])


def test_the_worker_traces_the_program_through_the_queue_and_keeps_it_in_one_row(
    client, learner, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(queueing, "enqueue_run", tasks.execute_run)  # the task, in-process
    snippet = make_snippet(
        code="items = [1, 2]\ncopy = items\ntotal = 3\ntotal = total + 4\nprint(total)\n"
    )
    make_prediction(learner, snippet, text="7\n")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("tutor:stepping_snippet", args=[snippet.pk]))
    trace = Trace.objects.get()
    assert trace.run.purpose == Run.Purpose.TRACE and trace.run.status == Run.Status.OK
    assert trace.run.stdout == "7\n"
    assert trace.data["status"] == "complete" and trace.steps_total == len(trace.steps())
    # Kept whole: the summary, the index and the steps give back the tracer's dict.
    from tutor.sandbox.tracing import Trace as Traced

    assert Traced.from_dict(trace.steps().to_dict()).to_dict() == trace.steps().to_dict()
    stepping = Stepping.objects.get()
    assert opened_at(client, stepping) == 1
    page = client.get(reverse("tutor:step_detail", args=[stepping.pk, 3])).content.decode()
    assert "`items` and `copy` name the same list." in page
    assert page.count('class="arrow"') == 2


@pytest.mark.parametrize("key", ["backend-latency", "kv-cache-vram"])
def test_on_the_seed_lesson_a_prediction_without_the_first_empty_line_opens_after_print(
    client, learner, sample_content, key
):
    snippet = Snippet.objects.select_related("block").get(block__key=key)
    wrong = snippet.expected_output.lstrip("\n")
    make_prediction(learner, snippet, text=wrong, verdict=Prediction.Verdict.WRONG)
    Run.objects.create(
        snippet=snippet,
        purpose=Run.Purpose.REVEAL,
        code=snippet.code,
        status=Run.Status.OK,
        stdout=snippet.expected_output,
    )
    stepping = start_and_trace(client, snippet)
    number = opened_at(client, stepping)
    page = client.get(reverse("tutor:step_detail", args=[stepping.pk, number])).content.decode()
    # The line just run is the bare print(): the empty line the learner did not say.
    ran = next(line for line in snippet.code.split("\n") if line == "print()")
    assert (
        f'is-ran"><span class="code-line-mark"><span aria-hidden="true">✓</span><span class="visually-hidden">just ran: </span></span><span class="code-line-number">{snippet.code.split(chr(10)).index(ran) + 1}</span>'
        in page
    )
    assert "It printed an empty line." in page
    assert (
        '<pre class="output step-printed"><span class="empty-line">↵ (empty line)</span>\n</pre>'
        in page
    )


def test_a_right_prediction_opens_at_the_first_step(client, learner, sample_content):
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_prediction(learner, snippet, text=snippet.expected_output)
    stepping = start_and_trace(client, snippet)
    assert opened_at(client, stepping) == 1


def test_a_check_opens_at_its_first_step(client, learner, sample_content):
    from course.kinds.code_exercise import CodeExercise
    from tutor.practice.code_exercise.models import Submission

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    submission = Submission.objects.create(
        user=learner,
        exercise=exercise,
        verdict=Submission.Verdict.FAILED,
        code="def kv_cache_vram(bits, capacity):\n    return bits * capacity\n\nprint('table')\n",
        results={
            "results": [
                {"name": "16 bits for 1000 units is 16 GB", "visible": True, "passed": False}
            ]
        },
    )
    client.post(
        reverse("tutor:stepping_test", args=[submission.pk]),
        {"test": "16 bits for 1000 units is 16 GB"},
    )
    stepping = Stepping.objects.get()
    execute_run(run_id=stepping.trace.run_id)
    number = opened_at(client, stepping)
    data = Trace.objects.get().steps().to_dict()
    assert data["steps"][number - 1]["line"] == 5  # the check's assert, after the learner's 4 lines
    assert all(step["line"] < 5 or len(step["frames"]) > 1 for step in data["steps"][: number - 1])
    page = client.get(
        reverse("tutor:step_detail", args=[stepping.pk, data and len(data["steps"])])
    ).content.decode()
    assert "AssertionError" in page


def test_an_io_test_with_arguments_is_traced_with_them_and_opens_at_the_code(
    client, learner, sample_content
):
    from course.kinds.code_exercise import CodeExercise
    from tutor.practice.code_exercise.models import Submission

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    exercise.tests.create(key="argued", name="adds its two arguments", args=[2, "3"], stdout="5\n")
    code = "import sys\n\nprint(sys.argv[1] + sys.argv[2])\n"  # "23": strings, not numbers
    submission = Submission.objects.create(
        user=learner,
        exercise=exercise,
        verdict=Submission.Verdict.FAILED,
        code=code,
        results={"results": [{"name": "adds its two arguments", "visible": True, "passed": False}]},
    )
    client.post(
        reverse("tutor:stepping_test", args=[submission.pk]), {"test": "adds its two arguments"}
    )
    stepping = Stepping.objects.get()
    assert stepping.trace.code.endswith("\n" + code) and stepping.from_line == 2
    execute_run(run_id=stepping.trace.run_id)
    number = opened_at(client, stepping)
    data = Trace.objects.get().steps().to_dict()
    assert data["steps"][number - 1]["line"] == 2  # the learner's first line, not the arguments'
    assert data["stdout"] == "23\n"  # the program saw the test's arguments


HOSTILE = {
    "runaway recursion": ("def f(n):\n    return f(n + 1)\n\nf(0)\n", "size"),
    "a million steps": ("n = 0\nwhile True:\n    n += 1\n", "steps"),
    "a huge list": ("big = list(range(1_000_000))\nprint(len(big))\n", None),
    "a hostile repr": (
        "class Evil:\n    def __repr__(self):\n        while True:\n            pass\n\n"
        "e = Evil()\nprint('made')\n",
        None,
    ),
    "a cycle": ("a = []\na.append(a)\nb = {'self': None}\nb['self'] = b\nprint(len(a))\n", None),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_programs_give_a_clear_trace_never_a_crash(client, learner, name):
    code, reason = HOSTILE[name]
    snippet = make_snippet(code=code)
    make_prediction(learner, snippet, text="")
    stepping = start_and_trace(client, snippet)
    trace = stepping.trace
    assert trace.is_ready, trace.run.stderr
    if reason:
        assert trace.data["status"] == "stopped" and trace.data["stopped"]["reason"] == reason
    number = opened_at(client, stepping)
    assert 1 <= number <= trace.steps_total
    last = client.get(reverse("tutor:step_detail", args=[stepping.pk, trace.steps_total]))
    assert last.status_code == 200
    if reason:
        assert "Stopped early." in last.content.decode()
        assert trace.data["stopped"]["message"] in last.content.decode().replace("&#x27;", "'")


def test_the_buttons_are_where_the_learner_needs_them(client, learner, sample_content):
    """Under a reveal, under the learner's own run, and beside each failed visible test
    (never a hidden one)."""
    from course.kinds.code_exercise import CodeExercise
    from tutor.practice.code_exercise.models import Submission

    snippet = Snippet.objects.select_related("block__lesson").get(block__key="kv-cache-vram")
    make_prediction(learner, snippet, text=snippet.expected_output)
    Run.objects.create(
        snippet=snippet,
        purpose=Run.Purpose.REVEAL,
        code=snippet.code,
        status=Run.Status.OK,
        stdout=snippet.expected_output,
    )
    lesson = client.get(snippet.block.lesson.get_absolute_url()).content.decode()
    assert f'action="{reverse("tutor:stepping_snippet", args=[snippet.pk])}"' in lesson
    run = Run.objects.create(
        user=learner, snippet=snippet, code="print(2)\n", status=Run.Status.OK, stdout="2\n"
    )
    output = client.get(reverse("tutor:run_detail", args=[run.pk]), **HX).content.decode()
    assert "Step through your version" in output and f'name="run" value="{run.pk}"' in output

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    client.post(
        reverse("tutor:submission_create", args=[exercise.pk]),
        {"code": "def kv_cache_vram(bits, capacity):\n    return bits * capacity\n"},
    )
    submission = Submission.objects.get()
    execute_run(run_id=submission.run_id)
    results = client.get(
        reverse("tutor:submission_detail", args=[submission.pk]), **HX
    ).content.decode()
    submission.refresh_from_db()
    failed = [r for r in submission.results["results"] if not r["passed"]]
    assert {r["name"] for r in failed if r["visible"]} == {
        "16 bits for 1000 units is 16 GB",
        "the program prints the table",
    }
    assert any(not r["visible"] for r in failed)  # a hidden test failed too: no button for it
    assert results.count("Step through this test") == 2
    assert 'value="works for other bit widths"' not in results
    assert 'value="the program prints the table"' in results
