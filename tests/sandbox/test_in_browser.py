"""The runner the learner's browser uses (tutor.sandbox.in_browser, run by Pyodide in a Web
Worker), here under CPython against the server's sandbox: the same program gives the same
answer. (The same comparison in a real browser: tests/browser/test_browser_parity.py.)"""

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor import sandbox
from tutor.sandbox import in_browser

PROGRAMS = [
    ("print('hello')\nname = input('Name? ')\nprint(name * 2)", "ab\n"),
    ("print(1)\nprint(1 / 0)", ""),
    ("x = (", ""),
    ("def f():\n    return g()\n\ndef g():\n    return [][1]\n\nf()", ""),
    ("import sys\nsys.exit(3)", ""),
    ("import sys\nsys.exit('bye')", ""),
    ("import sys\nsys.exit(0)", ""),
    ("input()", ""),
    ("while True:\n    print('x' * 100)", ""),
    ("import sys\nprint('to stderr', file=sys.stderr)\nprint('to stdout')", ""),
]


@pytest.mark.parametrize(("code", "stdin"), PROGRAMS)
def test_a_program_gives_the_same_answer_in_the_browsers_runner_as_in_the_sandbox(code, stdin):
    server = sandbox.run(code, stdin=stdin).to_dict()
    browser = in_browser.run(code, stdin=stdin)
    for field in ("status", "exit_code", "stdout", "stderr", "truncated"):
        assert browser[field] == server[field], field


def test_a_run_leaves_the_interpreter_as_it_found_it():
    before = sys.stdin, sys.stdout, sys.stderr, sys.modules["__main__"]
    in_browser.run("import sys\nsys.stdout = None\nraise SystemExit(2)")
    in_browser.run("print(input())", stdin="x\n")
    assert (sys.stdin, sys.stdout, sys.stderr, sys.modules["__main__"]) == before


def test_a_program_cannot_swallow_the_output_limit():
    code = "while True:\n    try:\n        print('x' * 1000)\n    except BaseException:\n        pass"
    result = in_browser.run(code, output_bytes=5000)
    assert result["status"] == "output_limit"
    assert result["truncated"]
    assert len(result["stdout"]) == 5000


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.text(), max_size=8), cap=st.integers(min_value=1, max_value=200))
def test_output_never_passes_the_cap_and_is_whole_under_it(texts, cap):
    code = "import sys\n" + "".join(
        f"sys.{'stderr' if n % 2 else 'stdout'}.write({text!r})\n" for n, text in enumerate(texts)
    )
    result = in_browser.run(code, output_bytes=cap)
    written = (result["stdout"] + result["stderr"]).encode("utf-8", "surrogatepass")
    assert len(written) <= cap
    if not result["truncated"]:
        assert result["stdout"] == "".join(texts[0::2])
        assert result["stderr"] == "".join(texts[1::2])


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("import threading", "it imports threading"),
        ("from subprocess import run", "it imports subprocess"),
        ("import os.path, socket", "it imports socket"),
        ("import numpy", "it imports numpy, which the browser does not have"),
    ],
)
def test_programs_that_need_threads_processes_or_missing_modules_go_to_the_server(code, why):
    assert in_browser.needs_the_server(code) == why


@pytest.mark.parametrize(
    "code", ["print(1)", "import math, random\nfrom collections import Counter", "x = (", "from . import y"]
)
def test_everything_else_runs_in_the_browser(code):
    assert in_browser.needs_the_server(code) is None


def test_the_files_the_browser_loads_import_without_django():
    """Pyodide has no Django: tutor/feedback.py and the runner must import without it (the
    browser's explanations are then in English)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    script = (
        "import sys; sys.modules['django'] = None\n"
        "from tutor import feedback\n"
        "from tutor.sandbox import in_browser\n"
        "print(feedback.ngettext('a line', 'lines', 2))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "lines\n"
