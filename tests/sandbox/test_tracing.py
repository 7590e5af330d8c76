"""Tracing a program step by step in the sandbox (docs/tracing.md).

Every trace these tests make is checked against the format (check_trace) on top of what
each test asserts. Hostile programs must give a clear, well-formed trace: stopped with the
steps recorded so far, never an exception or a hang."""

import json
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from tutor.sandbox import Limits
from tutor.sandbox.tracing import STOP_REASONS, Trace, check_trace, trace

SEED_LESSON = (
    Path(__file__).resolve().parents[2] / "content/local-models/optimising-speed-and-memory.yaml"
)
QUICK = Limits(wall_seconds=3, cpu_seconds=2)


def traced(code, **kwargs):
    result = trace(textwrap.dedent(code), **kwargs)
    data = result.to_dict()
    assert check_trace(data) is None, check_trace(data)
    assert json.loads(json.dumps(data)) == data  # JSON-able as it is
    return result


def stopped(code, reason, **kwargs):
    result = traced(code, **kwargs)
    assert result.status == "stopped", result.to_dict()
    assert result.stopped["reason"] == reason, result.stopped
    assert result.stopped["step"] == len(result.steps) - 1
    assert result.stopped["message"] and "Parsnip" in result.stopped["message"] or reason == "crash"
    return result


def locals_of(frame):
    return dict((name, value) for name, value in frame["locals"])


def shown(step, value):
    """A value as plain Python data, following refs through the step's heap (a cycle shows
    as "<cycle>")."""
    return _shown(step["heap"], value, ())


def _shown(heap, value, seen):
    if "ref" not in value:
        return value["repr"]
    if value["ref"] in seen:
        return "<cycle>"
    seen = (*seen, value["ref"])
    entry = heap[value["ref"]]
    if entry["type"] in ("function", "class"):
        return f"<{entry['type']} {entry['name']}>"
    if "items" in entry:
        return [_shown(heap, item, seen) for item in entry["items"]]
    if "entries" in entry:
        return {_shown(heap, k, seen): _shown(heap, v, seen) for k, v in entry["entries"]}
    if "attrs" in entry:
        return {name: _shown(heap, v, seen) for name, v in entry["attrs"]}
    return f"<{entry['type']} {entry['name']}>"


def globals_at(step):
    return {name: shown(step, value) for name, value in step["frames"][0]["locals"]}


# --- the seed lesson ----------------------------------------------------------------------
def seed_snippets():
    lesson = YAML(typ="safe").load(SEED_LESSON.read_text(encoding="utf-8"))
    return [block for block in lesson["blocks"] if block["kind"] == "snippet"]


def test_the_seed_lesson_has_two_snippets():
    assert [s["key"] for s in seed_snippets()] == ["backend-latency", "kv-cache-vram"]


@pytest.mark.parametrize("snippet", seed_snippets(), ids=lambda s: s["key"])
def test_each_seed_snippet_steps_through_to_its_declared_output(snippet):
    code = snippet["code"]
    result = traced(code)
    assert result.status == "complete"
    assert result.stdout == snippet["output"]
    lines = code.splitlines()
    steps = result.steps
    assert steps[0]["line"] == 1 and steps[0]["event"] == "line"  # the def
    assert steps[-1]["event"] == "return" and steps[-1]["stdout_len"] == len(result.stdout)
    for before, after in zip(steps, steps[1:], strict=False):
        assert before["stdout_len"] <= after["stdout_len"]
    for step in steps:
        assert 1 <= step["line"] <= len(lines) and lines[step["line"] - 1].strip()
        assert step["frames"][0]["function"] == "<module>"
    function = code.split("def ", 1)[1].split("(", 1)[0]  # backend_latency, kv_cache_vram
    calls = [s for s in steps if s["event"] == "call"]
    returns = [s for s in steps if s["event"] == "return" and len(s["frames"]) == 2]
    assert calls and len(calls) == len(returns)
    for call in calls:
        assert [f["function"] for f in call["frames"]] == ["<module>", function]
    returned = [s["frames"][-1]["returned"]["repr"] for s in returns]
    if snippet["key"] == "backend-latency":
        assert returned == ["2.0", "2.0", "1.0", "3.0"]
        assert [globals_at(s).get("backend") for s in calls] == ["'llama.cpp'"] * 2 + ["'vllm'"] * 2
        assert locals_of(calls[2]["frames"][1]) == {
            "backend": {"type": "str", "repr": "'vllm'"},
            "device": {"type": "str", "repr": "'nvidia'"},
        }
    else:
        assert returned == ["16.0", "8.0"]
    # the output so far, at the step after each print, is what the snippet had printed
    printed = [s for s in steps if s["stdout_len"] and s["event"] == "line"]
    assert result.stdout.startswith(result.stdout[: printed[0]["stdout_len"]])
    assert result.stdout[: printed[0]["stdout_len"]] == "\n"


