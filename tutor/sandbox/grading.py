"""Grading a learner's code against tests, in one sandbox run per submission.

    from tutor.sandbox.grading import Test, grade
    tests = [
        Test("adds two numbers", stdin="2\\n3\\n", stdout="5\\n"),
        Test("takes its numbers as arguments", args=["2", "3"], stdout="5\\n"),
        Test("works for an empty list", check="assert total([]) == 0", visible=False),
    ]
    grading = grade(code, tests)      # per_test_seconds=2.0, limits=Limits() by default
    grading.status                    # "passed", "failed", "syntax_error", "not_checked"
    for result in grading.results:    # one per test, in order
        result.passed, result.kind, result.message, result.expected, result.got

A test is an I/O case (``stdin`` and ``args``, i.e. ``sys.argv[1:]``, and the expected
``stdout``: the program's output must match line for line, trailing spaces and trailing
blank lines aside) or a check (``check``: Python source, asserts and calls of the learner's
functions, run after the learner's code, in its namespace; there ``__name__`` is "main", so
code under ``if __name__ == "__main__":`` does not run). Each test has a time budget
(``per_test_seconds``) and the memory, process and output limits of ``limits``
(``output_bytes`` per test); consecutive passing tests may share a process, each started
afresh (docs/grading.md says what is reset and why sharing changes no verdict).

Each result's ``kind`` says why a test failed, in one of KINDS; ``message`` says it in plain
words and never contains the test's input, expected values or check (so it may be shown for
a hidden test). ``input`` (``stdin``, ``args``, ``check_line``), ``expected`` and ``got`` are
there for the caller to show or not: a test's ``visible`` flag is only carried along.

Only results the harness authenticated count (see docs/grading.md): whatever the learner's
code prints or does, a test it fails cannot come back passed. Nothing here imports Django;
``grade`` raises SandboxUnavailable when the sandbox cannot run at all, and ValueError for
tests an author got wrong (use ``check_test`` to validate them ahead).
"""

import builtins
import dataclasses
import math
import os
import secrets
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from . import _settings, can_preload, comparing, run
from .framing import pack as _pack
from .framing import unpack as _unpack
from .limits import KIB, MIB, Limits, SandboxUnavailable

__all__ = ["KINDS", "STATUSES", "Grading", "Test", "TestResult", "check_test", "grade"]

KINDS = (
    "wrong_output",  # an I/O test's output differs from the expected one
    "wrong_value",  # a check's assert failed
    "exception",  # the code stopped with an exception (its line and traceback are given)
    "too_slow",  # still running when the test's time was up: an infinite loop, usually
    "recursion",  # RecursionError, or Python crashed from recursion gone too deep
    "memory",  # MemoryError, or stopped for using too much memory
    "syntax_error",  # Python could not read the code: no test ran
    "exit",  # the code ended the program (sys.exit, os._exit) before the test finished
    "no_input",  # input() found no input left
    "output_flood",  # printed more than the output limit
    "not_allowed",  # tried something grading forbids (new processes, ctypes, /proc...)
    "test_error",  # the test itself is broken (its check does not compile): not the learner's doing
    "not_checked",  # the grader could not produce a result it trusts; the code may be fine
)
STATUSES = ("passed", "failed", "syntax_error", "not_checked")

# The harness is one program with one namespace (docs/grading.md says why that matters: its
# functions are re-homed in private copies of it), kept in parts by process and joined in
# this order; grading_harness/__init__.py runs the same parts when a test imports it.
HARNESS_DIR = os.path.join(os.path.dirname(__file__), "grading_harness")
HARNESS_PARTS = (
    "header.py", "parent.py", "compiling.py", "forker.py", "values.py", "seal.py", "child.py",
)


def _harness_source() -> str:
    parts = []
    for part in HARNESS_PARTS:
        with open(os.path.join(HARNESS_DIR, part), encoding="utf-8") as file:
            parts.append(file.read())
    return "\n\n".join(parts)


HARNESS = _harness_source()

