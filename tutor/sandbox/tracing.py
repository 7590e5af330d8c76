"""Tracing a program step by step, in one sandbox run, for the "Step through" view.

    from tutor.sandbox.tracing import trace, Trace
    t = trace(code, stdin="3\\n")        # limits=Limits(), max_steps=5000, max_bytes=2_000_000
    t.status                            # "complete", "stopped", "syntax_error", "failed"
    for step in t.steps:                # dicts, exactly as docs/tracing.md describes
        step["line"], step["event"], step["frames"], step["heap"], step["exception"]
    t.stdout[: step["stdout_len"]]      # what the program had printed by then
    Trace.from_dict(t.to_dict()) == t   # JSON-able both ways

Each step is the line about to run, the learner's frames (outermost first) with their local
variables, the objects those name (with stable ids, so aliasing shows as the same ref), the
output so far and the exception being raised, if any. A trace that stops early (too many
steps, too large, out of time or memory, recursion too deep, too much output, the program
crashing or ending itself) is "stopped", says why in plain words, and keeps every step
recorded until then. The tracer runs inside the sandbox (tracing_harness.py); what comes
back is checked against the format before it is returned, so whatever the learner's code
does, the caller gets a well-formed trace. Nothing here imports Django; ``trace`` raises
SandboxUnavailable when the sandbox cannot run at all.
"""

import codecs
import dataclasses
import json
import math
import os
import secrets
import threading
from dataclasses import dataclass, field

from . import _settings, run
from .framing import pack as _pack
from .framing import unpack as _unpack
from .limits import KIB, MIB, Limits, SandboxUnavailable

__all__ = ["STATUSES", "STOP_REASONS", "Trace", "trace", "check_trace"]

VERSION = 1
STATUSES = ("complete", "stopped", "syntax_error", "failed")
STOP_REASONS = ("steps", "size", "time", "memory", "recursion", "output", "crash")
EVENTS = ("line", "call", "return", "exception")
VALUE_TYPES = ("int", "float", "str", "bool", "NoneType", "complex", "bytes")
OBJECT_TYPES = ("list", "tuple", "set", "frozenset", "dict", "instance", "function", "class",
                "module", "other")  # fmt: skip
LEARNER_FILE = "main.py"
DEEP = 100  # calls: past this, a trace that grew too large says how deep the calls went
FRAMES_OUTER, FRAMES_INNER = 5, 15  # tracing_harness's: frames shown around calls not shown
FRAMES_SHOWN = FRAMES_OUTER + FRAMES_INNER
LOG_SLACK = 1 << 20  # tracing_harness.LOG_SLACK

HARNESS = open(
    os.path.join(os.path.dirname(__file__), "tracing_harness.py"), encoding="utf-8"
).read()

# The run's program: reads the harness's bytecode, and nothing more, from stdin and runs it;
# the harness forks the process that will run the learner's code, then reads the job.
BOOTSTRAP = """\
import marshal, os
def _read(size):
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            raise SystemExit("the tracer's job was cut short")
        data += chunk
    return data
_size = b""
while not _size.endswith(b":"):
    _size += _read(1)
_harness = {"__name__": "tracing_harness", "__builtins__": __builtins__}
exec(marshal.loads(bytes.fromhex(_read(int(_size[:-1])).decode())), _harness)
del _read, _size
_harness["main"]()
"""

# Compiles the harness, in the sandbox, with the interpreter that will run it (without its
# docstrings: a smaller job for every trace).
COMPILER = """\
import marshal, sys
code = compile(sys.stdin.read(), "<tracer>", "exec", dont_inherit=True, optimize=2)
sys.stdout.write(marshal.dumps(code).hex())
"""
_bytecode: dict[tuple, bytes] = {}
_bytecode_lock = threading.Lock()