# --- what a step shows ----------------------------------------------------------------------
def test_calls_push_frames_and_returns_pop_them_with_their_values():
    result = traced(
        """\
        def square(x):
            return x * x

        def total(numbers):
            result = 0
            for n in numbers:
                result += square(n)
            return result

        answer = total([1, 2])
        """
    )
    assert result.status == "complete"
    depths = [(s["event"], [f["function"] for f in s["frames"]]) for s in result.steps]
    assert ("call", ["<module>", "total"]) in depths
    assert ("call", ["<module>", "total", "square"]) in depths
    returns = [s for s in result.steps if s["event"] == "return"]
    assert [s["frames"][-1]["function"] for s in returns] == [
        "square",
        "square",
        "total",
        "<module>",
    ]
    assert [s["frames"][-1]["returned"]["repr"] for s in returns[:3]] == ["1", "4", "5"]
    square_call = next(s for s in result.steps if s["event"] == "call" and len(s["frames"]) == 3)
    assert square_call["line"] == 1
    assert locals_of(square_call["frames"][2]) == {"x": {"type": "int", "repr": "1"}}
    assert square_call["frames"][1]["line"] == 7  # the caller waits on its line
    assert globals_at(result.steps[-1])["answer"] == "5"
    for step in result.steps:  # "returned" only on a return step, on the innermost frame
        for index, frame in enumerate(step["frames"]):
            assert ("returned" in frame) == (
                step["event"] == "return" and index == len(step["frames"]) - 1
            )


def test_two_names_for_one_list_share_a_ref_and_it_keeps_its_id_as_it_changes():
    result = traced(
        """\
        items = [1, 2]
        alias = items
        copy = list(items)
        alias.append(3)
        done = True
        """
    )
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    assert names["items"] == names["alias"] and "ref" in names["items"]
    assert names["copy"] != names["items"]
    assert shown(last, names["items"]) == ["1", "2", "3"]
    assert shown(last, names["copy"]) == ["1", "2"]
    refs = [locals_of(s["frames"][0]).get("items") for s in result.steps[1:]]
    assert all(ref == refs[0] for ref in refs)  # the same id at every step
    assert refs[0] == {"ref": "1"}  # numbered in order of first sight


def test_an_exception_step_names_the_exception_and_its_line():
    result = traced(
        """\
        def check(value):
            if value < 0:
                raise ValueError("bad value")
            return value

        try:
            check(-1)
        except ValueError as error:
            message = str(error)
        check(-2)
        """
    )
    assert result.status == "complete"  # it ran to its end: an uncaught exception
    exceptions = [s for s in result.steps if s["event"] == "exception"]
    assert [(s["line"], s["frames"][-1]["function"]) for s in exceptions] == [
        (3, "check"), (7, "<module>"), (3, "check"), (10, "<module>")
    ]  # fmt: skip
    assert {s["exception"] for s in exceptions} == {"ValueError: bad value"}
    assert all(s["exception"] is None for s in result.steps if s["event"] != "exception")
    assert globals_at(result.steps[-1])["message"] == "'bad value'"


def test_a_program_reads_its_stdin_and_the_output_so_far_grows_with_each_print():
    result = traced(
        """\
        name = input("Name? ")
        print("Hello,", name)
        n = int(input())
        print(n * 2)
        """,
        stdin="Ada\n21\n",
    )
    assert result.status == "complete"
    assert result.stdout == "Name? Hello, Ada\n42\n"
    lengths = [(s["line"], s["stdout_len"]) for s in result.steps if s["event"] == "line"]
    assert lengths == [(1, 0), (2, 6), (3, 17), (4, 17)]
    assert result.steps[-1]["stdout_len"] == len(result.stdout)


def test_non_ascii_output_is_counted_in_characters():
    result = traced("print('héllo ✓')\nx = 1\n")
    assert result.stdout == "héllo ✓\n"
    assert result.steps[1]["stdout_len"] == len("héllo ✓\n")