# The run's program with the zygote strategy: the fork server compiled the harness and ran
# its body once (sandbox.run's preload: it is public code), and the program finds its
# namespace as __preloaded__; stdin carries the job alone. P writes its report with os.write and leaves at once: the
# interpreter's exit steps (threads, atexit, a collection) have nothing to do for it.
PRELOADED_BOOTSTRAP = """\
_harness = __preloaded__
del __preloaded__
_harness["main"]()
_harness["os"]._exit(0)
"""
# The name is the harness's file name in its code objects. The modules are those the
# harness imports that a run would otherwise import afresh (os and what it imports take
# about as long as the harness's own start; _ast builds its node classes at its first use,
# for the checks): the fork server imports them once, and a grading run keeps them. None
# of them is one the harness refuses its tests (ctypes, _posixsubprocess...) but _ctypes,
# which P takes out of sys.modules first thing, before it forks anything (_Libc).
PRELOAD = (
    "<grader>",
    HARNESS,
    ("os", "os.path", "posixpath", "genericpath", "stat", "_stat", "_collections_abc",
     "select", "_socket", "_collections", "_operator", "_ast", "gc", "atexit", "_ctypes",
     "_posixsubprocess"),
)  # fmt: skip

# The run's program otherwise: reads the harness's bytecode, and nothing more, from stdin
# and runs it; the harness reads the job itself once it has forked its forker
# (grading_harness.main). The bytecode travels compressed, in base64: small enough for one
# pipe buffer.
BOOTSTRAP = """\
import binascii, marshal, os, zlib
def _read(size):
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            raise SystemExit("the grader's job was cut short")
        data += chunk
    return data
_size = b""
while not _size.endswith(b":"):
    _size += _read(1)
_harness = {"__name__": "grading_harness", "__builtins__": __builtins__}
exec(marshal.loads(zlib.decompress(binascii.a2b_base64(_read(int(_size[:-1]))))), _harness)
del _read, _size
_harness["main"]()
os._exit(0)
"""

# Compiles the harness, in the sandbox, with the interpreter that will run it (without its
# docstrings: optimize=2; the harness has no assert of its own). The zygote compiles its
# preload the same way.
COMPILER = """\
import binascii, marshal, sys, zlib
code = compile(sys.stdin.read(), "<grader>", "exec", dont_inherit=True, optimize=2)
sys.stdout.write(binascii.b2a_base64(zlib.compress(marshal.dumps(code), 9), newline=False).decode())
"""
_bytecode: dict[tuple, str] = {}  # base64 of the compressed bytecode
_bytecode_lock = threading.Lock()
LEARNER_FILE = "main.py"
GRACE_SECONDS = 0.3  # the harness's own, beyond each test's budget (grading_harness.GRACE)
DETAILS_BYTES = 1 << 16  # grading_harness.DETAILS_CAP
RECORDS_BYTES = 1 << 18  # grading_harness.RECORDS_KEPT
TESTS_PER_CHILD = 10  # grading_harness.TESTS_PER_CHILD


@dataclass(frozen=True)
class Test:
    """One test. An I/O case when ``stdout`` is given, a check when ``check`` is."""

    __test__ = False  # not a pytest test class, whatever its name
    name: str  # what the learner reads: "works for an empty list"
    visible: bool = True  # shown before submitting; hidden tests are only carried as such
    stdin: str = ""
    args: list[str] = field(default_factory=list)  # sys.argv[1:]
    stdout: str | None = None  # the expected output
    check: str | None = None  # Python source run after the learner's code

    def __post_init__(self):
        problem = check_test(self)
        if problem:
            raise ValueError(problem)

    @property
    def is_check(self) -> bool:
        return self.check is not None


@dataclass(frozen=True)
class TestResult:
    """What happened to one test. For a pass, ``kind`` is None and ``message`` empty."""

    name: str
    visible: bool
    passed: bool
    kind: str | None = None  # one of KINDS
    message: str = ""  # plain words, without the test's input, expected values or check
    stdin: str = ""  # the test's input, for the caller to show (or not)
    args: list[str] = field(default_factory=list)
    check_line: str | None = None  # the line of the check that was running when it failed
    check_line_number: int | None = None
    comparison: str | None = None  # for a failed assert: "==", "in", ...; "" for `assert x`
    expected: str | None = None  # the expected stdout, or the assert's right side (its repr)
    got: str | None = None  # what the code printed, or the assert's left side (its repr)
    stdout: str = ""  # everything the code printed during the test (up to the limit)
    stderr: str = ""
    exception: str | None = None  # "ZeroDivisionError: division by zero"
    error_type: str | None = None  # the built-in exception class it is or derives from
    line: int | None = None  # the line of the learner's code it is about, when there is one
    traceback: str = ""  # the learner's own frames only, as Python prints them
    duration_ms: int = 0
    # For a pass: a check got a right number of another type than the one it expects (a
    # Fraction where it wrote 5), which == accepts, as Python does. "" otherwise.
    note: str = ""

    @property
    def hidden_message(self) -> str:
        """What a learner may read of a failed test they may not see: the kind of failure in
        plain words and nothing that the test's data or the learner's code could shape (no
        exception message, line, exit code, value or output). ``message`` can carry a hidden
        input back out: ``raise ValueError(f"got {a}")`` puts it in the exception's message."""
        if self.passed:
            return ""
        if self.kind == "exception":
            error = self.error_type if self.error_type in _BUILT_IN_ERRORS else None
            named = f" ({_article(error)} {error})" if error else ""
            return f"Your code stopped with an error{named} in this test."
        return _HIDDEN.get(self.kind or "", "This test failed.") if self.kind != "syntax_error" \
            else self.message  # fmt: skip


