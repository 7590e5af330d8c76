"""Grading write-code exercises: a submission against its tests, in one sandbox run.

Each failure reaches the learner as its own kind with a plain message; and whatever the
learner's code does, a test it fails is never reported passed (each attack below would
pass a failing test against a harness that trusted what the code prints or does)."""

import json
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.sandbox import Limits
from tutor.sandbox.grading import KINDS, Grading, Test, check_test, grade

FAST = 0.6  # seconds per test where a test is meant to run out of time

SQUARE = """\
def square(x):
    return x * x

if __name__ == "__main__":
    print(square(int(input())))
"""

SQUARE_TESTS = [
    Test("squares 3", stdin="3\n", stdout="9\n"),
    Test("squares a negative number", stdin="-4\n", stdout="16\n", visible=False),
    Test("square(5) is 25", check="assert square(5) == 25"),
    Test("square(0) is 0", check="assert square(0) == 0", visible=False),
]


def graded(code, tests, **kwargs):
    return grade(textwrap.dedent(code), tests, **kwargs)


def only(code, test, **kwargs):
    grading = graded(code, [test], **kwargs)
    assert len(grading.results) == 1
    return grading.results[0]


def failed(code, test, kind, **kwargs):
    result = only(code, test, **kwargs)
    assert not result.passed, result
    assert result.kind == kind, result
    assert result.message and result.message.lower() != "error"
    return result


# --- what passes ----------------------------------------------------------------------------
def test_a_correct_solution_passes_every_test():
    grading = graded(SQUARE, SQUARE_TESTS)
    assert grading.status == "passed", grading
    assert grading.kind is None
    assert [r.passed for r in grading.results] == [True] * 4
    assert [r.name for r in grading.results] == [t.name for t in SQUARE_TESTS]
    assert [r.visible for r in grading.results] == [True, False, True, False]
    assert grading.results[0].got == "9\n"
    assert grading.message == "All 4 tests pass."


def test_ten_tests_one_submission_each_its_own_result():
    code = """\
    import sys

    def total(numbers):
        return sum(numbers)

    if __name__ == "__main__":
        print(total(int(n) for n in sys.argv[1:]))
    """
    tests = [Test(f"adds {n} numbers", args=[str(i) for i in range(n)], stdout=f"{sum(range(n))}\n")
             for n in range(5)]  # fmt: skip
    tests += [Test(f"total of {n} numbers", check=f"assert total(list(range({n}))) == {sum(range(n))}")
              for n in range(4)]  # fmt: skip
    tests.append(Test("this one expects the wrong sum", check="assert total([1, 2]) == 4"))
    grading = graded(code, tests)
    assert len(grading.results) == 10
    assert [r.passed for r in grading.results] == [True] * 9 + [False]
    assert grading.status == "failed"
    assert grading.kind == "wrong_value"
    assert grading.message.startswith("9 of 10 tests pass.")
    assert grading.results[-1].got == "3" and grading.results[-1].expected == "4"


def test_output_is_compared_line_by_line_without_trailing_spaces():
    result = only("print('a  ')\nprint('b')\nprint()\n", Test("two lines", stdout="a\nb\n"))
    assert result.passed


def test_a_check_sees_the_code_as_a_module_not_as_the_main_program():
    code = """\
    def double(x):
        return 2 * x

    if __name__ == "__main__":
        double(int(input()))
    """
    assert only(code, Test("doubles", check="assert double(4) == 8")).passed


def test_a_check_may_change_the_learners_globals_through_its_functions():
    code = """\
    count = 0

    def bump():
        global count
        count += 1
    """
    check = "bump()\nbump()\nassert count == 2"
    assert only(code, Test("counts", check=check)).passed


def test_a_program_that_ends_with_sys_exit_zero_is_judged_on_its_output():
    code = "import sys\nprint('done')\nsys.exit(0)\nprint('never')\n"
    assert only(code, Test("ends early, on purpose", stdout="done\n")).passed


def test_objects_of_the_learners_own_classes_compare_with_their_own_eq():
    code = """\
    from dataclasses import dataclass

    @dataclass
    class Point:
        x: int
        y: int

    def origin():
        return Point(0, 0)
    """
    assert only(code, Test("origin", check="assert origin() == Point(0, 0)")).passed


def test_standard_library_values_compare_with_plain_ones():
    code = """\
    from collections import Counter, OrderedDict
    def counts(text):
        return Counter(text.split())
    def ordered():
        return OrderedDict(a=1)
    """
    check = 'assert counts("a b a") == {"a": 2, "b": 1}\nassert ordered() == {"a": 1}'
    assert only(code, Test("counts words", check=check)).passed


# --- each way to fail, in its own words -------------------------------------------------------
def test_wrong_output_says_where_it_starts_to_differ():
    result = failed("print(1)\nprint(3)\n", Test("counts", stdout="1\n2\n"), "wrong_output")
    assert "line 2" in result.message
    assert result.expected == "1\n2\n" and result.got == "1\n3\n"


def test_wrong_value_gives_both_sides_of_the_failed_assert_and_its_line():
    code = "def square(x):\n    return x + x\n"
    check = "assert square(2) == 4\nassert square(3) == 9\n"
    result = failed(code, Test("squares", check=check), "wrong_value")
    assert result.check_line == "assert square(3) == 9" and result.check_line_number == 2
    assert (result.got, result.comparison, result.expected) == ("6", "==", "9")
    assert "9" not in result.message  # a hidden test's expected value stays out of the message


def test_a_plain_assert_shows_the_value_it_tested():
    result = failed("def is_even(n):\n    return n % 2\n", Test("even", check="assert is_even(4)"),
                    "wrong_value")  # fmt: skip
    assert result.got == "0" and result.comparison == "" and result.expected is None