def test_objects_of_every_kind():
    result = traced(
        """\
        import math
        class Point:
            dimensions = 2
            def __init__(self, x, y):
                self.x = x
                self.y = y
        class Slotted:
            __slots__ = ("a", "b")
        s = Slotted()
        s.a = 1
        p = Point(1, 2.5)
        things = {"t": (1, "two"), "s": {3}, "f": frozenset(), "n": None, "b": b"x", "c": 1j}
        r = range(3)
        done = True
        """
    )
    last = result.steps[-1]
    heap = last["heap"]
    names = locals_of(last["frames"][0])
    assert heap[names["p"]["ref"]] == {
        "type": "instance", "name": "Point", "more": 0,
        "attrs": [["x", {"type": "int", "repr": "1"}], ["y", {"type": "float", "repr": "2.5"}]],
    }  # fmt: skip
    assert heap[names["s"]["ref"]]["attrs"] == [["a", {"type": "int", "repr": "1"}]]
    point_class = heap[names["Point"]["ref"]]
    assert point_class["type"] == "class" and point_class["name"] == "Point"
    # its methods, __init__ among them, and no other dunder; no base but object
    assert [name for name, _ in point_class["attrs"]] == ["dimensions", "__init__"]
    assert point_class["bases"] == []
    assert heap[names["math"]["ref"]] == {"type": "module", "name": "math", "more": 0}
    assert heap[names["r"]["ref"]] == {"type": "other", "name": "range", "text": "range(0, 3)",
                                       "more": 0}  # fmt: skip
    things = heap[names["things"]["ref"]]
    assert things["type"] == "dict"
    kinds = {
        k["repr"]: (heap[v["ref"]]["type"] if "ref" in v else v["type"])
        for k, v in things["entries"]
    }
    assert kinds == {"'t'": "tuple", "'s'": "set", "'f'": "frozenset", "'n'": "NoneType",
                     "'b'": "bytes", "'c'": "complex"}  # fmt: skip
    assert shown(last, names["things"])["'t'"] == ["1", "'two'"]
    assert "__builtins__" not in names and "__name__" not in names


def test_large_values_are_summarised_with_what_was_left_out():
    result = traced(
        """\
        numbers = list(range(1000))
        text = "x" * 500
        table = {i: i for i in range(60)}
        big = 7 ** 500
        done = True
        """
    )
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    numbers = last["heap"][names["numbers"]["ref"]]
    assert len(numbers["items"]) == 50 and numbers["more"] == 950
    assert names["text"] == {"type": "str", "repr": "'" + "x" * 100 + "'", "len": 500}
    table = last["heap"][names["table"]["ref"]]
    assert len(table["entries"]) == 50 and table["more"] == 10
    assert names["big"]["len"] == len(str(7**500)) and names["big"]["repr"].startswith("3")


# --- hostile programs -----------------------------------------------------------------------
def test_a_million_steps_stop_at_the_step_cap_and_say_so():
    result = stopped("x = 0\nwhile True:\n    x += 1\n", "steps")
    assert len(result.steps) == 5000
    assert result.stopped["message"] == (
        "Parsnip stopped after 5,000 steps: the program may loop forever; here is where it was."
    )
    assert result.steps[-1]["line"] in (2, 3)  # stopped by the cap (reason "steps"), not the clock


def test_the_step_cap_can_be_raised_or_lowered():
    assert len(stopped("while True:\n    pass\n", "steps", max_steps=10).steps) == 10
    assert len(stopped("while True:\n    pass\n", "steps", max_steps=6000).steps) == 6000


def test_runaway_recursion_stops_at_the_size_cap_and_says_how_deep():
    result = stopped("def f(n):\n    return f(n + 1)\n\nf(0)\n", "size")
    last = result.steps[-1]
    depth = len(last["frames"]) + last["hidden_frames"]["count"]
    assert depth > 500  # not stopped at a fixed depth: the size of the trace did it
    assert f"function calls {depth - 1:,} deep" in result.stopped["message"]


@pytest.mark.parametrize("depth", [150, 300])
def test_a_correct_deep_recursion_runs_to_its_end(depth):
    result = traced(
        f"def f(n):\n    if n == 0:\n        return 0\n    return 1 + f(n - 1)\n\nprint(f({depth}))\n"
    )
    assert result.status == "complete" and result.stdout == f"{depth}\n"
    deepest = max(result.steps, key=lambda step: step.get("hidden_frames", {}).get("count", 0))
    # the module and 4 calls, then the 15 innermost calls: the calls between are counted
    assert len(deepest["frames"]) == 20
    assert deepest["hidden_frames"] == {"after": 5, "count": depth + 2 - 20}  # f(depth)..f(0)
    assert [locals_of(frame)["n"]["repr"] for frame in deepest["frames"][1:6]] == [
        str(depth),
        str(depth - 1),
        str(depth - 2),
        str(depth - 3),
        "14",
    ]
    assert locals_of(deepest["frames"][-1])["n"]["repr"] == "0"


def test_a_recursion_error_the_program_asks_for_stops_with_recursion():
    result = stopped(
        "import sys\nsys.setrecursionlimit(60)\ndef f(n):\n    return f(n + 1)\n\nf(0)\n",
        "recursion",
    )
    # the RecursionError's own step when the tracer had room to record it
    last = result.steps[-1]
    assert len(last["frames"]) + last["hidden_frames"]["count"] > 20


def test_a_huge_list_is_traced_summarised():
    result = traced("x = list(range(10**6))\ny = len(x)\n")
    assert result.status == "complete"
    entry = result.steps[-1]["heap"]["1"]
    assert entry["type"] == "list" and entry["more"] == 10**6 - 50