@dataclass(frozen=True)
class Grading:
    """The whole submission: ``status`` in STATUSES; ``kind`` None when it passed, the kind
    shared by every failing test, "mixed" when they differ, or "syntax_error" /
    "not_checked" / "refused" (not run: too long, or a NUL character) for the whole run."""

    status: str
    kind: str | None
    message: str
    results: list[TestResult]
    duration_ms: int = 0
    diagnostic: str = ""  # for the worker's log when not_checked; never for learners

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def passed_count(self) -> int:
        return sum(result.passed for result in self.results)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Grading":
        return cls(**{**data, "results": [TestResult(**r) for r in data["results"]]})


def check_test(test: Test) -> str | None:
    """What is wrong with a test as written, in an author's words, or None."""
    if not isinstance(test.name, str) or not test.name.strip():
        return "A test needs a name a learner can read."
    if (test.stdout is None) == (test.check is None):
        return f"Test “{test.name}” needs either an expected output or a check, not both."
    if not isinstance(test.args, list) or not all(isinstance(arg, str) for arg in test.args):
        return f"Test “{test.name}”: its arguments must be a list of strings."
    if test.check is not None:
        try:
            compile(test.check, "<test>", "exec", dont_inherit=True)
        except SyntaxError as error:
            return f"Test “{test.name}”: its check has a syntax error on line {error.lineno}: {error.msg}."
        except ValueError as error:  # a NUL character
            return f"Test “{test.name}”: its check cannot be compiled: {error}."
    return None


def _utf8(value: str) -> bytes:
    return value.encode("utf-8")