def test_an_exception_gives_its_line_and_only_the_learners_frames():
    code = """\
    import json

    def ratio(a, b):
        return a / b

    def parse(text):
        return json.loads(text)
    """
    result = failed(code, Test("divides", check="assert ratio(1, 0) == 0"), "exception")
    assert result.exception == "ZeroDivisionError: division by zero"
    assert result.line == 4 and "line 4" in result.message
    assert result.check_line == "assert ratio(1, 0) == 0"
    assert result.traceback == (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 4, in ratio\n'
        "    return a / b\n"
        "ZeroDivisionError: division by zero"
    )
    result = failed(code, Test("parses", check="parse('{')"), "exception")
    assert result.exception.startswith("json.decoder.JSONDecodeError: Expecting")
    assert result.traceback.count('File "') == 1  # json's own frames left out
    assert 'File "main.py", line 7, in parse' in result.traceback


def test_a_missing_function_is_named():
    result = failed("def squar(x):\n    return x * x\n", Test("t", check="assert square(2) == 4"),
                    "exception")  # fmt: skip
    assert "square" in result.message and "spelling" in result.message


def test_an_infinite_loop_is_too_slow_and_says_where_it_was():
    code = """\
    def wait_for(n):
        while n > 0:
            n = n + 1
    """
    result = failed(code, Test("loops", check="wait_for(1)"), "too_slow", per_test_seconds=FAST)
    assert result.line in (2, 3)  # wherever the loop was when its time ran out
    assert f"(line {result.line})" in result.message and "loop" in result.message
    assert result.traceback.endswith("(stopped here: out of time)")
    assert result.exception is None


def test_sleeping_past_the_budget_is_too_slow():
    failed("import time\ntime.sleep(30)\n", Test("sleeps", stdout=""), "too_slow",
           per_test_seconds=FAST)  # fmt: skip


def test_too_deep_recursion():
    code = "def down(n):\n    return down(n + 1)\n"
    result = failed(code, Test("recurses", check="down(0)"), "recursion")
    assert result.line == 2
    assert "[Previous line repeated" in result.traceback
    assert len(result.traceback) < 2000


def test_out_of_memory():
    result = failed("data = bytearray(10 ** 10)\n", Test("eats memory", stdout=""), "memory")
    assert result.line == 1


def test_a_syntax_error_gives_its_line_and_no_test_runs():
    code = "def f(x):\n    return x +\n"
    grading = graded(code, SQUARE_TESTS)
    assert grading.status == "syntax_error" and grading.kind == "syntax_error"
    assert "line 2" in grading.message
    assert {r.kind for r in grading.results} == {"syntax_error"}
    assert all(r.line == 2 for r in grading.results)
    assert 'File "main.py", line 2' in grading.results[0].traceback


def test_sys_exit_in_a_check_or_with_an_error_code():
    code = "import sys\ndef answer():\n    sys.exit()\n"
    result = failed(code, Test("answers", check="assert answer() == 42"), "exit")
    assert "return" in result.message and result.line == 3
    result = failed("import sys\nsys.exit(3)\n", Test("runs", stdout=""), "exit")
    assert "sys.exit(3)" in result.message


def test_input_with_no_input_left():
    result = failed("a = input()\nb = input()\nprint(a, b)\n", Test("reads two", stdin="1\n",
                    stdout="1 2\n"), "no_input")  # fmt: skip
    assert result.line == 2
    result = failed("def ask():\n    return input()\n", Test("asks", check="ask()"), "no_input")
    assert "__main__" in result.message


def test_output_flood():
    result = failed("while True:\n    print('spam')\n", Test("floods", stdout=""),
                    "output_flood", limits=Limits(output_bytes=4096))  # fmt: skip
    assert 0 < len(result.stdout) <= 4096


def test_checks_must_be_written_right():
    with pytest.raises(ValueError, match="either an expected output or a check"):
        Test("both", stdout="1", check="assert True")
    with pytest.raises(ValueError, match="syntax error on line 1"):
        Test("broken", check="assert (")
    assert check_test(Test("fine", check="assert True")) is None


def test_whole_submission_kind_is_shared_or_mixed():
    code = "def f():\n    return 1 / 0\n"
    grading = graded(code, [Test("a", check="f()"), Test("b", check="f()")])
    assert grading.kind == "exception" and "error" in grading.message
    grading = graded(code, [Test("a", check="f()"), Test("b", check="assert g()")])
    assert grading.kind == "exception"
    grading = graded(code, [Test("a", check="f()"), Test("b", check="assert 1 == 2")])
    assert grading.kind == "mixed"


def test_too_long_or_nul_code_is_not_run():
    grading = grade("x = 1\0", SQUARE_TESTS)
    assert grading.status == "not_checked" and grading.kind == "refused"
    assert {r.kind for r in grading.results} == {"not_checked"}
    grading = grade("x = 1\n" * 100, SQUARE_TESTS, limits=Limits(source_bytes=100))
    assert "100" in grading.message


def test_a_failure_of_the_grader_itself_is_not_checked_never_passed(monkeypatch):
    # the grader dies before its report (as it did with too little memory to start, 8 MiB,
    # before the fork server preloaded it: now it needs less): no report it could authenticate
    from tutor.sandbox import grading as grader

    for program in ("BOOTSTRAP", "PRELOADED_BOOTSTRAP"):
        monkeypatch.setattr(grader, program, "raise MemoryError\n")
    grading = graded(SQUARE, SQUARE_TESTS)
    assert grading.status == "not_checked" and grading.kind == "not_checked"
    assert {r.kind for r in grading.results} == {"not_checked"}
    assert "could not be checked" in grading.message and grading.diagnostic


# --- attacks: none of these passes a test it fails ---------------------------------------------
WRONG = "def square(x):\n    return x + 1\n"
HIDDEN = Test("hidden", check="assert square(7) == 49", visible=False)


def assert_never_passes(code, tests=None, **kwargs):
    tests = tests or [HIDDEN, Test("io", stdin="7\n", stdout="49\n")]
    grading = graded(WRONG + textwrap.dedent(code), tests, **kwargs)
    assert not any(r.passed for r in grading.results), grading
    assert grading.status != "passed"
    return grading


def test_printing_a_fake_report_passes_nothing():
    assert_never_passes("""\
    import sys
    print("49")
    print('{"status": "passed", "results": [{"passed": true}]}')
    sys.stdout.write("0" * 32 + "\\n3:ran" + "0" * 32)
    """)