def test_a_trace_larger_than_the_size_cap_stops_with_size():
    result = stopped("x = []\nwhile True:\n    x.append('y' * 100)\n", "size", max_bytes=200_000)
    assert 10 < len(result.steps) < 5000
    assert len(json.dumps(result.to_dict())) < 300_000


def test_a_hostile_repr_and_friends_never_run():
    result = traced(
        """\
        class Nasty:
            def __repr__(self):
                print("repr ran")
                raise ValueError("no repr")
            def __str__(self):
                while True:
                    pass
            def __getattribute__(self, name):
                print("getattribute ran")
                while True:
                    pass
            def __getattr__(self, name):
                while True:
                    pass
            def __eq__(self, other):
                print("eq ran")
                raise ValueError
            __hash__ = None
            def __len__(self):
                while True:
                    pass
        n = Nasty()
        pair = [n, n]
        table = {1: n}
        print("ok")
        """
    )
    assert result.status == "complete"
    assert result.stdout == "ok\n"
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    assert last["heap"][names["n"]["ref"]] == {
        "type": "instance",
        "name": "Nasty",
        "attrs": [],
        "more": 0,
    }
    assert last["heap"][names["pair"]["ref"]]["items"] == [names["n"], names["n"]]


def test_a_hostile_metaclass_and_dict_subclass_never_run():
    result = traced(
        """\
        class Meta(type):
            def __getattribute__(cls, name):
                while True:
                    pass
            def __hash__(cls):
                while True:
                    pass
            def __eq__(cls, other):
                while True:
                    pass
            __name__ = property(lambda cls: 1 / 0)
        class Weird(dict, metaclass=Meta):
            def items(self):
                while True:
                    pass
            def __iter__(self):
                while True:
                    pass
            def keys(self):
                while True:
                    pass
        class Lying(list):
            def __getitem__(self, index):
                while True:
                    pass
            def __len__(self):
                return -1
        w = Weird(a=1)
        l = Lying([1, 2])
        done = 1
        """,
        limits=QUICK,
    )
    assert result.status == "complete"
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    assert last["heap"][names["w"]["ref"]]["name"] == "Weird"
    assert shown(last, names["w"]) == {"'a'": "1"}
    assert shown(last, names["l"]) == ["1", "2"]


def test_an_exception_with_a_hostile_str_is_named_without_running_it():
    result = traced(
        """\
        class Sneaky(Exception):
            def __str__(self):
                while True:
                    pass
        class Thing:
            pass
        try:
            raise Sneaky(Thing())
        except Sneaky:
            pass
        try:
            raise KeyError("k")
        except KeyError:
            pass
        """,
        limits=QUICK,
    )
    assert result.status == "complete"
    exceptions = [s["exception"] for s in result.steps if s["event"] == "exception"]
    assert exceptions == ["Sneaky: <Thing object>", "KeyError: 'k'"]


def test_cycles_are_refs():
    result = traced("a = []\na.append(a)\nd = {}\nd['me'] = d\nt = (a, d)\n")
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    assert last["heap"][names["a"]["ref"]]["items"] == [names["a"]]
    assert last["heap"][names["d"]["ref"]]["entries"] == [
        [{"type": "str", "repr": "'me'"}, names["d"]]
    ]
    assert shown(last, names["t"]) == [["<cycle>"], {"'me'": "<cycle>"}]


@pytest.mark.parametrize(
    "attempt",
    [
        "sys.settrace(None)",
        "sys.settrace(lambda *args: None)",
        "sys.setprofile(lambda *args: None)",
        "threading.settrace(None); threading.Thread(target=len, args=([],)).start()",
        "sys._getframe().f_trace = None",
        "sys._getframe().f_trace_lines = False",
        "sys._getframe().f_trace_opcodes = True",
    ],
)
def test_removing_or_replacing_the_tracer_is_refused_or_harmless(attempt):
    code = f"import sys, threading\ntry:\n    {attempt}\nexcept Exception as error:\n    refused = str(error)\nx = 1\ny = 2\n"
    result = traced(code)
    assert result.status == "complete"
    if "f_trace" in attempt:
        return  # it can hide that frame's own steps, nothing more
    assert [s["line"] for s in result.steps if s["event"] == "line"][-2:] == [6, 7]
    if "setprofile" in attempt or "sys.settrace" in attempt:
        assert "does not allow" in globals_at(result.steps[-1])["refused"]


def test_printing_a_fake_report_is_only_output():
    fake = json.dumps({"version": 1, "status": "complete", "steps": []})
    code = (
        "import sys\n"
        "print('0' * 32)\n"
        "print('5:trace0:1:E1:S0 [1,\"line\",null,[],[]]')\n"
        f"print({fake!r})\n"
        "sys.stdout.write('1:E')\n"
        "x = 1\n"
    )
    result = traced(code)
    assert result.status == "complete"
    assert "5:trace" in result.stdout and fake in result.stdout
    assert [s["line"] for s in result.steps if s["event"] == "line"] == [1, 2, 3, 4, 5, 6]