@dataclass(frozen=True)
class Trace:
    """A program's trace; ``to_dict()`` is the JSON form of docs/tracing.md."""

    status: str  # one of STATUSES
    steps: list[dict] = field(default_factory=list)
    stdout: str = ""
    stopped: dict | None = None  # {"reason", "message", "step"}
    error: dict | None = None  # {"line", "message"}: why there are no steps
    version: int = VERSION

    def to_dict(self) -> dict:
        return {
            "version": self.version,
            "status": self.status,
            "stopped": self.stopped,
            "error": self.error,
            "stdout": self.stdout,
            "steps": self.steps,
        }

    @classmethod
    def from_dict(cls, data: dict, *, check: bool = True) -> "Trace":
        """The trace ``to_dict`` gave; ValueError when ``data`` is not well formed. Checking
        reads every step: ``check=False`` skips it for a dict this module made and the
        caller stored (then only its top level is looked at)."""
        problem = check_trace(data) if check else _check_top(data)
        if problem:
            raise ValueError(f"not a trace: {problem}")
        return cls(
            status=data["status"],
            steps=data["steps"],
            stdout=data["stdout"],
            stopped=data["stopped"],
            error=data["error"],
            version=data["version"],
        )


def trace(
    code: str,
    *,
    stdin: str = "",
    limits: Limits | None = None,
    max_steps: int = 5000,
    max_bytes: int = 2_000_000,
    backend: str | None = None,
) -> Trace:
    """Run ``code`` with ``stdin`` under the tracer in the sandbox and return its Trace;
    never raises for anything the code does (see the module's docstring)."""
    limits = limits or Limits()
    if max_steps < 1 or max_bytes < 1:
        raise ValueError("max_steps and max_bytes must be positive")
    refusal = _refusal(code, stdin, limits)
    if refusal:
        return Trace("failed", error={"line": 0, "message": refusal})
    nonce = secrets.token_hex(16).encode()
    payload = _pack([b"%d" % (max_bytes + LOG_SLACK)]) + _pack([
        nonce, code.encode("utf-8"), stdin.encode("utf-8"), b"%d" % max_steps, b"%d" % max_bytes,
        b"%d" % limits.output_bytes, b"%d" % int(limits.wall_seconds * 1000),
        b"%d" % limits.cpu_seconds,
    ])  # fmt: skip
    bytecode = _harness_bytecode(backend)
    stdin_bytes = b"%d:" % len(bytecode) + bytecode + payload
    run_limits = dataclasses.replace(
        limits,
        wall_seconds=limits.wall_seconds + 3,  # the harness stops the program at wall_seconds
        processes=limits.processes + 2,  # the harness and the traced program
        open_files=limits.open_files + 8,
        output_bytes=max_bytes + LOG_SLACK + 3 * limits.output_bytes + 64 * KIB,
        stdin_bytes=max(limits.stdin_bytes, len(stdin_bytes) + 1),
        source_bytes=max(limits.source_bytes, len(BOOTSTRAP) + 1),
    )
    result = run(BOOTSTRAP, stdin=stdin_bytes.decode("utf-8"), limits=run_limits, backend=backend)
    report = _authenticated(result.stdout, nonce)
    if report is None:
        return Trace("failed", error={"line": 0, "message": _UNTRUSTED})
    if report[0] == b"syntax":
        return _syntax_error(report[1:])
    return _trace(report[1:], limits, max_steps, max_bytes)


def _harness_bytecode(backend: str | None) -> bytes:
    """The harness compiled by the sandbox's interpreter, in hex: once per worker process."""
    key = (backend or _settings["backend"], _settings["interpreter"])
    with _bytecode_lock:
        if key not in _bytecode:
            result = run(
                COMPILER,
                stdin=HARNESS,
                limits=Limits(
                    output_bytes=4 * len(HARNESS) + 64 * KIB, stdin_bytes=2 * len(HARNESS)
                ),
                backend=backend,
            )
            if result.status != "ok":
                raise SandboxUnavailable(
                    f"The tracer could not be compiled: {result.stderr[-500:]}"
                )
            _bytecode[key] = result.stdout.encode("ascii")
        return _bytecode[key]


def _refusal(code: str, stdin: str, limits: Limits) -> str | None:
    if "\0" in code:
        return "Parsnip did not run this program: it contains a NUL character."
    try:
        size = len(code.encode("utf-8"))
        stdin_size = len(stdin.encode("utf-8"))
    except UnicodeEncodeError:
        return "Parsnip did not run this program: it or its input is not valid Unicode text."
    if size > limits.source_bytes:
        return f"Parsnip did not run this program: it is {size:,} bytes long; the limit is {limits.source_bytes:,}."
    if stdin_size > limits.stdin_bytes:
        return f"Parsnip did not run this program: its input is {stdin_size:,} bytes long; the limit is {limits.stdin_bytes:,}."
    return None


