"""A failed run explained for a beginner, from what the real sandbox prints."""

import pytest
from django.conf import settings

from tutor import sandbox
from tutor.feedback import explain_run, final_exception, learner_traceback, raised_by

LIMITS = sandbox.Limits(
    cpu_seconds=1, wall_seconds=2, memory_bytes=64 * 1024 * 1024, output_bytes=4096
)


def run(code: str, stdin: str = "") -> sandbox.Result:
    return sandbox.run(code, stdin=stdin, limits=LIMITS, backend=settings.SANDBOX_BACKEND)


def explain(code: str, stdin: str = ""):
    result = run(code, stdin)
    return explain_run(
        status=result.status,
        stderr=result.stderr,
        exit_code=result.exit_code,
        stdin=stdin,
        limits=LIMITS,
    )


def test_a_traceback_keeps_only_the_learners_own_frames():
    result = run('import json\n\ndef load(text):\n    return json.loads(text)\n\nload("{")\n')
    assert "json/" in result.stderr  # the real traceback goes through the json module

    shown = learner_traceback(result.stderr)

    assert shown.splitlines()[0] == "Traceback (most recent call last):"
    assert '  File "main.py", line 6, in <module>' in shown
    assert '  File "main.py", line 4, in load' in shown
    assert "    return json.loads(text)" in shown
    assert "json/" not in shown and 'File "/' not in shown
    assert shown.rstrip().endswith(
        "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)"
    )


def test_the_exception_a_run_ends_with_is_found_with_its_line():
    result = run('print("before")\nx = 0\nprint(1 / x)\n')
    raised = raised_by(status=result.status, stderr=result.stderr)
    assert raised.name == "ZeroDivisionError"
    assert raised.line == "ZeroDivisionError: division by zero"
    assert raised.at_line == 3
    assert raised.is_named_by("ZeroDivisionError")
    assert raised.is_named_by(" ZeroDivisionError: something else ")
    assert not raised.is_named_by("ValueError: division by zero")


def test_a_chained_exception_ends_with_the_last_one():
    result = run("try:\n    {}['k']\nexcept KeyError:\n    raise ValueError('no k')\n")
    assert final_exception(result.stderr).line == "ValueError: no k"
    assert "KeyError: 'k'" in learner_traceback(result.stderr)


def test_a_successful_run_has_no_exception_and_needs_no_explanation():
    result = run("import sys\nprint('fine', file=sys.stderr)\n")
    assert raised_by(status=result.status, stderr=result.stderr) is None
    assert explain("print('fine')\n") is None


def test_input_without_any_input_given_is_explained():
    explanation = explain("name = input()\nprint('Hello', name)\n")
    assert explanation.kind == "no_input"
    assert explanation.line == 1
    assert "no input was given" in explanation.text
    assert "Input box" in explanation.text


def test_asking_for_more_input_than_given_is_explained():
    explanation = explain("a = input()\nb = input()\n", stdin="only one line\n")
    assert explanation.kind == "no_input"
    assert explanation.line == 2
    assert "once more than the Input box has lines" in explanation.text


def test_input_given_is_read():
    assert explain("print(input())\n", stdin="hello\n") is None


def test_a_syntax_error_is_explained_with_its_line():
    explanation = explain("x = 1\nprint((x)\ny = 2\n")
    assert explanation.kind == "syntax_error"
    assert explanation.line == 2
    assert "Python couldn't read your program" in explanation.title
    assert "line 2" in explanation.title and "nothing ran" in explanation.text


def test_bad_indentation_is_a_syntax_error_too():
    explanation = explain("if True:\nprint('x')\n")
    assert explanation.kind == "syntax_error"
    assert "IndentationError on line 2" in explanation.title


def test_a_program_that_runs_too_long_is_explained_with_the_limit():
    explanation = explain("while True:\n    pass\n")
    assert explanation.kind == "timeout"
    assert "1 second" in explanation.text and "2 seconds" in explanation.text
    assert "loop" in explanation.text


def test_a_program_that_uses_too_much_memory_is_explained():
    explanation = explain("blocks = []\nwhile True:\n    blocks.append(bytearray(10_000_000))\n")
    assert explanation.kind == "memory"
    assert "64 MiB" in explanation.text


def test_a_program_that_prints_too_much_is_explained():
    explanation = explain("while True:\n    print('again and again')\n")
    assert explanation.kind == "output_limit"
    assert "4 KiB" in explanation.text


def test_any_other_error_names_the_exception_and_its_line():
    explanation = explain("numbers = [1, 2]\nprint(numbers[5])\n")
    assert explanation.kind == "error"
    assert explanation.line == 2
    assert "`IndexError: list index out of range`" in explanation.text


@pytest.mark.parametrize("code, kind", [("import sys\nsys.exit(3)\n", "exit")])
def test_an_exit_code_without_a_traceback_is_explained(code, kind):
    explanation = explain(code)
    assert explanation.kind == kind and "exit code 3" in explanation.title