def test_writing_on_the_tracers_own_descriptors_spoils_only_this_trace():
    code = """\
    import os
    x = 1
    for fd in range(3, 40):
        try:
            os.write(fd, b"E\\nQsteps\\n")
        except OSError:
            pass
    y = 2
    """
    result = traced(code)
    assert result.status == "complete"
    assert [s["line"] for s in result.steps if s["event"] == "line"][-2:] == [3, 8]
    errors = [s["exception"] for s in result.steps if s["event"] == "exception"]
    assert errors == ["OSError: [Errno 9] Bad file descriptor"] * 37  # no descriptor but 0-2


@pytest.mark.parametrize(
    "scribble",
    [
        "garbage",  # not a record
        'V{"type": "nope"}',  # a value that is not one
        'S0 [1, "line", null, [["f", 1, 99999, -1]], []]',  # locals that were never written
        'S0 [1, "line", null, [], [5, 99999]]',  # an object that was never written
    ],
)
def test_scribbling_on_the_tracers_log_ends_the_trace_there(scribble):
    code = """\
    import sys

    def find_log(function):
        todo, seen = [function], []
        while todo:
            item = todo.pop()
            if any(item is s for s in seen):
                continue
            seen.append(item)
            owner = getattr(item, "__self__", None)
            if type(owner).__name__ == "mmap":
                return owner
            for cell in getattr(item, "__closure__", None) or ():
                try:
                    todo.append(cell.cell_contents)
                except ValueError:
                    pass

    log = find_log(sys.gettrace())
    x = 1
    log.write(SCRIBBLE.encode() + b"\\n")
    y = 2
    """
    result = stopped(code.replace("SCRIBBLE", repr(scribble)), "crash")
    assert result.steps[-1]["line"] == 21  # the write: what follows it is not read
    assert "x" in locals_of(result.steps[-1]["frames"][0])


def test_os_exit_stops_with_the_steps_so_far():
    result = stopped("import os\nx = 1\nprint('bye')\nos._exit(0)\nprint('never')\n", "crash")
    assert [s["line"] for s in result.steps] == [1, 2, 3, 4]
    assert result.stdout == "bye\n"
    assert "os._exit" in result.stopped["message"]


def test_sys_exit_ends_the_program_normally():
    result = traced("import sys\nx = 1\nsys.exit(3)\ny = 2\n")
    assert result.status == "complete"
    assert any(s["exception"] == "SystemExit: 3" for s in result.steps)


def test_running_out_of_memory_stops_with_memory():
    result = stopped("x = 1\ny = [0] * (10**9)\n", "memory")
    assert result.steps[-1]["exception"] == "MemoryError"
    assert "256 MiB" in result.stopped["message"]


def test_a_program_that_sleeps_past_the_time_limit_stops_with_time():
    started = time.monotonic()
    result = stopped("import time\nx = 1\ntime.sleep(60)\n", "time", limits=QUICK)
    assert [s["line"] for s in result.steps] == [1, 2, 3]
    assert "3 seconds" in result.stopped["message"]
    assert time.monotonic() - started < 30  # its 3 s limit, not the 60 s it asked for


def test_a_long_computation_in_one_line_stops_with_time():
    result = stopped("x = 1\ny = sum(range(10**11))\n", "time", limits=QUICK)
    assert result.steps[-1]["line"] == 2
    # its CPU time (2 s) runs out before its wall-clock time (3 s) on a quiet machine
    assert (
        "after 2 seconds of computing" in result.stopped["message"]
        or "after 3 seconds" in (result.stopped["message"])
    )


def test_an_output_flood_stops_with_output():
    result = stopped("while True:\n    print('x' * 1000)\n", "output")
    assert len(result.stdout) == Limits().output_bytes
    assert "64 KiB" in result.stopped["message"]


@pytest.mark.parametrize(
    "attempt",
    [
        "os.kill(os.getppid(), 9)",
        "os.kill(1, 9)",
        "open(f'/proc/{os.getppid()}/fd/1', 'w').write('forged')",
        "os.open('/proc/self/mem', os.O_RDONLY)",
        "os.fork()",
        "import ctypes",
    ],
)
def test_the_traced_program_cannot_reach_the_harness(attempt):
    code = f"import os\ntry:\n    {attempt}\nexcept Exception as error:\n    refused = type(error).__name__\nx = 1\n"
    result = traced(code)
    assert result.status == "complete", result.to_dict()
    assert globals_at(result.steps[-1])["refused"] in (
        "'NotAllowedWhileTracing'",
        "'PermissionError'",
    )
    assert result.steps[-1]["line"] == 6