def _authenticated(stdout: str, nonce: bytes) -> list[bytes] | None:
    """The harness's report, or None unless the run's whole output is exactly a report
    framed by this run's nonce (which only the harness's own process held)."""
    data = stdout.encode("utf-8")
    head, tail = nonce + b"\n", b"\n" + nonce
    if not (data.startswith(head) and data.endswith(tail)) or len(data) < len(head + tail):
        return None
    try:
        report = _unpack(data[len(head) : -len(tail)])
    except (ValueError, IndexError):
        return None
    if report and report[0] == b"trace" and len(report) == 5:
        return report
    if report and report[0] == b"syntax" and len(report) == 4:
        return report
    return None


def _syntax_error(fields: list[bytes]) -> Trace:
    name, message, line = (f.decode("utf-8", "replace") for f in fields)
    line_number = int(line) if line.isdigit() else 0
    if name == "SyntaxError" or name in ("IndentationError", "TabError"):
        words = f"{name} on line {line_number}: {message}" if line_number else f"{name}: {message}"
    else:
        words = f"Python could not read this program: {message}"
    return Trace("syntax_error", error={"line": line_number, "message": words})


def _trace(fields: list[bytes], limits: Limits, max_steps: int, max_bytes: int) -> Trace:
    """The trace from the harness's report: [why P stopped the program ("time", "output",
    "cpu" or ""), its wait status, its output, its log of records]."""
    stopped_by, status, output, log = fields
    # NUL, which PostgreSQL's jsonb refuses, shows as U+FFFD (one character for one)
    stdout = output.decode("utf-8", "replace").replace("\0", "\ufffd")
    records = log.split(b"\n")
    records.pop()  # what follows the last newline: nothing, or a record cut short
    assembler = _Assembler(output, len(stdout))
    steps = assembler.steps(records)
    stopped_by = stopped_by.decode("ascii", "replace")
    reason = _reason(assembler, stopped_by, status)
    if reason == "time" and stopped_by != "time":
        reason = "cpu"  # its CPU time ran out, not its wall-clock time: reported as "time"
    if not reason:
        return Trace("complete", steps=steps, stdout=stdout)
    last = len(steps) - 1
    stopped = {
        "reason": "time" if reason == "cpu" else reason,
        "message": _stop_message(
            reason, last, limits, max_steps, max_bytes, _depth(steps[-1]) if steps else 0
        ),
        "step": last,
    }
    return Trace("stopped", steps=steps, stdout=stdout, stopped=stopped)


def _depth(step: dict) -> int:
    """How many frames a step's stack has, the ones not shown counted."""
    return len(step["frames"]) + step.get("hidden_frames", {}).get("count", 0)


def _reason(assembler: "_Assembler", stopped_by: str, status: bytes) -> str:
    """Why the trace stopped early, "" when the program ran to its end."""
    if assembler.told:  # the tracer stopped it (steps, size, recursion, memory)
        return assembler.told if assembler.told in STOP_REASONS else "crash"
    if stopped_by in ("time", "output"):  # the harness did
        return stopped_by
    if assembler.broken:  # something else wrote on the log: the trace ends before it
        return "crash"
    if assembler.ended:
        return ""
    signal = int(status) & 0x7F if status.isdigit() else 0
    if stopped_by == "cpu" or signal == 24:  # SIGXCPU: its CPU time ran out
        return "time"
    if signal == 9:  # killed, not by the harness: the memory cgroup's OOM killer
        return "memory"
    return "crash"