def grade(
    code: str,
    tests: list[Test],
    *,
    limits: Limits | None = None,
    per_test_seconds: float = 2.0,
    backend: str | None = None,
) -> Grading:
    """Run every test of ``tests`` against ``code`` in one sandbox run; see the module's
    docstring. Raises SandboxUnavailable when the sandbox cannot work at all."""
    limits = limits or Limits()
    if not tests:
        raise ValueError("grading needs at least one test")
    if per_test_seconds <= 0:
        raise ValueError("per_test_seconds must be positive")
    refusal = _refusal(code, limits)
    if refusal:
        return _whole("not_checked", "refused", refusal, tests)
    for test in tests:
        if len(_utf8(test.stdin)) > limits.stdin_bytes:
            raise ValueError(f"Test “{test.name}”: its input is larger than the input limit.")
    nonce = secrets.token_hex(16).encode()
    # a check's literal expected values stay here: the sandbox gets it without them
    prepared = [comparing.stripped(t.check) if t.is_check else ("", ()) for t in tests]
    payload = _pack(
        [nonce, _utf8(code), b"%d" % int(per_test_seconds * 1000), b"%d" % limits.output_bytes,
         # bubblewrap gives each run its own /tmp and /dev/shm, which the harness empties
         # between tests; the unsafe backend's are the host's, and are never touched
         b"private" if (backend or _settings["backend"]) == "bwrap" else b"shared"]
        + [
            _pack([b"check" if t.is_check else b"io", b"visible" if t.visible else b"hidden",
                   _utf8(t.stdin), _utf8(check)] + [_utf8(arg) for arg in t.args])  # fmt: skip
            for t, (check, _sites) in zip(tests, prepared, strict=True)
        ]
    )
    count = len(tests)
    run_limits = dataclasses.replace(
        limits,
        # per process: a child runs up to TESTS_PER_CHILD tests, each stopped at its budget
        cpu_seconds=math.ceil(min(count, TESTS_PER_CHILD) * (per_test_seconds + GRACE_SECONDS)) + 1,
        wall_seconds=count * (per_test_seconds + GRACE_SECONDS + 0.5) + 5,
        processes=limits.processes + 5,  # the harness, its forker, a child, a spare, one ending
        open_files=limits.open_files + 16,
        output_bytes=count * (3 * limits.output_bytes + DETAILS_BYTES + RECORDS_BYTES + 4 * KIB)
        + 64 * KIB,
    )
    if can_preload(backend):  # the fork server holds the harness: only the job travels
        program, stdin, preload = PRELOADED_BOOTSTRAP, payload.decode("utf-8"), PRELOAD
    else:
        bytecode = _harness_bytecode(backend)
        program, preload = BOOTSTRAP, None
        stdin = f"{len(bytecode)}:{bytecode}" + payload.decode("utf-8")
    run_limits = dataclasses.replace(
        run_limits, stdin_bytes=max(run_limits.stdin_bytes, len(stdin.encode()) + 1)
    )
    result = run(program, stdin=stdin, limits=run_limits, backend=backend, preload=preload)
    report = _authenticated(result.stdout, nonce, len(tests))
    if report is None:
        diagnostic = f"status={result.status} exit={result.exit_code} stderr={result.stderr[-2000:]!r}"
        return _whole(
            "not_checked",
            "not_checked",
            "Your code could not be checked this time: the grader stopped before it could "
            "give a result it trusts. Submit again; if it happens every time, tell your "
            "teacher.",
            tests,
            duration_ms=result.duration_ms,
            diagnostic=diagnostic,
        )
    if report[0] == b"syntax":
        return _syntax_error(report[1:], tests, code, result.duration_ms)
    results = [
        _result(test, _unpack(item), code, limits, per_test_seconds, sites)
        for test, item, (_check, sites) in zip(tests, report[1:], prepared, strict=True)
    ]
    return _summary(results, result.duration_ms)


def _harness_bytecode(backend: str | None) -> str:
    """The harness compiled by the sandbox's interpreter, compressed, in base64: once per
    worker process."""
    key = (backend or _settings["backend"], _settings["interpreter"])
    with _bytecode_lock:
        if key not in _bytecode:
            result = run(
                COMPILER,
                stdin=HARNESS,
                limits=Limits(output_bytes=4 * len(HARNESS) + 64 * KIB, stdin_bytes=2 * len(HARNESS)),
                backend=backend,
            )
            if result.status != "ok":
                raise SandboxUnavailable(f"The grader could not be compiled: {result.stderr[-500:]}")
            _bytecode[key] = result.stdout
        return _bytecode[key]


def _refusal(code: str, limits: Limits) -> str | None:
    if "\0" in code:
        return "Your code was not run: it contains a NUL character. Remove it and submit again."
    try:
        size = len(_utf8(code))
    except UnicodeEncodeError:
        return "Your code was not run: it is not valid Unicode text."
    if size > limits.source_bytes:
        return f"Your code was not run: it is {size} bytes long; the limit is {limits.source_bytes}."
    return None


def _authenticated(stdout: str, nonce: bytes, count: int) -> list[bytes] | None:
    """The harness's report, or None unless the run's whole output is exactly a report of
    ``count`` tests framed by this run's nonce (which only the harness's process held)."""
    data = _utf8(stdout)
    head, tail = nonce + b"\n", b"\n" + nonce
    if not (data.startswith(head) and data.endswith(tail)) or len(data) < len(head + tail):
        return None
    try:
        report = _unpack(data[len(head) : -len(tail)])
        if report[0] == b"ran" and len(report) == count + 1:
            for item in report[1:]:
                if len(_unpack(item)) != 10:
                    return None
            return report
        if report[0] == b"syntax" and len(report) == 5:
            return report
    except (ValueError, IndexError):
        pass
    return None


def _whole(status, kind, message, tests, *, duration_ms=0, diagnostic=""):
    results = [
        TestResult(name=t.name, visible=t.visible, passed=False, kind=kind,
                   message=message, stdin=t.stdin, args=list(t.args))  # fmt: skip
        for t in tests
    ]
    if kind == "refused":
        results = [dataclasses.replace(r, kind="not_checked") for r in results]
    return Grading(status, kind, message, results, duration_ms, diagnostic)