def test_closing_stdout_does_not_stop_the_trace():
    result = traced("import os\nprint('a')\nos.close(1)\nos.close(2)\nx = 1\n")
    assert result.status == "complete"
    assert result.stdout == "a\n" and result.steps[-1]["line"] == 5


def test_a_syntax_error_has_its_line_and_no_steps():
    result = traced("x = 1\nif x\n    y = 2\n")
    assert result.status == "syntax_error" and result.steps == []
    assert result.error["line"] == 2 and "line 2" in result.error["message"]


def test_code_the_sandbox_refuses_is_a_failed_trace():
    result = traced("x = 1\0")
    assert result.status == "failed" and "NUL" in result.error["message"]


# --- round trips ----------------------------------------------------------------------------
def test_a_real_trace_round_trips_through_json():
    result = traced("a = [1, {'k': (2, 3)}]\nb = a\ndef f(x):\n    return x\nf(a)\n")
    again = Trace.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result and again.to_dict() == result.to_dict()
    assert Trace.from_dict(result.to_dict(), check=False) == result


_names = st.text(min_size=1, max_size=8)
_plain = st.fixed_dictionaries(
    {"type": st.sampled_from(["int", "float", "str", "bool", "NoneType", "complex", "bytes"]),
     "repr": st.text(max_size=20)},
    optional={"len": st.integers(0, 10**6)},
)  # fmt: skip


@st.composite
def traces(draw):
    refs = draw(st.lists(st.integers(1, 50).map(str), unique=True, max_size=5))
    value = st.one_of(_plain, st.sampled_from(refs).map(lambda r: {"ref": r})) if refs else _plain
    pairs = st.lists(st.tuples(_names, value).map(list), max_size=3)
    obj = st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["list", "tuple", "set", "frozenset"]),
                               "name": _names, "items": st.lists(value, max_size=3),
                               "more": st.integers(0, 99)}),
        st.fixed_dictionaries({"type": st.just("dict"), "name": _names, "more": st.integers(0, 9),
                               "entries": st.lists(st.tuples(value, value).map(list), max_size=3)}),
        st.fixed_dictionaries({"type": st.sampled_from(["instance", "class"]), "name": _names,
                               "attrs": pairs, "more": st.integers(0, 9)}),
        st.fixed_dictionaries({"type": st.sampled_from(["function", "module", "other"]),
                               "name": _names, "more": st.just(0)}),
    )  # fmt: skip
    stdout = draw(st.text(max_size=30))
    frame = st.fixed_dictionaries({"function": _names, "line": st.integers(1, 99), "locals": pairs})
    steps = draw(st.lists(st.fixed_dictionaries({
        "line": st.integers(1, 99), "event": st.sampled_from(["line", "call", "exception"]),
        "stdout_len": st.integers(0, len(stdout)), "frames": st.lists(frame, min_size=1, max_size=3),
        "heap": st.fixed_dictionaries({ref: obj for ref in refs}),
        "exception": st.none() | st.text(max_size=20),
    }), max_size=4))  # fmt: skip
    status = draw(st.sampled_from(["complete", "stopped", "syntax_error", "failed"]))
    stopped = None
    if status == "stopped":
        stopped = {"reason": draw(st.sampled_from(STOP_REASONS)), "message": draw(st.text()),
                   "step": len(steps) - 1}  # fmt: skip
    error = {"line": draw(st.integers(0, 99)), "message": draw(st.text())} if status in (
        "syntax_error", "failed") else None  # fmt: skip
    return {"version": 1, "status": status, "stopped": stopped, "error": error, "stdout": stdout,
            "steps": steps}  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=traces())
def test_any_well_formed_trace_round_trips(data):
    assert check_trace(data) is None, check_trace(data)
    through_json = json.loads(json.dumps(data))
    trace_ = Trace.from_dict(through_json)
    assert trace_.to_dict() == data
    assert Trace.from_dict(trace_.to_dict()) == trace_


def test_a_malformed_trace_is_refused():
    good = traced("x = [1]\n").to_dict()
    for broken in (
        {**good, "status": "done"},
        {**good, "steps": [{**good["steps"][0], "heap": {}}]
         if "ref" in json.dumps(good["steps"][0]["frames"]) else "no"},
        {**good, "version": 2},
        {k: v for k, v in good.items() if k != "stdout"},
    ):  # fmt: skip
        with pytest.raises(ValueError):
            Trace.from_dict(broken)


