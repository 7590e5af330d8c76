"""Traces written by hand in the tracer's format (tutor.sandbox.tracing.Trace.to_dict()),
for tests of how steps are shown. Tests of the whole path trace for real, in the worker."""

ALIASING_CODE = "items = [1, 2]\ncopy = items\ntotal = 3\ntotal = total + 4\nprint(total)\n"


def _int(n):
    return {"type": "int", "repr": str(n)}


def _module(line, locals_, **extra):
    return [{"function": "<module>", "line": line, "locals": locals_, **extra}]


def _traced(steps: list, stdout: str, stopped: dict | None = None) -> dict:
    """The tracer's dict around `steps`."""
    return {
        "version": 1,
        "status": "stopped" if stopped else "complete",
        "stopped": stopped,
        "error": None,
        "stdout": stdout,
        "steps": steps,
    }


def aliasing_trace() -> dict:
    """items = [1, 2]; copy = items; total = 3; total = total + 4; print(total)."""
    items = ["items", {"ref": "1"}]
    copy = ["copy", {"ref": "1"}]
    heap = {"1": {"type": "list", "name": "list", "items": [_int(1), _int(2)]}}
    steps = [
        {
            "line": 1,
            "event": "line",
            "stdout_len": 0,
            "frames": _module(1, []),
            "heap": {},
            "exception": None,
        },
        {
            "line": 2,
            "event": "line",
            "stdout_len": 0,
            "frames": _module(2, [items]),
            "heap": heap,
            "exception": None,
        },
        {
            "line": 3,
            "event": "line",
            "stdout_len": 0,
            "frames": _module(3, [items, copy]),
            "heap": heap,
            "exception": None,
        },
        {
            "line": 4,
            "event": "line",
            "stdout_len": 0,
            "frames": _module(4, [items, copy, ["total", _int(3)]]),
            "heap": heap,
            "exception": None,
        },
        {
            "line": 5,
            "event": "line",
            "stdout_len": 0,
            "frames": _module(5, [items, copy, ["total", _int(7)]]),
            "heap": heap,
            "exception": None,
        },
        {
            "line": 5,
            "event": "return",
            "stdout_len": 2,
            "frames": _module(
                5, [items, copy, ["total", _int(7)]], returned={"type": "NoneType", "repr": "None"}
            ),
            "heap": heap,
            "exception": None,
        },
    ]
    return _traced(steps, "7\n")


def printing_trace(lines: list[str], *, stopped: dict | None = None) -> dict:
    """A program of print() calls, one per line: step n is about to run line n."""
    steps, printed = [], ""
    for number, _ in enumerate(lines, start=1):
        steps.append(
            {
                "line": number,
                "event": "line",
                "stdout_len": len(printed),
                "frames": _module(number, []),
                "heap": {},
                "exception": None,
            }
        )
        printed += lines[number - 1] + "\n"
    steps.append(
        {
            "line": len(lines),
            "event": "return",
            "stdout_len": len(printed),
            "frames": _module(len(lines), [], returned={"type": "NoneType", "repr": "None"}),
            "heap": {},
            "exception": None,
        }
    )
    return _traced(steps, printed, stopped)


NESTING_CODE = "grid = [[1, 2], {'a': 0}]\ngrid[1]['a'] = grid[0]\nnode = Node()\n"


def nesting_trace() -> dict:
    """One step of objects that point at objects: a list of a list and a dict whose value is
    that list, and an object whose attribute is itself."""
    heap = {
        "1": {"type": "list", "name": "list", "items": [{"ref": "2"}, {"ref": "3"}]},
        "2": {"type": "list", "name": "list", "items": [_int(1), _int(2)]},
        "3": {
            "type": "dict",
            "name": "dict",
            "entries": [[{"type": "str", "repr": "'a'"}, {"ref": "2"}]],
        },  # noqa: E501
        "4": {"type": "instance", "name": "Node", "attrs": [["next", {"ref": "4"}]]},
    }
    step = {
        "line": 3,
        "event": "line",
        "stdout_len": 0,
        "frames": _module(3, [["grid", {"ref": "1"}], ["node", {"ref": "4"}]]),
        "heap": heap,
        "exception": None,
    }
    return _traced([step], "")