class _Assembler:
    """Steps in the trace's format from the harness's records (tracing_harness._tracer says
    what they are): each value, object and set of locals is read and checked once, and
    shared by every step that shows it (treat steps as read-only)."""

    def __init__(self, output: bytes, stdout_length: int):
        self.output, self.stdout_length = output, stdout_length
        self.told, self.ended, self.broken = "", False, False
        self._reset()

    def _reset(self) -> None:
        self.decoded_bytes = self.chars = 0  # how much of output is counted, in characters
        self.values: list[dict] = []
        self.objects: list[dict] = []
        self.object_refs: list[frozenset] = []
        self.locals: list[list] = []
        self.locals_refs: list[frozenset] = []
        self.ref_names: dict[int, str] = {}
        self.frames: dict[tuple, tuple[dict, frozenset]] = {}
        self.heaps: dict[tuple, tuple[dict, frozenset]] = {}

    def steps(self, records: list[bytes]) -> list[dict]:
        """The steps; ``told``, ``ended`` and ``broken`` say how the log ended."""
        kinds, texts, counts = [], {b"V": [], b"O": [], b"L": [], b"S": []}, []
        for record in records:
            kind = record[:1]
            if kind == b"S":
                count, _, record = record.partition(b" ")
                counts.append(count[1:])
                texts[kind].append(record)
            elif kind in texts:
                texts[kind].append(record[1:])
            elif kind == b"Q":
                self.told = record[1:].decode("ascii", "replace")
                break
            elif kind == b"E":
                self.ended = True
                break
            else:
                self.broken = True  # not a record: the trace ends before it
                break
            kinds.append(kind)
        parsed = {kind: _parsed_all(items) for kind, items in texts.items()}
        if all(items is not None for items in parsed.values()):
            try:  # each kind in one go
                for handle, kind in ((self.value, b"V"), (self.object, b"O"),
                                     (self.frame_locals, b"L")):  # fmt: skip
                    for data in parsed[kind]:
                        handle(data)
                step, chars_at = self.step, self.chars_at
                return [
                    step(chars_at(int(n)), data)
                    for n, data in zip(counts, parsed[b"S"], strict=True)
                ]
            except _NOT_A_TRACE:
                self._reset()
        # something does not fit: read the records in order, to keep the steps before it
        steps = []
        handlers = {b"V": self.value, b"O": self.object, b"L": self.frame_locals}
        positions = dict.fromkeys(texts, 0)
        try:
            for kind in kinds:
                position = positions[kind]
                positions[kind] = position + 1
                data = json.loads(texts[kind][position])
                if kind == b"S":
                    steps.append(self.step(self.chars_at(int(counts[position])), data))
                else:
                    handlers[kind](data)
        except _NOT_A_TRACE:
            self.broken, self.told, self.ended = True, "", False
        return steps

    def chars_at(self, count: int) -> int:
        """How many characters the first ``count`` bytes of the output make."""
        if count == self.decoded_bytes:
            return min(self.chars, self.stdout_length)
        count = min(count, len(self.output))
        if count < self.decoded_bytes:  # not in order: only a forged record does that
            return len(self.output[:count].decode("utf-8", "replace"))
        if count > self.decoded_bytes:
            chunk = self.output[self.decoded_bytes : count]
            decoded, used = codecs.utf_8_decode(chunk, "replace", False)
            self.chars += len(decoded)
            self.decoded_bytes += used
        return min(self.chars, self.stdout_length)

    def value(self, value) -> None:
        if not _value(value):
            raise ValueError("not a value")
        self.values.append(value)

    def _value_at(self, number):
        if type(number) is not int or number < 0:
            raise ValueError("not a value number")
        return self.values[number]

    def object(self, entry) -> None:
        if not isinstance(entry, dict):
            raise ValueError("not an object")
        content = _content_key(entry)
        if content == "?":
            raise ValueError("not an object")
        refs = set()
        if content == "items":
            entry["items"] = [self._value_at(n) for n in entry["items"]]
            numbers = entry["items"]
            refs.update(item.get("ref") for item in numbers)
        elif content == "entries":
            entries = []
            for pair in entry["entries"]:
                key, item = pair  # exactly two
                key, item = self._value_at(key), self._value_at(item)
                refs.update((key.get("ref"), item.get("ref")))
                entries.append([key, item])
            entry["entries"] = entries
        elif content == "attrs":
            entry["attrs"] = self._named(entry["attrs"], refs)
        refs.discard(None)
        self.objects.append(entry)
        self.object_refs.append(frozenset(refs))

    def _named(self, pairs, refs) -> list:
        named = []
        for pair in pairs:
            name, number = pair
            if not isinstance(name, str):
                raise ValueError("not a name")
            item = self._value_at(number)
            refs.add(item.get("ref"))
            named.append([name, item])
        return named

    def frame_locals(self, pairs) -> None:
        if not isinstance(pairs, list):
            raise ValueError("not locals")
        refs = set()
        self.locals.append(self._named(pairs, refs))
        refs.discard(None)
        self.locals_refs.append(frozenset(refs))

    def step(self, stdout_len, data) -> dict:
        if len(data) == 5:  # nothing kept, nothing hidden
            line, event, exception, frames_data, heap_data = data
            kept_data, hidden = (), 0
        else:
            line, event, exception, frames_data, heap_data, kept_data, hidden = data
        if type(hidden) is not int or hidden < 0 or (hidden and len(frames_data) != FRAMES_SHOWN):
            raise ValueError("not a count of frames not shown")
        if type(line) is not int or event not in EVENTS:
            raise ValueError("not a step")
        if exception is not None and not isinstance(exception, str):
            raise ValueError("not an exception")
        if not 0 <= stdout_len <= self.stdout_length:
            raise ValueError("output out of range")
        frames, needed = [], set()
        for frame_data in frames_data:
            frame, refs = self._frame(tuple(frame_data))
            frames.append(frame)
            needed |= refs
        if any("returned" in frame for frame in frames[:-1]) or (
            frames and ("returned" in frames[-1]) != (event == "return")
        ):
            raise ValueError("a returned value where nothing returns")
        kept = []
        for title, frame_id, locals_number in (
            sorted(kept_data, key=lambda kept_: kept_[1]) if kept_data else ()
        ):
            if not isinstance(title, str) or type(frame_id) is not int or frame_id < 1:
                raise ValueError("not a kept frame")
            kept.append({"function": title, "id": f"f{frame_id}",
                         "locals": self.locals[locals_number]})  # fmt: skip
            needed |= self.locals_refs[locals_number]
        heap, heap_refs = self._heap(tuple(heap_data))
        if not needed.issubset(heap_refs):
            raise ValueError("a ref to an object that is not in the heap")
        step = {"line": line, "event": event, "stdout_len": stdout_len, "frames": frames,
                "heap": heap, "exception": exception}  # fmt: skip
        if kept:
            step["kept"] = kept
        if hidden:
            step["hidden_frames"] = {"after": FRAMES_OUTER, "count": hidden}
        return step

    def _frame(self, key: tuple) -> tuple[dict, frozenset]:
        """A frame, and the refs it needs in the heap: the same dict for the same frame
        from step to step (the module's, while a function runs)."""
        known = self.frames.get(key)
        if known is not None:
            return known
        function, frame_line, locals_number, returned, frame_id = key
        if not isinstance(function, str) or type(frame_line) is not int:
            raise ValueError("not a frame")
        if type(locals_number) is not int or locals_number < 0 or type(frame_id) is not int:
            raise ValueError("not a locals number")
        frame = {"function": function, "id": f"f{frame_id}", "line": frame_line,
                 "locals": self.locals[locals_number]}  # fmt: skip
        refs = self.locals_refs[locals_number]
        if returned != -1:
            frame["returned"] = value = self._value_at(returned)
            if "ref" in value:
                refs = refs | {value["ref"]}
        self.frames[key] = known = (frame, refs)
        return known

    def _heap(self, key: tuple) -> tuple[dict, frozenset]:
        """A step's heap and its ids, checked: the same dict for the same heap from step
        to step."""
        known = self.heaps.get(key)
        if known is not None:
            return known
        if len(key) % 2:
            raise ValueError("not a heap")
        heap, needed, names = {}, set(), self.ref_names
        for position in range(0, len(key), 2):
            ref, number = key[position], key[position + 1]
            if type(ref) is not int or type(number) is not int or number < 0:
                raise ValueError("not a heap entry")
            name = names.get(ref)
            if name is None:
                name = names[ref] = str(ref)
            heap[name] = self.objects[number]
            needed |= self.object_refs[number]
        refs = frozenset(heap)
        if not needed.issubset(refs):
            raise ValueError("a ref to an object that is not in the heap")
        self.heaps[key] = known = (heap, refs)
        return known