def test_nul_and_lone_surrogates_never_reach_the_trace():
    result = traced(
        """\
        class Box:
            pass
        box = Box()
        setattr(box, "a\\0b", 1)
        setattr(box, "c\\ud800", 2)
        print("x\\0y")
        try:
            raise ValueError("bad\\0value\\udc80")
        except ValueError:
            pass
        """
    )
    text = json.dumps(result.to_dict(), ensure_ascii=False)
    assert "\\u0000" not in text and "\0" not in text
    text.encode("utf-8")  # no lone surrogate
    assert result.stdout == "x\ufffdy\n"
    box = next(
        o
        for o in result.steps[-1]["heap"].values()
        if o["name"] == "Box" and o["type"] == "instance"
    )
    assert [name for name, _ in box["attrs"]] == ["a\ufffdb", "c\ufffd"]
    assert "ValueError: bad\ufffdvalue\ufffd" in [s["exception"] for s in result.steps]


def test_builtins_the_learner_replaces_are_not_the_tracers():
    result = traced(
        """\
        import builtins

        def loud(*args, **kwargs):
            print("the tracer called the learner's code")
            while True:
                pass

        for name in ("enumerate", "sum", "len", "repr", "isinstance", "zip", "map", "all",
                     "issubclass", "id", "str", "min", "any", "iter", "next", "reversed",
                     "sorted", "range", "set"):
            setattr(builtins, name, loud)

        def make(start):
            def counter(step=[1]):  # a closure with a default: kept frame, signature
                return start + step[0]
            return counter

        made = make(3)

        class Meta(type):
            def __eq__(cls, other):
                print("the metaclass's == ran")
                return True
            __hash__ = type.__hash__

        class Odd(Exception, metaclass=Meta):
            pass

        items = [1, 2]
        try:
            raise ValueError(Odd)
        except ValueError:
            pass
        done = True
        """,
        limits=QUICK,
    )
    assert result.status == "complete", result.stopped
    assert result.stdout == ""
    assert "ValueError: <Meta object>" in [s["exception"] for s in result.steps]
    assert [frame["function"] for frame in result.steps[-1]["kept"]] == ["make"]


def test_a_list_passed_to_a_function_is_the_same_object_in_both_frames():
    result = traced(
        """\
        def add(items, item):
            items.append(item)
            return len(items)

        basket = ["pear"]
        size = add(basket, "fig")
        """
    )
    inside = next(s for s in result.steps if s["event"] == "return" and len(s["frames"]) == 2)
    caller, callee = (locals_of(f) for f in inside["frames"])
    assert callee["items"] == caller["basket"]
    assert shown(inside, callee["items"]) == ["'pear'", "'fig'"]
    assert inside["frames"][1]["returned"] == {"type": "int", "repr": "2"}


def test_input_with_nothing_left_to_read_is_an_exception_step():
    result = traced("first = input()\nsecond = input()\n", stdin="only one line\n")
    assert result.status == "complete"
    assert result.steps[-2]["exception"] == "EOFError: EOF when reading a line"
    assert globals_at(result.steps[-1]) == {"first": "'only one line'"}


# --- issue 23: what Python really does ------------------------------------------------------
@pytest.mark.parametrize(
    "imports", ["import asyncio", "import subprocess", "from unittest import *"]
)
def test_a_program_that_imports_what_starts_processes_steps_to_its_end(imports):
    result = traced(f"{imports}\nx = 1\nprint(x)\n")
    assert result.status == "complete", result.to_dict()
    assert result.stdout == "1\n"
    assert [step["line"] for step in result.steps] == [1, 2, 3, 3]


@pytest.mark.parametrize(
    "attempt",
    [
        "subprocess.run(['true'])",
        "_posixsubprocess.fork_exec()",
        "del sys.modules['_posixsubprocess']; import _posixsubprocess",
    ],
)
def test_starting_a_program_is_still_refused(attempt):
    code = (
        "import sys, subprocess, _posixsubprocess\n"
        f"try:\n    {attempt}\nexcept Exception as error:\n    refused = type(error).__name__\nx = 1\n"
    )
    result = traced(code)
    assert result.status == "complete", result.to_dict()
    assert globals_at(result.steps[-1])["refused"] == "'NotAllowedWhileTracing'"


def kept_frames(step):
    return {frame["function"]: locals_of(frame) for frame in step.get("kept", [])}


def test_a_counter_made_by_a_factory_keeps_its_frame_drawn_after_it_returned():
    result = traced(
        """\
        def make_counter():
            count = 0
            def counter():
                nonlocal count
                count += 1
                return count
            return counter

        tick = make_counter()
        tick()
        tick()
        done = True
        """
    )
    after = [step for step in result.steps if step["line"] == 10 and len(step["frames"]) == 1]
    first = after[0]  # make_counter returned: its frame is kept, with what counter uses
    kept = first["kept"]
    assert [frame["function"] for frame in kept] == ["make_counter"]
    assert locals_of(kept[0]) == {"count": {"type": "int", "repr": "0"}}
    tick = first["heap"][locals_of(first["frames"][0])["tick"]["ref"]]
    assert tick["type"] == "function" and tick["name"] == "counter"
    assert tick["parent"] == kept[0]["id"]  # the frame it was made in
    assert tick["signature"] == "()"
    # while make_counter runs, counter's parent is that running frame
    inside = next(step for step in result.steps if len(step["frames"]) == 2 and
                  "counter" in locals_of(step["frames"][1]))  # fmt: skip
    counter = inside["heap"][locals_of(inside["frames"][1])["counter"]["ref"]]
    assert counter["parent"] == inside["frames"][1]["id"] == kept[0]["id"]
    assert "kept" not in inside
    last = result.steps[-1]
    assert kept_frames(last) == {"make_counter": {"count": {"type": "int", "repr": "2"}}}