def test_os_exit_zero_passes_nothing():
    assert_never_passes("""\
    import os
    def square(x):
        print(49)
        os._exit(0)
    square(7)
    """)


def test_sys_exit_zero_inside_a_check_passes_nothing():
    assert_never_passes("""\
    import sys
    def square(x):
        sys.exit(0)
    """)


def test_raising_base_exceptions_passes_nothing():
    for raising in (
        "KeyboardInterrupt()",
        "GeneratorExit()",
        "type('Escape', (BaseException,), {})()",
    ):
        assert_never_passes(f"def square(x):\n    raise {raising}\n")


def test_patching_builtins_passes_nothing():
    assert_never_passes("""\
    import builtins, operator, _operator
    builtins.AssertionError = type("Quiet", (Exception,), {})
    builtins.isinstance = lambda *a: True
    builtins.type = lambda *a: int
    builtins.all = builtins.any = builtins.bool = lambda *a: True
    builtins.print = lambda *a, **k: None
    builtins.repr = builtins.str = lambda *a: "49"
    builtins.BaseException = builtins.SystemExit = type("X", (Exception,), {})
    operator.eq = _operator.eq = operator.truth = _operator.truth = lambda *a: True
    """)


def test_an_object_that_equals_everything_passes_nothing():
    grading = assert_never_passes("""\
    class Everything(int):
        def __eq__(self, other): return True
        def __ne__(self, other): return False
        __hash__ = int.__hash__
        def __bool__(self): return True
    def square(x):
        return Everything(0)
    """, [HIDDEN, Test("in", check="assert square(7) in [49]"),
          Test("true", check="assert square(7)")])  # fmt: skip
    assert grading.results[0].kind == "wrong_value"


def test_a_class_posing_as_int_passes_nothing():
    assert_never_passes("""\
    class Posing(type):
        def __eq__(cls, other): return True
        def __hash__(cls): return hash(int)
    class Liar(metaclass=Posing):
        def __eq__(self, other): return True
        __hash__ = object.__hash__
    def square(x):
        return Liar()
    """, [Test("int first", check="assert 49 == 49  # int's verdict is known first\n"
                                  "assert square(7) == 49")])  # fmt: skip


def test_patching_the_graders_own_functions_passes_nothing():
    # every function and list reachable from any frame, replaced or emptied
    assert_never_passes("""\
    import sys
    def square(x):
        frame = sys._getframe()
        while frame is not None:
            for space in (frame.f_globals, frame.f_locals):
                for name, value in list(space.items()):
                    if space is globals():
                        continue
                    if callable(value) and not isinstance(value, type):
                        try:
                            space[name] = lambda *a, **k: True
                        except Exception:
                            pass
                    elif isinstance(value, list):
                        value.clear()
            frame = frame.f_back
        return 0
    square(7)
    """)


def test_reading_the_graders_code_or_memory_passes_nothing():
    grading = assert_never_passes("""\
    import gc, sys
    found = []
    def square(x):
        frame = sys._getframe(1)
        for attempt in (
            lambda: frame.f_code.co_consts,                       # the check's constants
            lambda: frame.f_back.f_code.co_consts,                # the driver's: the token
            lambda: gc.get_objects(),
            lambda: open("/proc/self/mem", "rb"),
            lambda: open("/dev/fd/0", "rb").read(),
            lambda: __import__("ctypes"),
            lambda: sys.settrace(lambda *a: None),
            lambda: __import__("marshal").loads(b"\\xe3"),
            lambda: frame.f_code.replace(co_consts=()),
        ):
            try:
                found.append(attempt())
            except RuntimeError:
                pass
        for value in found:
            if isinstance(value, tuple) and 49 in value:
                return 49
        return -1
    """)
    assert grading.results[0].kind == "wrong_value"
    assert grading.results[0].got == "-1"


def test_no_frame_reaches_the_fresh_starts_of_later_tests():
    # The harness's namespace is the globals of a frame below the learner's code (and the
    # fork server keeps it): the slots of later tests (their builtins, comparing function,
    # private namespace) must not be in it, or a test could patch the next one's `len`
    code = """\
    import sys

    def three():
        return [1]

    def reachable():
        seen, frame = [], sys._getframe()
        while frame is not None:
            seen.append(frame.f_globals)
            seen += [v[0] for v in frame.f_globals.get("_PRELOADED", {}).values()]
            frame = frame.f_back
        return [ns["PREPARED"] for ns in seen if isinstance(ns, dict) and "PREPARED" in ns]

    if __name__ == "__main__":
        print(len(reachable()))
    else:
        for _private, slots in reachable():
            for slot in slots:
                slot[5]["len"] = lambda value: 3
    """
    tests = [
        Test("nothing of later tests in reach", stdout="0\n"),
        Test("patches what it can", check="three()"),
        Test("three items", check="assert len(three()) == 3"),
    ]
    grading = graded(code, tests)
    assert [r.passed for r in grading.results] == [True, True, False], grading
    assert grading.results[2].got == "1"


def test_no_frame_gives_away_the_token_or_the_expected_values():
    # a driver's token, written back to the grader, would be a forged pass: every frame's
    # code, up to the grader's, is tried, and any bytes or 49 found is used
    assert_never_passes("""\
    import os, sys
    def square(x):
        loot, frame = [], sys._getframe()
        while frame is not None:
            for reach in (lambda: frame.f_code, lambda: frame.f_back and frame.f_back.f_code):
                try:
                    code = reach()
                    loot += list(code.co_consts) if code else []
                except RuntimeError:
                    pass
            loot += list(frame.f_locals.values()) + list(frame.f_globals.values())
            frame = frame.f_back
        for value in loot:
            if isinstance(value, bytes):
                for fd in range(3, 64):
                    for tail in (b"P", b""):
                        try:
                            os.write(fd, value + tail)
                        except OSError:
                            pass
        # 49 made here, not a constant of this code (which the loot would hold: a learner
        # may always write the answer into the code, and that is no attack)
        answer = int("4" + "9")
        return answer if answer in [v for v in loot if type(v) is int] else 0
    square(7)
    """)