_NOT_A_TRACE = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def _parsed_all(texts: list[bytes]) -> list | None:
    """Each of ``texts`` read as JSON, in one go; None when that is not exactly one value
    each (one of them is not JSON, or holds more than one)."""
    if not texts:
        return []
    try:
        parsed = json.loads(b"[" + b",".join(texts) + b"]")
    except (ValueError, RecursionError):
        return None
    return parsed if len(parsed) == len(texts) else None


_UNTRUSTED = (
    "Parsnip could not trace this program this time: the tracer stopped before it could give "
    "a result it trusts. Try again; if it happens every time, tell your teacher."
)


def _stop_message(reason, last, limits, max_steps, max_bytes, depth) -> str:
    """Why the trace stopped, in plain words; ``depth``: the frames at its last step."""
    where = "here is where it was" if last >= 0 else "it stopped before its first line"
    at = f"at step {last + 1:,}" if last >= 0 else "before the first step"
    if reason == "steps":
        return f"Parsnip stopped after {max_steps:,} steps: the program may loop forever; {where}."
    if reason == "size" and depth > DEEP:
        return (f"Parsnip stopped {at}: the trace grew larger than {max_bytes / 1e6:g} MB, with "
                f"function calls {depth - 1:,} deep (a recursion this deep, or one that never "
                f"reaches a case that stops it, makes many steps); {where}.")  # fmt: skip
    if reason == "size":
        return (f"Parsnip stopped {at}: the trace grew larger than {max_bytes / 1e6:g} MB "
                f"(a long loop over large values, usually); {where}.")  # fmt: skip
    if reason == "time":
        return (f"Parsnip stopped the program after {limits.wall_seconds:g} seconds: it was "
                f"still running (a loop that never ends, or a very long computation); {where}.")  # fmt: skip
    if reason == "cpu":
        return (f"Parsnip stopped the program after {limits.cpu_seconds} seconds of computing: "
                f"it was still running (a loop that never ends, or a very long computation); {where}.")  # fmt: skip
    if reason == "memory":
        return (f"Parsnip stopped {at}: the program used more memory than it may "
                f"({limits.memory_bytes // MIB} MiB); {where}.")  # fmt: skip
    if reason == "recursion":
        return (f"Parsnip stopped {at}: function calls went {depth - 1:,} deep, deeper than Python "
                f"allows (RecursionError), so a function probably keeps calling itself without "
                f"reaching a case that stops it; {where}.")  # fmt: skip
    if reason == "output":
        return (f"Parsnip stopped {at}: the program printed more than "
                f"{math.ceil(limits.output_bytes / KIB)} KiB of output; {where}.")  # fmt: skip
    return (f"The program ended abruptly {at} (it crashed, or ended itself with os._exit) "
            f"before it finished; here is what it did until then.")  # fmt: skip


