"""Parity: every program of the sample course (each snippet with its input, each code
exercise's reference solution with each test's input, each ordering exercise's lines in
order) gives the same answer run in the learner's browser (Pyodide, the worker the page
uses) as in the server's sandbox. Where they must differ is stated below, with why."""

import json

import pytest

from course.kinds.code_exercise import CodeExercise
from course.kinds.ordering import OrderingExercise
from course.kinds.snippet import Snippet
from tutor import sandbox
from tutor.actions.runs import limits_for
from tutor.practice.snippet.browser import browser_run_settings

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# None of the sample course's programs is in either list below: every one prints the same in
# both places. These programs, beside them, are where the two must part.
BEYOND_THE_COURSE = {
    "threads": "import threading\nt = threading.Thread(target=print, args=('hi',))\nt.start()\nt.join()\n",
    "a process": "import subprocess\nprint(subprocess.run(['echo', 'hi']).returncode)\n",
    "a module Pyodide lacks": "import sqlite3_not_a_module\n",
    "the Python version": "import sys\nprint(sys.version_info[:2])\n",
    "the platform": "import sys\nprint(sys.platform)\n",
}
# Programs the browser sends to the server (tutor.sandbox.in_browser.needs_the_server):
# threads, processes, sockets, signals, or a module Pyodide does not have.
SENT_TO_THE_SERVER = {"threads", "a process", "a module Pyodide lacks"}
# Programs both run whose output must differ: what they print depends on where they run (the
# browser's Python is Pyodide's, 3.14 on Emscripten; the sandbox's is Debian's 3.11 on Linux).
DIFFERENT = {"the Python version", "the platform"}

# Loading Python (about 13 MB from the test server, then compiling it) on a busy machine.
LOADING_MS = 180_000

RUN_ALL = """async ([settings, programs]) => {
  const worker = new Worker(settings.worker, { type: "module" });
  const answers = [];
  let next = null;
  worker.onmessage = (event) => { if (next && ["ready", "failed", "result"].includes(event.data.type)) next(event.data); };
  const answer = () => new Promise((resolve) => { next = resolve; });
  worker.postMessage({ type: "load", pyodide: new URL(settings.pyodide, location.href).href, python: settings.python });
  const loaded = await answer();
  if (loaded.type !== "ready") return loaded;
  for (const [n, program] of programs.entries()) {
    worker.postMessage({ type: "run", id: n, code: program.code, stdin: program.stdin, limits: program.limits });
    answers.push((await answer()).result);
  }
  worker.terminate();
  return answers;
}"""


def programs() -> list[dict]:
    found = []
    for snippet in Snippet.objects.select_related("block__lesson__course").order_by("pk"):
        found.append({"name": f"snippet {snippet.block.key}", "code": snippet.code, "stdin": snippet.stdin,
                      "limits": limits_for(snippet)})  # fmt: skip
    for exercise in CodeExercise.objects.select_related("block__lesson__course").order_by("pk"):
        for test in exercise.tests.order_by("pk"):
            code = exercise.solution + ("\n" + test.check_code if test.check_code else "")
            found.append({"name": f"exercise {exercise.block.key}: {test.name}", "code": code,
                          "stdin": test.stdin, "limits": limits_for(exercise)})  # fmt: skip
    for exercise in OrderingExercise.objects.select_related("block").order_by("pk"):
        lines = exercise.lines.filter(position__isnull=False).order_by("position")
        code = "\n".join(line.text for line in lines) + "\n"
        found.append({"name": f"ordering {exercise.block.key}", "code": code, "stdin": "",
                      "limits": limits_for(None)})  # fmt: skip
    for name, code in BEYOND_THE_COURSE.items():
        found.append({"name": name, "code": code, "stdin": "", "limits": limits_for(None)})
    return found


def test_the_sample_courses_programs_print_the_same_in_the_browser_as_on_the_server(
    page, python_in_browser, sample_content
):
    every = programs()
    assert len(every) > 80  # 26 snippets, 52 tests of code exercises, ordering exercises
    settings = browser_run_settings(Snippet.objects.first())
    limits = {name: json.loads(settings["limits"])[name] for name in json.loads(settings["limits"])}
    page.set_default_timeout(LOADING_MS)
    page.goto("/")
    shipped = [
        {"code": p["code"], "stdin": p["stdin"],
         "limits": {**limits, "cpu_seconds": p["limits"].cpu_seconds, "output_bytes": p["limits"].output_bytes}}
        for p in every
    ]  # fmt: skip
    answers = page.evaluate(RUN_ALL, [settings, shipped])
    assert isinstance(answers, list), answers

    sent, different = {}, {}
    for program, browser in zip(every, answers, strict=True):
        if "server" in browser:
            sent[program["name"]] = browser["server"]
            continue
        server = sandbox.run(program["code"], stdin=program["stdin"], limits=program["limits"]).to_dict()
        seen = [(field, browser[field], server[field]) for field in ("status", "stdout", "exit_code")
                if browser[field] != server[field]]  # fmt: skip
        if seen:
            different[program["name"]] = seen
    assert set(sent) == SENT_TO_THE_SERVER, sent
    assert set(different) == DIFFERENT, different