def test_new_processes_are_not_allowed():
    result = failed("import os\nos.fork()\n", Test("forks", stdout=""), "not_allowed")
    assert result.line == 2
    assert result.exception == "NotAllowedWhileGrading: grading does not allow this (os.fork)"
    failed(
        "import subprocess\nsubprocess.run(['true'])\n", Test("spawns", stdout=""), "not_allowed"
    )
    failed("import _posixsubprocess\n_posixsubprocess.fork_exec()\n", Test("forks and execs", stdout=""),
           "not_allowed")  # fmt: skip
    failed("import sys\ndel sys.modules['_posixsubprocess']\nimport _posixsubprocess\n",
           Test("imports it afresh", stdout=""), "not_allowed")  # fmt: skip
    failed("import os\nos.system('true')\n", Test("shells", stdout=""), "not_allowed")


def test_monkeypatching_print_and_stdout_passes_nothing():
    assert_never_passes("""\
    import io, sys
    class Liar(io.StringIO):
        def getvalue(self): return "49\\n"
    sys.stdout = sys.__stdout__ = Liar()
    print = lambda *a, **k: None
    """)


def test_closing_or_replacing_stdout_passes_nothing_and_breaks_nothing():
    assert_never_passes("""\
    import os
    os.close(1)
    os.dup2(os.open("/dev/null", os.O_WRONLY), 1)
    """)
    code = "import os\n" + SQUARE + "os.close(1)\nos.close(2)\n"
    assert graded(code, [SQUARE_TESTS[2]]).passed  # a check does not need stdout


def test_writing_to_every_descriptor_passes_nothing():
    assert_never_passes("""\
    import os
    def square(x):
        for fd in range(64):
            for message in (b"P", b"pass", b"\\0" * 16 + b"P", b"end 1 0 0"):
                try:
                    os.write(fd, message)
                except OSError:
                    pass
        return 0
    square(7)
    """)


def test_sleeping_past_the_budget_and_swallowing_the_timeout_passes_nothing():
    assert_never_passes(
        """\
    import time
    def square(x):
        while True:
            try:
                time.sleep(10)
            except BaseException:
                pass
    """,
        per_test_seconds=FAST,
    )


def test_killing_the_grader_passes_nothing():
    grading = assert_never_passes("""\
    import os, signal
    os.kill(os.getppid(), signal.SIGKILL)
    for pid in range(1, 64):
        if pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    """)
    assert grading.status == "not_checked"


def test_flushing_output_cannot_read_a_failed_tests_token():
    # the learner's stdout is flushed before the verdict is sent: a flush that looks through
    # the frames below it finds no message holding the test's token
    assert_never_passes("""\
    import os, sys
    class Thief:
        def write(self, text):
            return len(text)
        def flush(self):
            frame = sys._getframe(1)
            while frame is not None:
                for value in list(frame.f_locals.values()):
                    if isinstance(value, bytes) and len(value) >= 17:
                        for fd in range(3, 64):
                            try:
                                os.write(fd, value[:16] + b"P")
                            except OSError:
                                pass
                frame = frame.f_back
    sys.stdout = Thief()
    """)


# --- tests that share a process: a child runs consecutive tests while they pass -----------------
FOUR = (
    "def square(x):\n    return 4\n"  # right for 2 only: the first test passes, keeping the process
)


def test_what_a_passing_test_patches_passes_no_later_test():
    code = FOUR + textwrap.dedent("""\
    import builtins, fractions, operator, _operator, sys
    def half():
        return fractions.Fraction(1, 2)
    def patch():
        builtins.AssertionError = type("Quiet", (Exception,), {})
        builtins.isinstance = lambda *a: True
        builtins.type = lambda *a: int
        builtins.repr = builtins.str = lambda *a: "49"
        builtins.BaseException = builtins.SystemExit = type("X", (Exception,), {})
        operator.eq = _operator.eq = operator.truth = _operator.truth = lambda *a: True
        fractions.Fraction.__eq__ = lambda *a: True  # the first check found Fraction honest
        sys.modules["_operator"] = sys.modules["builtins"] = sys.modules["marshal"] = operator
        for module in list(sys.modules.values()):
            for name in ("loads", "write", "getpid", "signal", "setitimer", "dup2"):
                try:
                    setattr(module, name, lambda *a, **k: True)
                except Exception:
                    pass
    """)
    tests = [Test("patches", check="assert square(2) == 4\nassert half() == half()\npatch()"),
             Test("later", check="assert square(7) == 49"),
             Test("a Fraction later", check="assert half() == 3"),
             Test("a program later", stdin="7\n", stdout="49\n")]  # fmt: skip
    grading = graded(code, tests)
    assert [r.passed for r in grading.results] == [True, False, False, False], grading
    assert grading.results[1].kind == "wrong_value" and grading.results[1].got == "4"


def test_nothing_of_an_earlier_test_is_left_for_a_later_one():
    code = """\
    import builtins, os, sys
    print([hasattr(builtins, "mark"), "mark" in sys.modules, hasattr(os, "mark"),
           "mark" in globals(), sorted(os.listdir(".")), sys.argv[1:], os.getcwd()])
    builtins.mark = sys.modules["mark"] = os.mark = mark = 1
    open("mark", "w").write("left behind")
    kept = os.open("kept", os.O_CREAT | os.O_WRONLY)
    sys.argv.append("mark")
    os.chdir("/")
    """
    clean = "[False, False, False, False, [], [], '/tmp']\n"
    grading = graded(code, [Test("first", stdout=clean), Test("second", stdout=clean),
                            Test("third", stdout=clean)])  # fmt: skip
    assert grading.status == "passed", [(r.stdout, r.stderr) for r in grading.results]


def test_a_test_that_runs_out_of_time_takes_no_later_test_with_it():
    code = """\
    n = int(input())
    while n == 1:
        pass
    print(n * n)
    """
    tests = [
        Test("first", stdin="2\n", stdout="4\n"),
        Test("loops", stdin="1\n", stdout="1\n"),
        Test("after", stdin="3\n", stdout="9\n"),
        Test("after that", stdin="4\n", stdout="16\n"),
    ]
    grading = graded(code, tests, per_test_seconds=FAST)
    assert [r.passed for r in grading.results] == [True, False, True, True], grading
    assert grading.results[1].kind == "too_slow"