def _syntax_error(fields, tests, code, duration_ms):
    name, text, line, offset = (f.decode("utf-8", "replace") for f in fields)
    line_number = int(line) or None
    if name in ("SyntaxError", "IndentationError", "TabError"):
        where = f" on line {line_number}" if line_number else ""
        message = (
            f"Python couldn't read your code: {_article(name)} {name}{where} ({text}). "
            "Python checks the whole program before it runs any of it, so no test ran."
        )
        if line_number:
            message += (
                f" Look at line {line_number} and the line before it: a missing bracket, "
                "quote or colon, or indentation that doesn't line up, is the usual reason."
            )
    else:
        message = (
            f"Python couldn't read your code ({name}: {text}). It is nested too deeply or "
            "too big for Python to compile, so no test ran."
        )
    traceback = ""
    if line_number:
        source = _source_line(code, line_number)
        caret = " " * (4 + max(0, int(offset) - 1 - _indent(code, line_number))) + "^"
        traceback = f'  File "{LEARNER_FILE}", line {line_number}\n    {source}\n{caret}\n'
    traceback += f"{name}: {text}"
    results = [
        TestResult(name=t.name, visible=t.visible, passed=False, kind="syntax_error",
                   message=message, stdin=t.stdin, args=list(t.args),
                   exception=f"{name}: {text}", line=line_number, traceback=traceback)  # fmt: skip
        for t in tests
    ]
    return Grading("syntax_error", "syntax_error", message, results, duration_ms)


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"


def _source_line(code: str, number: int) -> str:
    lines = code.splitlines()
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def _indent(code: str, number: int) -> int:
    lines = code.splitlines()
    if not 0 < number <= len(lines):
        return 0
    return len(lines[number - 1]) - len(lines[number - 1].lstrip())


def _output_lines(text: str) -> list[str]:
    """Lines as compared: trailing spaces and trailing blank lines don't count (as
    tutor.grading.output_lines, which the sandbox may not import)."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass
class _Details:
    kind: str = ""  # raised, too_slow, exit; "" when none came
    exception_type: str = ""
    exception_message: str = ""
    frames: list[tuple[int, int, str]] = field(default_factory=list)  # line, repeats, function
    check_line: int = 0
    built_in: str = ""  # the built-in exception class the exception is or derives from

    @classmethod
    def parse(cls, data: bytes) -> "_Details":
        try:
            fields = [f.decode("utf-8", "replace") for f in _unpack(data)]
            kind, exc_type, message, frames, check_line, built_in = fields
            parsed = []
            for frame in _unpack(frames.encode("utf-8")):
                line, count, name = frame.decode("utf-8").split(" ", 2)
                parsed.append((int(line), int(count), name))
            return cls(kind, exc_type, message, parsed, int(check_line),
                       built_in if built_in.isidentifier() else "")  # fmt: skip
        except (ValueError, UnicodeDecodeError):
            return cls()

    @property
    def exception(self) -> str:
        if not self.exception_type:
            return ""
        return f"{self.exception_type}: {self.exception_message}" if self.exception_message \
            else self.exception_type  # fmt: skip

    @property
    def line(self) -> int | None:
        return self.frames[-1][0] if self.frames else None


def _traceback(details: _Details, code: str) -> str:
    """As Python prints it, with the learner's frames only; a test stopped for time ends
    with where it was rather than with the grader's own exception."""
    if not details.frames:
        return ""
    lines = ["Traceback (most recent call last):"]
    for number, count, name in details.frames:
        lines.append(f'  File "{LEARNER_FILE}", line {number}, in {name}')
        source = _source_line(code, number)
        if source:
            lines.append(f"    {source}")
        if count > 1:
            lines.append(f"  [Previous line repeated {count - 1} more times]")
    lines.append("(stopped here: out of time)" if details.kind == "too_slow" else details.exception)
    return "\n".join(lines)


def _seconds(value: float) -> str:
    return f"{value:g} second" + ("" if value == 1 else "s")