# --- checking the format ---------------------------------------------------------------------
def check_trace(data) -> str | None:
    """What is wrong with ``data`` as a trace's dict, or None when it is well formed."""
    problem = _check_top(data)
    if problem:
        return problem
    for index, step in enumerate(data["steps"]):
        problem = check_step(step, len(data["stdout"]))
        if problem:
            return f"step {index}: {problem}"
    return None


def _check_top(data) -> str | None:
    """What is wrong with ``data`` as a trace's dict, its steps aside."""
    if not isinstance(data, dict):
        return "not a dict"
    if set(data) != {"version", "status", "stopped", "error", "stdout", "steps"}:
        return "wrong keys"
    if data["version"] != VERSION or data["status"] not in STATUSES:
        return "wrong version or status"
    if not isinstance(data["stdout"], str) or not isinstance(data["steps"], list):
        return "wrong stdout or steps"
    stopped, error = data["stopped"], data["error"]
    if stopped is not None and not (
        isinstance(stopped, dict) and set(stopped) == {"reason", "message", "step"}
        and stopped["reason"] in STOP_REASONS and isinstance(stopped["message"], str)
        and type(stopped["step"]) is int
    ):  # fmt: skip
        return "wrong stopped"
    if error is not None and not (
        isinstance(error, dict) and set(error) == {"line", "message"}
        and type(error["line"]) is int and isinstance(error["message"], str)
    ):  # fmt: skip
        return "wrong error"
    return None