def test_a_thread_left_running_does_not_reach_a_later_test():
    code = FOUR + textwrap.dedent("""\
    import os, threading, time
    def start():
        def spam():
            while True:
                print("leak", flush=True)
                for fd in range(64):
                    try:
                        os.write(fd, b"\\0" * 16 + b"P")
                    except OSError:
                        pass
                time.sleep(0.001)
        threading.Thread(target=spam, daemon=True).start()
    """)
    tests = [Test("starts a thread", check="start()\nassert square(2) == 4"),
             Test("quiet", stdout=""), Test("later", check="assert square(7) == 49")]  # fmt: skip
    grading = graded(code, tests)
    assert [r.passed for r in grading.results] == [True, True, False], grading


def test_a_hidden_tests_input_reaches_no_later_visible_test():
    # a visible test never runs in a process that ran a hidden one
    code = """\
    import builtins, sys
    print(getattr(builtins, "loot", ""))
    builtins.loot = sys.stdin.read()
    sys.modules["loot"] = builtins.loot
    """
    tests = [Test("visible", stdout=""), Test("hidden", stdin="hidden-input-3e", stdout="",
                                              visible=False),
             Test("visible again", stdout="")]  # fmt: skip
    grading = graded(code, tests)
    assert "hidden-input-3e" not in grading.results[2].stdout
    assert grading.results[0].passed and grading.results[2].passed, grading


def test_a_hidden_tests_expected_output_never_enters_the_sandbox():
    secret = "the-expected-answer-7f3a"
    code = """\
    import gc, os, sys
    def look(path):
        try:
            return open(path, "rb").read()
        except Exception as error:
            return repr(error).encode()
    seen = [sys.stdin.read(), repr(sys.argv)]
    frame = sys._getframe()
    while frame is not None:
        seen.append(repr(frame.f_locals)[:100000])
        frame = frame.f_back
    for root, _dirs, files in os.walk("/tmp"):
        seen += [look(os.path.join(root, name)) for name in files]
    print(seen)
    """
    tests = [Test("hidden", stdout=secret + "\n", visible=False), Test("visible", stdout="")]
    grading = graded(code, tests)
    assert all(secret not in r.stdout + r.stderr for r in grading.results)
    assert not any(r.passed for r in grading.results)


def test_one_test_cannot_leave_anything_for_the_next():
    code = """\
    import os, sys
    secret = sys.stdin.read()
    if secret:
        os.makedirs("/tmp/a/b", exist_ok=True)
        open("/tmp/a/b/leak", "w").write(secret)
        open("/dev/shm/leak", "w").write(secret)
        os.chmod("/tmp/a", 0)
    else:
        print(sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/shm")))
    """
    tests = [Test("hidden", stdin="hidden-input", stdout="", visible=False),
             Test("visible", stdout="[] []\n")]  # fmt: skip
    grading = graded(code, tests)
    assert grading.results[1].passed, grading.results[1]


def test_only_a_sandboxs_own_scratch_directories_are_ever_emptied(monkeypatch):
    # decided without running the harness on this host: emptying a host's /tmp would
    # delete other programs' files
    from tutor.sandbox import grading_harness

    def where(cwd, root_writable):
        monkeypatch.setattr(grading_harness.os, "getcwd", lambda: cwd)
        monkeypatch.setattr(grading_harness.os, "access", lambda path, mode: root_writable)

    where("/tmp", False)
    assert grading_harness.scratch_directories(b"private") == ("/tmp", "/dev/shm")
    assert grading_harness.scratch_directories(b"shared") == ()
    where("/tmp/parsnip-run-x1", False)  # the unsafe backend's working directory
    assert grading_harness.scratch_directories(b"private") == ()
    where("/tmp", True)  # a host's writable root
    assert grading_harness.scratch_directories(b"private") == ()


def test_only_the_test_itself_is_in_its_process():
    # the hidden check's source is not in the visible test's process, nor its input
    code = """\
    import sys
    def square(x):
        print(repr(sys.stdin.read()), [repr(f.f_locals) for f in [sys._getframe(1)]])
        return x * x
    print(sys.argv)
    """
    tests = [Test("visible", check="assert square(2) == 4"),
             Test("hidden", check="secret_table = {'k': 'hidden-9c1'}\nassert square(3) == 9",
                  args=["hidden-arg-5e"], stdin="hidden-stdin-77", visible=False)]  # fmt: skip
    grading = graded(code, tests)
    visible = grading.results[0]
    assert visible.passed
    assert not any(
        word in visible.stdout for word in ("hidden-9c1", "hidden-arg-5e", "hidden-stdin-77")
    )


# --- the report carries whatever the learner printed, exactly -----------------------------------
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(printed=st.text(max_size=300), on_stderr=st.text(max_size=50))
def test_whatever_the_learner_prints_comes_back_exactly(printed, on_stderr):
    code = (
        "import sys\n"
        f"sys.stdout.write({printed!r})\n"
        f"sys.stderr.write({on_stderr!r})\n"
        "def square(x):\n"
        "    return x * x\n"
    )
    tests = [Test("prints", stdout=printed), Test("checks", check="assert square(3) == 9")]
    grading = grade(code, tests)
    assert grading.status == "passed", grading
    assert [r.stdout for r in grading.results] == [printed, printed]
    assert [r.stderr for r in grading.results] == [on_stderr, on_stderr]
    assert Grading.from_dict(json.loads(json.dumps(grading.to_dict()))) == grading


def test_every_kind_is_documented():
    assert set(KINDS) >= {"too_slow", "recursion", "memory", "syntax_error", "exit", "no_input",
                          "output_flood", "wrong_output", "wrong_value", "exception"}  # fmt: skip