def _result(test: Test, fields: list[bytes], code: str, limits: Limits, budget: float,
            sites: tuple[comparing.Site, ...]):  # fmt: skip
    verdict, stopped, end, _cpu, wall_us, stdout_b, stderr_b, details_b, records_b, overflow = fields
    stdout, stderr = stdout_b.decode("utf-8", "replace"), stderr_b.decode("utf-8", "replace")
    base = {
        "name": test.name, "visible": test.visible, "stdin": test.stdin, "args": list(test.args),
        "stdout": stdout, "stderr": stderr, "duration_ms": int(wall_us) // 1000,
    }  # fmt: skip
    if test.is_check:
        base["got"] = None
    else:
        base["expected"], base["got"] = test.stdout, stdout
    stopped = stopped.decode()
    if stopped == "test_error":
        return TestResult(**base, passed=False, kind="test_error", message=(
            "This test is broken: its check does not compile. That is not your code's doing; "
            "tell your teacher."))  # fmt: skip
    details = _Details.parse(details_b) if verdict == b"fail" else _Details()
    if test.is_check:
        records = comparing.records(records_b)
        judged = _judged(test, sites, records)
        if judged is not None:  # an assert that did not hold came first, whatever followed
            return TestResult(**{**base, **judged})
        base["note"] = _another_type(sites, records)
        if overflow and verdict == b"pass":
            return TestResult(**base, passed=False, kind="not_checked", message=(
                "This test could not be checked: it compares more values than the grader "
                "keeps. That is not your code's doing; tell your teacher."))  # fmt: skip
    if details.check_line and test.check is not None:
        base["check_line_number"] = details.check_line
        base["check_line"] = _source_line(test.check, details.check_line)
    if details.frames or details.exception_type:
        base["exception"] = details.exception if details.kind != "too_slow" else None
        base["error_type"] = details.built_in or None
        base["line"] = details.line
        base["traceback"] = _traceback(details, code)
    where = f" (line {details.line})" if details.line else ""
    if stopped == "flood":
        return TestResult(**base, passed=False, kind="output_flood", message=(
            f"Too much output: your code printed more than {limits.output_bytes // KIB} KiB, so "
            "this test was stopped and its output is cut short. A print inside a loop that "
            "never ends is the usual reason."))  # fmt: skip
    if stopped == "timeout" or details.kind == "too_slow":
        return TestResult(**base, passed=False, kind="too_slow", message=(
            f"Too slow: your code was still running after {_seconds(budget)}{where}, so this "
            "test was stopped. A loop whose condition never becomes false is the usual "
            "reason: check what should make it stop."))  # fmt: skip
    if stopped == "lost":
        return TestResult(**base, passed=False, kind="not_checked", message=(
            "This test could not be checked: the grader lost track of it (your code may have "
            "stopped the grader's own process). Submit again."))  # fmt: skip
    if verdict == b"pass":
        if test.is_check or _output_lines(stdout) == _output_lines(test.stdout):
            return TestResult(**base, passed=True)
        base.pop("note", None)
        return TestResult(**base, passed=False, kind="wrong_output",
                          message=_output_difference(stdout, test.stdout))  # fmt: skip
    if verdict == b"fail":
        return _failure(test, base, details, where, limits)
    return _no_verdict(base, end.decode(), budget, limits)


def _judged(test: Test, sites: tuple[comparing.Site, ...], records: list[comparing.Record]):
    """The first assert of a check that did not hold, as a wrong_value result's fields (the
    host's verdict on what the sandbox recorded), or None when every one held."""
    for record in records:
        if not 0 <= record.site < len(sites):
            return {"passed": False, "kind": "not_checked", "message": (
                "This test could not be checked: the grader got a record it cannot place. "
                "Submit again.")}  # fmt: skip
        site = sites[record.site]
        ok, left, right = comparing.judge(site, record)
        if ok:
            continue
        literal_left = site.left is not comparing.MISSING
        got, expected = (right, left) if literal_left else (left, right)
        return {
            "passed": False, "kind": "wrong_value", "comparison": site.op or "",
            "got": comparing.shown(got),
            "expected": None if site.op is None else comparing.shown(expected),
            "check_line_number": site.line, "check_line": _source_line(test.check, site.line),
            "message": "A check of this test failed: your code gave a different value from "
                       "the one the test expects.",
        }  # fmt: skip
    return None


_NUMBER_TYPES = {bool: "a bool", int: "an int", float: "a float", complex: "a complex number",
                 Fraction: "a Fraction", Decimal: "a Decimal"}  # fmt: skip