def check_step(step, stdout_length: int) -> str | None:
    """What is wrong with one step, or None."""
    if not isinstance(step, dict) or set(step) - {"kept", "hidden_frames"} != {
        "line", "event", "stdout_len", "frames", "heap", "exception"
    }:  # fmt: skip
        return "wrong keys"
    if type(step["line"]) is not int or step["event"] not in EVENTS:
        return "wrong line or event"
    if type(step["stdout_len"]) is not int or not 0 <= step["stdout_len"] <= stdout_length:
        return "wrong stdout_len"
    if step["exception"] is not None and not isinstance(step["exception"], str):
        return "wrong exception"
    heap, frames = step["heap"], step["frames"]
    if not isinstance(heap, dict) or not isinstance(frames, list):
        return "wrong heap or frames"
    for index, frame in enumerate(frames):
        if not isinstance(frame, dict) or not (
            set(frame) - {"id"} == {"function", "line", "locals"}
            or set(frame) - {"id"} == {"function", "line", "locals", "returned"}
        ) or not isinstance(frame.get("id", ""), str):  # fmt: skip
            return "wrong frame"
        if not isinstance(frame["function"], str) or type(frame["line"]) is not int:
            return "wrong frame"
        if not _pairs(frame["locals"], heap, named=True):
            return "wrong locals"
        if "returned" in frame and not _value(frame["returned"], heap):
            return "wrong returned"
        if ("returned" in frame) != (step["event"] == "return" and index == len(frames) - 1):
            return "returned on another frame than the returning one"
    hidden = step.get("hidden_frames", {"after": 0, "count": 0})
    if not (
        isinstance(hidden, dict) and set(hidden) == {"after", "count"}
        and type(hidden["after"]) is int and type(hidden["count"]) is int
        and 0 <= hidden["after"] <= len(frames) and hidden["count"] >= 0
    ):  # fmt: skip
        return "wrong hidden frames"
    kept = step.get("kept", [])
    if not isinstance(kept, list):
        return "wrong kept frames"
    for frame in kept:
        if not (
            isinstance(frame, dict) and set(frame) == {"function", "id", "locals"}
            and isinstance(frame["function"], str) and isinstance(frame["id"], str)
            and _pairs(frame["locals"], heap, named=True)
        ):  # fmt: skip
            return "wrong kept frame"
    for key, entry in heap.items():
        if not _object(entry, heap):
            return f"wrong object {key}"
    return None


def _value(value, heap=None) -> bool:
    """Whether ``value`` is a value; with ``heap``, whose refs are all in it."""
    if not isinstance(value, dict):
        return False
    if len(value) == 1:
        ref = value.get("ref")
        return isinstance(ref, str) and (heap is None or ref in heap)
    kind, shown = value.get("type"), value.get("repr")
    if kind not in VALUE_TYPES or not isinstance(shown, str):
        return False
    if len(value) == 2:
        return True
    return len(value) == 3 and type(value.get("len")) is int


def _pairs(pairs, heap, *, named) -> bool:
    if not isinstance(pairs, list):
        return False
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and _value(pair[1], heap)):
            return False
        if not (isinstance(pair[0], str) if named else _value(pair[0], heap)):
            return False
    return True


# Each kind of object: the key of its values (None: it has none), whether it must have it,
# and its other keys (each optional, a string but "bases", a list of strings).
_OBJECT_KEYS = {
    "list": ("items", True, ()), "tuple": ("items", True, ()), "set": ("items", True, ()),
    "frozenset": ("items", True, ()), "dict": ("entries", True, ()),
    "instance": ("attrs", True, ()), "class": ("attrs", True, ("bases",)),
    "function": ("attrs", False, ("signature", "parent")), "module": (None, False, ()),
    "other": ("attrs", False, ("text",)),
}  # fmt: skip


_PLAIN_KEYS = {
    kind: frozenset({"type", "name", "more"} | ({content} if content and required else set()))
    for kind, (content, required, _) in _OBJECT_KEYS.items()
}


def _content_key(entry) -> str | None:
    """The key of ``entry``'s values ("items", "entries", "attrs"; None when it has none),
    or "?" when it is not shaped as an object."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return "?"
    shape = _OBJECT_KEYS.get(entry.get("type"))
    if shape is None or type(entry.get("more")) is not int or entry["more"] < 0:
        return "?"
    content, required, optional = shape
    if entry.keys() == _PLAIN_KEYS[entry["type"]]:  # the usual shape: no optional key
        if content is None or not required:
            return None
        return content if isinstance(entry[content], list) else "?"
    if content is not None and content not in entry:
        if required:
            return "?"
        content = None
    if content is not None and not isinstance(entry[content], list):
        return "?"
    for key in entry:
        if key in ("type", "name", "more") or key == content:
            continue
        if key not in optional:
            return "?"
        if key == "bases":
            if not isinstance(entry[key], list) or not all(
                isinstance(base, str) for base in entry[key]
            ):
                return "?"
        elif not isinstance(entry[key], str):
            return "?"
    return content


def _object(entry, heap) -> bool:
    content = _content_key(entry)
    if content == "?":
        return False
    if content is None:
        return True
    if content == "items":
        items = entry["items"]
        return isinstance(items, list) and all(_value(item, heap) for item in items)
    return _pairs(entry[content], heap, named=content == "attrs")