# --- P's side, against a child played by this test -----------------------------------------------
def test_a_child_that_ran_its_next_test_and_ended_before_p_looked_keeps_it():
    # a fast child can pass a test, start the next one (in the same message), pass it and
    # end before P has read the first test's end: P must take the second test's word from
    # its socket, not run the test again in a new child (before, about 1 grading in 5 did)
    import os
    import socket

    from tutor.sandbox import grading_harness as h

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    first, second = os.urandom(16), os.urandom(16)

    def run(prefix, token, printed):  # what the child does for one test, passing it
        pipes = [os.pipe() for _ in range(3)]
        ends = [pipes[0][1], pipes[1][0], pipes[2][0]]  # P's: stdin's write end, the reads
        theirs.sendmsg([prefix + token + b"S"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                       b"".join(fd.to_bytes(4, h.BYTE_ORDER) for fd in ends))])  # fmt: skip
        os.write(pipes[1][1], printed)
        for fd in [*ends, pipes[0][0], pipes[1][1], pipes[2][1]]:
            os.close(fd)

    run(b"", first, b"one\n")
    run(first + b"P ready", second, b"two\n")
    theirs.send(second + b"P ready")
    theirs.close()
    pid = os.posix_spawn("/bin/true", ["true"], {})  # the child's pid: it has ended
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    children = h.Children(None, 0)
    children.own.add(pid)
    worker = h.Worker(children, pid, ours.detach())
    fields, reusable = h.run_test(worker, first, b"", 2.0, 1000)
    assert (fields[0], fields[5], reusable) == (b"pass", b"one\n", True)
    fields, reusable = h.run_test(worker, second, b"", 2.0, 1000)
    assert (fields[0], fields[5], reusable) == (b"pass", b"two\n", False)  # it is gone now
    worker.drop()
    os.waitpid(pid, 0)


