"""The tracer against plain CPython (issue 23): Hypothesis writes small programs (assignments,
lists, dicts, aliases, loops, nested functions, classes, prints) and each is traced in the
sandbox and run by the same interpreter outside it under a bare ``sys.settrace``. The lines
and events of every step, how deep the stack is, the output so far, and at the end every
global's value and which names share an object must be the same."""

import json
import subprocess
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sandbox.test_tracing import _shown
from tutor.sandbox import _settings
from tutor.sandbox.tracing import check_trace, trace

# Run outside the sandbox by the sandbox's interpreter: the program from stdin, traced as the
# harness traces it (the learner's file only; a call is recorded for functions, not the
# module), printing what it saw as JSON.
REFERENCE = r"""
import io, json, sys
code = sys.stdin.read()
learner = compile(code, "main.py", "exec")
out = io.StringIO()
events = []
depth = [0]

def local(frame, event, arg):
    if event == "call":
        return local
    events.append([frame.f_lineno, event, depth[0], len(out.getvalue())])
    if event == "return":
        depth[0] -= 1
    return local

def tracer(frame, event, arg):
    if frame.f_code.co_filename != "main.py":
        return None
    depth[0] += 1
    if frame.f_code is not learner:
        events.append([frame.f_lineno, event, depth[0], len(out.getvalue())])
    return local

ns = {"__name__": "__main__"}
real = sys.stdout
sys.stdout = out
sys.settrace(tracer)
exec(learner, ns)
sys.settrace(None)
sys.stdout = real

def plain(value, seen=()):
    t = type(value)
    if t in (int, str, float, bool, type(None)):
        return repr(value)
    if id(value) in seen:
        return "<cycle>"
    seen = (*seen, id(value))
    if t in (list, tuple):
        return [plain(item, seen) for item in value]
    if t is dict:
        return {plain(k, seen): plain(v, seen) for k, v in value.items()}
    if t is type(plain):
        return "<function %s>" % value.__name__
    if t is type:
        return "<class %s>" % value.__name__
    return {k: plain(v, seen) for k, v in vars(value).items()}

names = {k: v for k, v in ns.items() if not (k.startswith("__") and k.endswith("__"))}
objects = {}
for name, value in names.items():
    if type(value) not in (int, str, float, bool, type(None)):
        objects.setdefault(id(value), []).append(name)
print(json.dumps({
    "events": events,
    "stdout": out.getvalue(),
    "globals": {k: plain(v) for k, v in names.items()},
    "shared": sorted(sorted(group) for group in objects.values()),
}))
"""


def reference(code: str) -> dict:
    done = subprocess.run(
        [_settings["interpreter"], "-I", "-S", "-c", REFERENCE],
        input=code,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout)


# --- programs ---------------------------------------------------------------------------------
small = st.integers(min_value=-5, max_value=20)
NAMES = ["a", "b", "c", "total", "items", "table"]


@st.composite
def programs(draw):
    lines: list[str] = []
    kinds: dict[str, str] = {}  # name -> "int", "list" or "dict"

    def fresh(kind: str) -> str:
        name = draw(st.sampled_from(NAMES))
        kinds[name] = kind
        return name

    def of(kind: str) -> str | None:
        found = sorted(name for name, k in kinds.items() if k == kind)
        return draw(st.sampled_from(found)) if found else None

    for _ in range(draw(st.integers(min_value=2, max_value=7))):
        choice = draw(st.integers(min_value=0, max_value=9))
        if choice == 0:
            lines.append(f"{fresh('int')} = {draw(small)}")
        elif choice == 1:
            values = draw(st.lists(small, max_size=4))
            lines.append(f"{fresh('list')} = {values!r}")
        elif choice == 2:
            keys = draw(st.lists(st.sampled_from("xyz"), max_size=3, unique=True))
            lines.append(
                f"{fresh('dict')} = {{{', '.join(f'{k!r}: {draw(small)}' for k in keys)}}}"
            )
        elif choice == 3 and of("list"):
            source = of("list")
            lines.append(f"{fresh('list')} = {source}")  # an alias
        elif choice == 4 and of("list"):
            name = of("list")
            lines.append(f"for n in range({draw(st.integers(0, 3))}):")
            lines.append(f"    {name}.append(n * {draw(small)})")
        elif choice == 5 and of("dict"):
            lines.append(f"{of('dict')}[{draw(st.sampled_from('xyz'))!r}] = {draw(small)}")
        elif choice == 6:
            lines += [
                "def outer(start):",
                "    step = start + 1",
                "    def inner(n):",
                "        return n + step",
                "    return inner",
                f"{fresh('int')} = outer({draw(small)})({draw(small)})",
            ]
        elif choice == 7:
            lines += [
                "class Box:",
                "    def __init__(self, size):",
                "        self.size = size",
                "        self.parts = []",
                f"box = Box({draw(small)})",
                "box.parts.append(box.size)",
            ]
        elif choice == 8 and kinds:
            lines.append(f"print({draw(st.sampled_from(sorted(kinds)))})")
        elif choice == 9 and of("int"):
            name = of("int")
            lines += [f"if {name} > {draw(small)}:", f"    {name} = {name} * 2", "else:",
                      f"    {name} = -{name}"]  # fmt: skip
        else:
            lines.append(f"print({draw(small)})")
    return "\n".join(lines) + "\n"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(programs())
def test_the_trace_agrees_with_python_itself(code):
    expected = reference(code)
    traced = trace(code)
    data = traced.to_dict()
    assert check_trace(data) is None
    assert traced.status == "complete", data
    assert traced.stdout == expected["stdout"]
    steps = [
        [step["line"], step["event"], len(step["frames"]), step["stdout_len"]]
        for step in traced.steps
    ]
    assert steps == expected["events"], textwrap.indent(code, "  ")
    last = traced.steps[-1]
    module = dict((name, value) for name, value in last["frames"][0]["locals"])
    assert {name: _shown(last["heap"], value, ()) for name, value in module.items()} == expected[
        "globals"
    ]
    objects: dict[str, list[str]] = {}
    for name, value in module.items():
        if "ref" in value:
            objects.setdefault(value["ref"], []).append(name)
    assert sorted(sorted(group) for group in objects.values()) == expected["shared"]