def _another_type(sites: tuple[comparing.Site, ...], records: list[comparing.Record]) -> str:
    """Words for the first `==` that held between a number the check wrote and a number of
    another type the code gave (`Fraction(5, 1)` for `5`), or ""."""
    for record in records:
        if not 0 <= record.site < len(sites):
            continue
        site = sites[record.site]
        if site.op != "==" or not site.literal_side:
            continue
        ok, left, right = comparing.judge(site, record)
        got, expected = (right, left) if site.left is not comparing.MISSING else (left, right)
        got_type, expected_type = _NUMBER_TYPES.get(type(got)), _NUMBER_TYPES.get(type(expected))
        if ok and got_type and expected_type and got_type != expected_type:
            return (
                f"Right value, another type: your code gave `{comparing.shown(got, 200)}` "
                f"({got_type}) where the test expects `{comparing.shown(expected, 200)}` "
                f"({expected_type}). Python's == calls them equal, so the test passes; "
                "code that uses the value may still notice the type."
            )
    return ""


def _output_difference(got: str, expected: str) -> str:
    got_lines, expected_lines = _output_lines(got), _output_lines(expected)
    if not got_lines:
        return "Your program printed nothing; this test expects some output."
    if not expected_lines:
        return "This test expects your program to print nothing, and it printed something."
    for number, (a, b) in enumerate(zip(got_lines, expected_lines, strict=False), start=1):
        if a != b:
            return f"Your program's output differs from what this test expects from line {number} on."
    if len(got_lines) < len(expected_lines):
        return (
            f"Your program's output stops too early: this test expects more than its "
            f"{len(got_lines)} line{'s' if len(got_lines) != 1 else ''}."
        )
    return (
        f"Your program prints more than this test expects: everything after line "
        f"{len(expected_lines)} is extra."
    )


def _failure(test, base, details: _Details, where, limits) -> TestResult:
    short = details.exception_type.rpartition(".")[2]
    if details.kind == "exit":
        code = details.exception_message or "None"
        if test.is_check:
            message = (
                f"Your code called sys.exit(){where}, which ends the whole program, so the "
                "test could not finish. A function should return its answer instead."
            )
        else:
            message = (
                f"Your program ended with sys.exit({code}){where}: an exit code other than 0 "
                "means “something went wrong”."
            )
        return TestResult(**base, passed=False, kind="exit", message=message)
    if short == "RecursionError":
        return TestResult(**base, passed=False, kind="recursion", message=(
            f"Too deep: your code called a function inside itself over and over{where} until "
            "Python gave up. A recursive function needs a case that returns without calling "
            "itself, and every call must come closer to it."))  # fmt: skip
    if short == "MemoryError":
        return TestResult(**base, passed=False, kind="memory", message=_memory_message(limits, where))
    if short == "EOFError" and "EOF when reading a line" in details.exception_message:
        if test.is_check:
            advice = (
                "This test calls your functions and gives no input: keep input() out of the "
                'functions it calls (put the rest under if __name__ == "__main__":).'
            )
        else:
            advice = "This test gives your program fewer lines of input than it tried to read."
        return TestResult(**base, passed=False, kind="no_input", message=(
            f"Your code called input(){where} when there was no input left to read. {advice}"))  # fmt: skip
    if short == "NotAllowedWhileGrading":
        return TestResult(**base, passed=False, kind="not_allowed", message=(
            f"Your code tried something that is not allowed while grading{where}: starting "
            "programs or processes, tracing, ctypes, or reading the grader's files or memory."))  # fmt: skip
    if not details.exception_type:
        return TestResult(**base, passed=False, kind="exception", message=(
            "Your code stopped with an error that could not be described (it may have run "
            "out of memory while the error was being reported)."))  # fmt: skip
    if details.frames:
        message = f"Your code stopped with an error{where}: `{details.exception}`."
    elif short == "NameError" and details.check_line:
        message = (
            f"The test uses a name your code does not define: `{details.exception}`. Check "
            "the spelling of your function's name."
        )
    elif details.check_line:
        message = f"The test could not use your code: `{details.exception}`."
    else:
        message = f"Your code stopped with an error: `{details.exception}`."
    return TestResult(**base, passed=False, kind="exception", message=message)


def _memory_message(limits: Limits, where: str) -> str:
    return (
        f"Too much memory: your code asked for more than {limits.memory_bytes // MIB} MiB"
        f"{where} and was stopped. A list or text that keeps growing, often inside a loop "
        "that never ends, is the usual reason."
    )