def test_a_child_copies_only_the_namespaces_that_changed_since_the_fork_server_saved_them():
    # the fork server saves every module's namespace once (PREPARED); a grading's child
    # copies a namespace again only if its dict's version tag moved since: copying all of
    # them after a fork wrote to every page they are on (docs/grading.md, Figures)
    import json
    import subprocess

    from tutor.sandbox import INTERPRETER
    from tutor.sandbox.grading import HARNESS

    before = "import sys\nfor _n in ('kept', 'changed', 'emptied'):\n" \
             "    sys.modules[_n] = type(sys)(_n)\nsys.modules['changed'].x = 1\n"  # fmt: skip
    after = textwrap.dedent("""\
        word, earlier = PREPARED[2], PREPARED[3]
        sys.modules["changed"].x = 2
        sys.modules["emptied"].__dict__.clear()
        sys.modules["new"] = type(sys)("new")
        saved = {entry[0].get("__name__", "emptied"): entry for entry in _saved_now(earlier, word)}
        print(json.dumps({
            "word": word is not None,
            "reused": sorted(n for n in ("kept", "changed", "emptied", "new", "sys")
                             if saved[n] is earlier.get(id(saved[n][0]))),
            "as now": all(entry[1] == entry[0] for name, entry in saved.items()
                          if name != "__main__"),  # this very script's namespace
            "changed": saved["changed"][1]["x"],
        }))
    """)
    script = before + HARNESS + "\nimport json\n" + after
    shown = subprocess.run([INTERPRETER, "-I", "-S", "-c", script], capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    assert json.loads(shown) == {"word": True, "reused": ["kept", "sys"], "as now": True,
                                 "changed": 2}  # fmt: skip


# --- verdicts decided out of the learner's reach (docs/grading.md, "Threat model") -------------
# A search of everything the learner's code can reach from its frames: locals, globals,
# closures, defaults, containers, code objects' constants where the audit hook lets it read
# them. It is the learner's side of every test below.
REACH = """\
import sys

def reachable(limit=20000):
    seen, found, todo = set(), [], []
    frame = sys._getframe(1)
    while frame is not None:
        todo += [frame.f_locals, frame.f_globals]
        try:
            todo.append(frame.f_code)
        except RuntimeError:
            pass
        frame = frame.f_back
    while todo and len(seen) < limit:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        found.append(value)
        kind = type(value)
        try:
            if kind is dict:
                todo += list(value.keys()) + list(value.values())
            elif kind in (list, tuple, set, frozenset):
                todo += list(value)
            elif kind is type(reachable):
                todo += [value.__defaults__, value.__kwdefaults__, value.__globals__]
                todo += [cell.cell_contents for cell in value.__closure__ or ()]
                todo.append(value.__code__)
            elif kind is type(reachable.__code__):
                todo += list(value.co_consts)
        except Exception:
            pass
    return found
"""


def reaching(code):
    return REACH + textwrap.dedent(code)


def test_no_expected_value_of_a_check_is_anywhere_the_learners_code_can_reach():
    grading = graded(reaching("""\
    def square(x):
        # the expected values as text (as numbers, this code's own would be found)
        for value in reachable():
            if type(value) is int and str(value) in ("987654", "987655"):
                return value
        return 0
    """), [Test("hidden", check="assert square(7) == 987654", visible=False),
          Test("in a list", check="assert square(7) in [1, 987655]")])  # fmt: skip
    assert [r.passed for r in grading.results] == [False, False], grading
    assert [r.got for r in grading.results] == ["0", "0"]


def test_an_exceptions_message_finds_nothing_to_forge_a_pass_with():
    # what the failure describer ran of the learner's (__str__) once held the driver's and
    # the checks' code objects in its frame: any bytes reachable then are written back
    assert_never_passes(
        reaching("""\
    import os
    class Loud(Exception):
        def __str__(self):
            for value in reachable():
                if type(value) is bytes and 16 <= len(value) <= 24:
                    for fd in range(3, 64):
                        for tail in (b"P", b"P ready", b""):
                            try:
                                os.write(fd, value[:16] + tail)
                            except OSError:
                                pass
            return "loud"
    def square(x):
        raise Loud()
    """)
    )


def test_an_attribute_hook_run_during_a_comparison_changes_no_expected_value():
    grading = assert_never_passes(reaching("""\
    class Sly:
        @property
        def __class__(self):
            for value in reachable():
                if type(value) is list:
                    value[:] = [1, 2, 3]
            return list
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__
    def square(x):
        return Sly()
    """), [Test("literal", check="assert square(7) == [1, 2, 3]", visible=False),
          Test("computed", check="expected = list(range(1, 4))\nassert square(7) == expected")])  # fmt: skip
    assert {r.kind for r in grading.results} == {"wrong_value"}


def test_borrowed_and_library_equality_passes_nothing():
    for lie in ("__eq__ = id", "__eq__ = int.__ne__", "__eq__ = __import__('typing').cast",
                "__eq__ = lambda self, other: True"):  # fmt: skip
        code = f"""\
        class Liar(int):
            {lie}
            __hash__ = int.__hash__
        def square(x):
            return Liar(50)
        """
        assert_never_passes(code, [HIDDEN, Test("computed", check="assert square(7) == 7 * 7")])
    assert_never_passes("""\
    from unittest import mock
    def square(x):
        return mock.ANY
    """, [HIDDEN, Test("computed", check="assert square(7) == 7 * 7"),
          Test("in", check="assert square(7) in [49]")])  # fmt: skip


def test_a_learner_cannot_rebind_the_built_ins_a_check_uses():
    assert_never_passes("""\
    all = lambda *args: True
    len = lambda *args: 3
    isinstance = lambda *args: True
    sorted = lambda *args: [1, 4, 9]
    def squares(n):
        return [0] * n
    """, [Test("all", check="assert all(square(x) == x * x for x in range(5))"),
          Test("len", check="assert len(squares(5)) == 3"),
          Test("isinstance", check="assert isinstance(squares(2), str)"),
          Test("sorted", check="assert sorted(squares(3)) == [1, 4, 9]")])  # fmt: skip


def test_code_run_inside_a_comparison_cannot_drop_an_earlier_failed_assert():
    grading = assert_never_passes(
        reaching("""\
    class Box:
        def __eq__(self, other):
            for value in reachable():
                if type(value) is list:
                    value.clear()
            return True
        __hash__ = object.__hash__
    """),
        [Test("two asserts", check="assert square(7) == 49\nassert Box() == Box()")],
    )
    result = grading.results[0]
    assert (result.kind, result.check_line_number, result.got, result.expected) == \
        ("wrong_value", 1, "8", "49")  # fmt: skip


def test_a_failed_hidden_test_says_nothing_its_data_could_shape():
    grading = graded("""\
    import sys
    def square(x):
        if x == 7:
            raise type(f"Got_{x}_squared", (ValueError,), {})(f"x was {x}")
        sys.exit(f"x was {x}")
    """, [Test("raises", check="assert square(7) == 49", visible=False),
          Test("exits", check="assert square(123456) == 15241383936", visible=False)])  # fmt: skip
    raised, exited = grading.results
    assert "x was 7" in raised.message and raised.error_type == "ValueError"
    assert "123456" in exited.traceback  # a teacher reads it
    for result in (raised, exited):
        assert "7" not in result.hidden_message and "123456" not in result.hidden_message
        assert "Got_" not in result.hidden_message
    assert raised.hidden_message == "Your code stopped with an error (a ValueError) in this test."


def test_honest_code_that_imports_or_introspects_is_graded():
    grading = graded("""\
    import asyncio, inspect, subprocess, sys, traceback, unittest
    from unittest import *

    def signature(f):
        return str(inspect.signature(f))

    def caught():
        try:
            1 / 0
        except ZeroDivisionError:
            return traceback.format_exc().splitlines()[-1]

    async def later():
        return 3

    def deep(n):
        return n if n == 0 else 1 + deep(n - 1)
    """, [Test("inspect", check="assert signature(deep) == '(n)'"),
          Test("traceback", check="assert caught() == 'ZeroDivisionError: division by zero'"),
          Test("asyncio", check="assert asyncio.run(later()) == 3"),
          Test("unittest", check="assert issubclass(TestCase, unittest.TestCase)"),
          Test("deep", check="sys.setrecursionlimit(5000)\nassert deep(3000) == 3000"),
          Test("a class of the check's", check=(
              "class Base:\n    def size(self):\n        return 1\n"
              "class Sub(Base):\n    def size(self):\n        return super().size() + len([1])\n"
              "assert Sub().size() == 2"))])  # fmt: skip
    assert grading.status == "passed", grading


def test_inspect_stack_works_and_what_it_reaches_passes_nothing():
    # every frame's code is readable now, the driver's too: what its constants hold is of
    # no use (the gate answers the driver's frame alone, and its own code is guarded)
    grading = assert_never_passes("""\
    import inspect, os, sys, traceback
    def square(x):
        assert any(info.function == "square" for info in inspect.stack())
        traceback.print_stack(file=open(os.devnull, "w"))
        for info in inspect.stack():
            for const in info.frame.f_code.co_consts:
                if callable(const) and getattr(const, "__name__", "") == "gate":
                    for what in ("passed", "unquiet", "records", 7, 8):
                        try:
                            value = const(what)
                            if type(value) is bytes:
                                for fd in range(3, 64):
                                    try:
                                        os.write(fd, value)
                                    except OSError:
                                        pass
                        except Exception:
                            pass
                    try:
                        const.__code__
                    except RuntimeError:
                        pass
                if type(const) is type(square.__code__):
                    try:
                        exec(const, {})
                    except BaseException:
                        pass
        return x + 1
    """)
    assert {r.kind for r in grading.results} <= {"wrong_value", "wrong_output", "too_slow"}
    assert graded(
        """\
    import inspect
    def square(x):
        return x * x if inspect.stack()[1].function == "check" else 0
    """,
        [HIDDEN],
    ).passed


def test_starting_a_process_stays_refused_once_subprocess_imports():
    result = failed(
        """\
    import subprocess
    def square(x):
        return int(subprocess.run(["echo", "49"], capture_output=True).stdout)
    """,
        Test("runs echo", check="assert square(7) == 49"),
        "not_allowed",
    )
    assert result.got is None


def test_runaway_recursion_is_recursion_whatever_limit_was_set():
    result = failed(
        """\
    import sys
    sys.setrecursionlimit(10 ** 7)
    def square(x):
        return square(x + 1)
    """,
        Test("recurses", check="assert square(7) == 49"),
        "recursion",
    )
    assert "Too deep" in result.message


def test_plain_values_compare_as_python_compares_them():
    grading = graded("""\
    from collections import Counter, namedtuple
    Pair = namedtuple("Pair", "a b")
    def pair():
        return Pair(1, 2)
    def counts():
        return Counter("aab")
    def half():
        return 2.0
    def yes():
        return 1
    """, [Test("namedtuple", check="assert pair() == (1, 2)"),
          Test("Counter", check="assert counts() == {'a': 2, 'b': 1}"),
          Test("float", check="assert half() == 2"),
          Test("bool", check="assert yes() == True"),
          Test("order", check="assert (half(), yes()) < (2.0, 5)"),
          Test("list is no tuple", check="assert list(pair()) == (1, 2)"),
          Test("nan", check="assert float('nan') == float('nan')"),
          Test("is", check="assert yes() is True")])  # fmt: skip
    assert [r.passed for r in grading.results] == [True] * 5 + [False] * 3, grading


# values of plain types, nested, as a check can return them
PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
    | st.binary() | st.complex_numbers(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=4)
    | st.frozensets(st.integers() | st.text(max_size=3), max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(value=PLAIN, other=PLAIN)
def test_plain_values_round_trip_and_compare_exactly_as_python_does(value, other):
    from tutor.sandbox import comparing, grading_harness

    encode = grading_harness._encoder()
    decoded = comparing.decode(encode(value))
    assert decoded == value and type(decoded) is type(value)
    assert comparing.plain(decoded)
    site = comparing.Site("==", comparing.MISSING, other, 1)
    record = comparing.Record(0, encode(value), b"N", None)
    assert comparing.judge(site, record)[0] == (value == other)


# --- numbers of other types: compared as Python's == compares them ---------------------------
HALVES = """\
from decimal import Decimal
from fractions import Fraction


def half(n):
    return Fraction(n, 2)


def tenth(n):
    return Decimal(n) / 10


class Liar(Fraction):
    def __eq__(self, other):
        return True


def liar():
    return Liar(1, 3)
"""


def test_a_fraction_or_a_decimal_equal_to_the_expected_number_passes_with_a_note():
    grading = graded(HALVES, [
        Test("a Fraction for 5", check="assert half(10) == 5"),
        Test("a Decimal for 2", check="assert tenth(20) == 2"),
        Test("a Fraction for 2.5", check="assert half(5) == 2.5"),
        Test("in a list", check="assert [half(2), tenth(10)] == [1, 1]"),
        Test("a Decimal for a Fraction", check="assert tenth(5) == half(1)"),
        Test("an int for 5", check="assert 5 == int(half(10))"),
        Test("a wrong Fraction", check="assert half(3) == 1"),
        Test("a subclass's __eq__ counts for nothing", check="assert liar() == 7"),
        Test("a Decimal less than", check="assert tenth(5) < 0.25"),
    ])  # fmt: skip
    assert [r.passed for r in grading.results] == [True] * 6 + [False] * 3, grading
    five, two, half_, *_ = grading.results
    assert five.note == (
        "Right value, another type: your code gave `Fraction(5, 1)` (a Fraction) where the "
        "test expects `5` (an int). Python's == calls them equal, so the test passes; code "
        "that uses the value may still notice the type."
    )
    assert "`Decimal('2')` (a Decimal)" in two.note and "`2.5` (a float)" in half_.note
    assert [r.note for r in grading.results[3:6]] == ["", "", ""]  # no literal number to name
    wrong, liar, less = grading.results[6:]
    assert (wrong.kind, wrong.got, wrong.expected) == ("wrong_value", "Fraction(3, 2)", "1")
    assert (liar.got, less.got) == ("Fraction(1, 3)", "Decimal('0.5')")


def test_a_class_dressed_as_a_fraction_is_read_by_what_it_holds_and_runs_nothing():
    """A key of the class's own that a look-up of "_numerator" would compare with (same
    hash) ends the program when compared: the grader reads the class without a look-up."""
    code = """\
    armed = []
    class Key(str):
        def __eq__(self, other):
            if armed:
                raise SystemExit("the grader compared a key")
            return str.__eq__(self, other)
        def __hash__(self):
            return hash("_numerator")
    Fake = type("Fraction", (), {"__slots__": ("_numerator", "_denominator"),
                                 "__module__": "fractions", Key("other"): 0})
    def fake(top, bottom):
        value = Fake()
        value._numerator, value._denominator = top, bottom
        return value
    two, not_numbers, no_denominator = fake(6, 3), fake("6", 3), fake(6, 0)
    armed.append(True)
    """
    grading = graded(code, [
        Test("what it holds", check="assert two == 2"),
        Test("not numbers", check="assert not_numbers == 2"),
        Test("no denominator", check="assert no_denominator == 2"),
    ])  # fmt: skip
    assert [r.passed for r in grading.results] == [True, False, False], grading
    assert grading.results[1].got == "<an object of class Fraction>"
    assert grading.results[1].kind == grading.results[2].kind == "wrong_value"


NUMBERS = (
    st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.fractions(max_denominator=10**6)
    | st.decimals(allow_nan=False, places=None).filter(lambda d: d.is_finite())
)


@settings(max_examples=300, deadline=None)
@given(value=NUMBERS, expected=NUMBERS | st.integers(-5, 5))
def test_numbers_of_every_type_compare_on_the_host_exactly_as_python_does(value, expected):
    from tutor.sandbox import comparing, grading_harness

    encode = grading_harness._encoder()
    decoded = comparing.decode(encode(value))
    assert decoded == value and type(decoded) is type(value)
    for op, holds in (("==", value == expected), ("!=", value != expected),
                      ("<", value < expected), (">=", value >= expected)):  # fmt: skip
        site = comparing.Site(op, comparing.MISSING, expected, 1)
        record = comparing.Record(0, encode(value), b"N", None)
        assert comparing.judge(site, record)[0] == holds