def test_lambdas_made_in_a_loop_share_the_last_value():
    result = traced(
        """\
        def make():
            makers = []
            for i in range(3):
                makers.append(lambda: i)
            return makers

        makers = make()
        print([f() for f in makers])
        """
    )
    assert result.stdout == "[2, 2, 2]\n"
    step = next(s for s in result.steps if s["line"] == 8 and len(s["frames"]) == 1)
    assert kept_frames(step) == {"make": {"i": {"type": "int", "repr": "2"}}}
    lambdas = shown(step, locals_of(step["frames"][0])["makers"])
    assert lambdas == ["<function <lambda>>"] * 3
    heap = step["heap"]
    parents = {heap[item["ref"]]["parent"] for item in
               heap[locals_of(step["frames"][0])["makers"]["ref"]]["items"]}  # fmt: skip
    assert parents == {step["kept"][0]["id"]}


def test_a_function_shows_its_signature_and_its_shared_default_list_from_the_start():
    result = traced(
        """\
        def add(x, items=[], *more, sep=", ", **options):
            items.append(x)
            return items

        first = add(1)
        second = add(2)
        """
    )
    defined = result.steps[1]  # the def has run: nothing called it yet
    add = defined["heap"][locals_of(defined["frames"][0])["add"]["ref"]]
    assert add["signature"] == "(x, items=…, *more, sep=', ', **options)"
    assert [name for name, _ in add["attrs"]] == ["items", "sep"]
    default = add["attrs"][0][1]
    assert defined["heap"][default["ref"]] == {"type": "list", "name": "list", "items": [],
                                              "more": 0}  # fmt: skip
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    add = last["heap"][names["add"]["ref"]]
    # one list: the default, the first result and the second are the same object
    assert add["attrs"][0][1]["ref"] == names["first"]["ref"] == names["second"]["ref"]
    assert shown(last, names["first"]) == ["1", "2"]


def test_a_class_shows_its_methods_and_bases():
    result = traced(
        """\
        class Animal:
            def speak(self):
                return "..."
        class Dog(Animal):
            def __init__(self, name):
                self.name = name
        done = True
        """
    )
    last = result.steps[-1]
    names = locals_of(last["frames"][0])
    dog = last["heap"][names["Dog"]["ref"]]
    assert dog["bases"] == ["Animal"]
    assert [name for name, _ in dog["attrs"]] == ["__init__"]  # not empty: its one method
    init = last["heap"][dog["attrs"][0][1]["ref"]]
    assert (init["type"], init["name"], init["signature"]) == (
        "function",
        "__init__",
        "(self, name)",
    )
    assert "parent" not in init  # made in a class body, not in a function's frame
    animal = last["heap"][names["Animal"]["ref"]]
    assert animal["bases"] == [] and [name for name, _ in animal["attrs"]] == ["speak"]


def test_c_level_objects_show_a_short_stable_form_without_addresses():
    code = """\
        import functools, re, array
        p = functools.partial(print, 1)
        m = re.match("a+", "aaab")
        a = array.array("i", [1, 2, 3])
        pattern = re.compile("b+")
        done = True
        """
    first, second = traced(code), traced(code)
    last = first.steps[-1]
    assert second.steps[-1] == last  # stable from run to run
    names = locals_of(last["frames"][0])
    heap = last["heap"]
    partial = heap[names["p"]["ref"]]
    assert (partial["type"], partial["name"]) == ("other", "functools.partial")
    assert shown(last, names["p"]) == {"func": "<function print>", "args": ["1"], "keywords": {}}
    assert heap[names["m"]["ref"]] == {"type": "other", "name": "re.Match", "more": 0,
                                       "text": "<re.Match object; span=(0, 3), match='aaa'>"}  # fmt: skip
    assert heap[names["a"]["ref"]]["text"] == "array('i', [1, 2, 3])"
    assert heap[names["pattern"]["ref"]]["text"] == "re.compile('b+')"
    text = json.dumps(last)
    assert "0x" not in text and "__vectorcalloffset__" not in text
    assert all(entry["type"] != "instance" for entry in heap.values())