def _no_verdict(base, end: str, budget, limits) -> TestResult:
    """No authenticated word from the test's process: how it ended decides the message."""
    status = int(end) if end.lstrip("-").isdigit() else None
    signal_number = status & 0x7F if status is not None and status & 0x7F else None
    exit_code = (status >> 8) & 0xFF if status is not None and not signal_number else None
    if signal_number == 11:  # a segfault: the C stack, after sys.setrecursionlimit
        return TestResult(**base, passed=False, kind="recursion", message=(
            "Python crashed while running your code: a function calling itself too deeply "
            "(after raising the recursion limit) is the usual reason."))  # fmt: skip
    if signal_number == 24:  # SIGXCPU
        return TestResult(**base, passed=False, kind="too_slow", message=(
            f"Too slow: your code used more than {_seconds(budget)} of computing, so this test "
            "was stopped. A loop that never ends is the usual reason."))  # fmt: skip
    if signal_number == 9:
        return TestResult(**base, passed=False, kind="memory", message=_memory_message(limits, ""))
    if exit_code == 120:  # the harness's driver did not finish: its own timer, most often
        return TestResult(**base, passed=False, kind="too_slow", message=(
            f"Too slow: your code was still running after {_seconds(budget)}, so this test was "
            "stopped. A loop whose condition never becomes false is the usual reason."))  # fmt: skip
    if exit_code is not None or signal_number is not None:
        how = f"exit status {exit_code}" if exit_code is not None else f"signal {signal_number}"
        return TestResult(**base, passed=False, kind="exit", message=(
            f"Your code ended the program abruptly ({how}, e.g. with os._exit or a signal) "
            "before the test finished."))  # fmt: skip
    return TestResult(**base, passed=False, kind="not_checked", message=(
        "This test could not be checked: no result came back from it. Submit again."))  # fmt: skip


_HIDDEN = {
    "wrong_output": "Your program printed something other than what this test expects.",
    "wrong_value": "Your code gave a different value from the one this test expects.",
    "too_slow": "Too slow: your code was still running when this test's time was up.",
    "recursion": "Too deep: your code called a function inside itself until Python gave up.",
    "memory": "Too much memory: your code was stopped for using more than a test may.",
    "exit": "Your code ended the program (sys.exit, os._exit or a signal) before this test finished.",
    "no_input": "Your code called input() when this test had no input left to read.",
    "output_flood": "Too much output: your code printed more than a test may, so it was stopped.",
    "not_allowed": "Your code tried something that is not allowed while grading.",
    "test_error": "This test is broken: its check does not compile. Tell your teacher.",
    "not_checked": "This test could not be checked this time. Submit again.",
}
# the built-in exceptions a hidden test's failure may name (a class of the learner's is
# named by the built-in one it derives from, so the name carries nothing of the test's data)
_BUILT_IN_ERRORS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)

_SHARED = {
    "wrong_output": "Every failing test printed something other than what it expects.",
    "wrong_value": "In every failing test a check got a different value from the expected one.",
    "exception": "Every failing test stopped with an error.",
    "too_slow": "Every failing test was too slow: look for a loop that never ends.",
    "recursion": "Every failing test went too deep in recursion.",
    "memory": "Every failing test used too much memory.",
    "exit": "In every failing test your code ended the program early.",
    "no_input": "Every failing test ran out of input: check your input() calls.",
    "output_flood": "Every failing test printed far too much.",
    "not_allowed": "Every failing test tried something grading does not allow.",
    "test_error": "The failing tests are broken; tell your teacher.",
    "not_checked": "The failing tests could not be checked; submit again.",
}


def _summary(results: list[TestResult], duration_ms: int) -> Grading:
    total, passed = len(results), sum(r.passed for r in results)
    if passed == total:
        noun = "test passes" if total == 1 else f"{total} tests pass"
        return Grading("passed", None, f"All {noun}." if total > 1 else f"The {noun}.",
                       results, duration_ms)  # fmt: skip
    kinds = {r.kind for r in results if not r.passed}
    kind = kinds.pop() if len(kinds) == 1 else "mixed"
    message = f"{passed} of {total} tests pass."
    if kind in _SHARED:
        message += " " + _SHARED[kind]
    status = "not_checked" if kind == "not_checked" and not passed else "failed"
    return Grading(status, kind, message, results, duration_ms)
