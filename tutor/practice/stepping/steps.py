"""One step of a trace as the step page shows it, computed from the tracer's dict.

Plain functions over the dict `tutor.sandbox.tracing.Trace.to_dict()` returns (no queries):
the code with the line about to run and the line just run, the frames with their
variables, the objects they name laid out beside them (with the arrows' coordinates,
so the page draws them without JavaScript), the output so far, the words a screen
reader announces (this step against the one before), where a stopped trace stopped,
and where a stepping opens (the first step whose output leaves the learner's
prediction; the first step of a check).

Steps are numbered from 1 here and in URLs, as the learner reads them ("step 3 of 40").
"""

import json
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from tutor.forms import grouped_number
from tutor.grading import output_lines

# The layout of the frames and objects, in CSS pixels (static/css/stepping.css keeps the
# same numbers): each row of a frame or an object is ROW high, a box's heading too, and
# boxes are GAP apart. The arrows' ends are computed from them.
ROW = 28
GAP = 12
ARROW_WIDTH = 64
LINK_WIDTH = 48  # the gutter right of the objects, where an object's arrows to others loop
MAX_ITEMS = 30  # an object shows this many items; the rest are counted
VALUE_WORDS = 40  # a value in the description is cut after this many characters

STOPPED_WORDS = {
    "steps": gettext_lazy(
        "It stopped after {step} steps: Parsnip shows at most that many. The program "
        "had not finished yet."
    ),
    "size": gettext_lazy(
        "It stopped at step {step}: what the program holds grew too big to show step by step."
    ),
    "time": gettext_lazy("It stopped at step {step}: the program ran out of time."),
    "memory": gettext_lazy("It stopped at step {step}: the program used more memory than it may."),
    "recursion": gettext_lazy(
        "It stopped at step {step}: a function kept calling itself, deeper and "
        "deeper, and Python gave up."
    ),
    "output": gettext_lazy(
        "It stopped at step {step}: the program printed more than Parsnip keeps."
    ),
    "crash": gettext_lazy(
        "It stopped at step {step}: the tracer could not go on with this program."
    ),
}

CONTAINERS = ("list", "tuple", "set", "frozenset", "dict")
KIND_WORDS = {
    "list": "list",
    "tuple": "tuple",
    "set": "set",
    "frozenset": "frozenset",
    "dict": "dict",
    "instance": "object",
    "function": "function",
    "class": "class",
    "module": "module",
    "other": "object",
}
# The same kinds as the step's description names them (the diagram shows Python's names).
KIND_NOUNS = {
    "list": pgettext_lazy("kind of Python object", "list"),
    "tuple": pgettext_lazy("kind of Python object", "tuple"),
    "set": pgettext_lazy("kind of Python object", "set"),
    "frozenset": pgettext_lazy("kind of Python object", "frozenset"),
    "dict": pgettext_lazy("kind of Python object", "dict"),
    "instance": pgettext_lazy("kind of Python object", "object"),
    "function": pgettext_lazy("kind of Python object", "function"),
    "class": pgettext_lazy("kind of Python object", "class"),
    "module": pgettext_lazy("kind of Python object", "module"),
    "other": pgettext_lazy("kind of Python object", "object"),
}


# The trace, read a step at a time ----------------------------------------------------------


class Steps:
    """A trace as the step pages read it: its summary (the tracer's dict without its
    steps), an index of every step (where its JSON starts in `text`, its line, how deep,
    the output so far, whether it raised) and `text`, one step's JSON per line. A step is
    parsed only when asked for (`steps[n]`, from 0, negative from the end), so a page
    parses two steps of a 5,000-step trace, not all of them."""

    def __init__(self, summary: dict, index: dict, text: str | None, *, fetch=None) -> None:
        """`text` may be left out (None) with `fetch(start, length)` given instead: the
        text of that many characters from `start`, read when steps are asked for (the step
        page reads only the two steps it shows, not the whole column)."""
        self.summary = summary
        self.index = index
        self.text = text
        self.fetch = fetch
        self._parsed: dict[int, dict] = {}

    @staticmethod
    def pack(data: dict) -> tuple[dict, dict, str]:
        """The tracer's dict as (summary, index, text), for Trace's columns."""
        summary = {key: value for key, value in data.items() if key != "steps"}
        index: dict[str, list] = {
            "start": [],
            "line": [],
            "depth": [],
            "stdout_len": [],
            "raised": [],
        }
        lines, start = [], 0
        for step in data.get("steps", []):
            line = json.dumps(step, ensure_ascii=False, separators=(",", ":"))
            index["start"].append(start)
            index["line"].append(step.get("line", 0))
            index["depth"].append(len(step.get("frames", [])))
            index["stdout_len"].append(step.get("stdout_len", 0))
            index["raised"].append(1 if step.get("exception") else 0)
            lines.append(line)
            start += len(line) + 1
        return summary, index, "\n".join(lines)

    @classmethod
    def of(cls, data: "dict | Steps") -> "Steps":
        """The tracer's dict (or Steps already) as Steps."""
        return data if isinstance(data, Steps) else cls(*cls.pack(data))

    def __len__(self) -> int:
        return len(self.index.get("start", []))

    def __getitem__(self, number: int) -> dict:
        if number < 0:
            number += len(self)
        if not 0 <= number < len(self):
            raise IndexError(number)
        if number not in self._parsed:
            self.read(number, number)
        return self._parsed[number]

    def _end(self, number: int) -> int | None:
        """Where step `number`'s JSON ends (None: at the end of the text)."""
        starts = self.index["start"]
        return starts[number + 1] - 1 if number + 1 < len(starts) else None

    def read(self, first: int, last: int) -> None:
        """Parse steps `first` to `last` (from 0, both kept), with one fetch at most."""
        first, last = max(0, first), min(len(self) - 1, last)
        if first > last:
            return
        starts = self.index["start"]
        if self.text is not None:
            text, offset = self.text, 0
        else:
            end = self._end(last)
            length = (end if end is not None else starts[last] + 10**9) - starts[first]
            text, offset = self.fetch(starts[first], length), starts[first]
        for number in range(first, last + 1):
            end = self._end(number)
            chunk = text[starts[number] - offset : None if end is None else end - offset]
            self._parsed[number] = json.loads(chunk)

    @property
    def stdout(self) -> str:
        return self.summary.get("stdout", "")

    def to_dict(self) -> dict:
        return {**self.summary, "steps": [self[n] for n in range(len(self))]}


# Values ------------------------------------------------------------------------------


def kind_word(ref: str, heap: dict) -> str:
    """What an object is, in a word of the page's language: "list", "dict", "object"."""
    return str(KIND_NOUNS.get(heap.get(ref, {}).get("type", "other"), KIND_NOUNS["other"]))


def _container_text(kind: str, count: int) -> str:
    # A sentence each, so that a language can give each kind its own article and plural.
    forms = {
        "list": ngettext("a list of %(count)s item", "a list of %(count)s items", count),
        "tuple": ngettext("a tuple of %(count)s item", "a tuple of %(count)s items", count),
        "set": ngettext("a set of %(count)s item", "a set of %(count)s items", count),
        "frozenset": ngettext(
            "a frozenset of %(count)s item", "a frozenset of %(count)s items", count
        ),
        "dict": ngettext("a dict of %(count)s item", "a dict of %(count)s items", count),
    }
    return forms[kind] % {"count": count}


def value_text(value: dict, heap: dict) -> str:
    """A value in a few words: its repr, or what kind of object it names."""
    if "ref" in value:
        obj = heap.get(value["ref"], {})
        kind = obj.get("type", "other")
        name = obj.get("name", "")
        if kind == "instance" and name:
            return _("a %(name)s object") % {"name": name}
        if kind == "function" and name:
            return _("the function %(name)s") % {"name": name + obj.get("signature", "")}
        if kind == "class" and name and obj.get("bases"):
            return _("the class %(name)s") % {"name": f"{name}({', '.join(obj['bases'])})"}
        if kind == "class" and name:
            return _("the class %(name)s") % {"name": name}
        if kind == "module" and name:
            return _("the module %(name)s") % {"name": name}
        if kind == "other" and obj.get("text"):
            return _("the object %(text)s") % {"text": obj["text"]}
        if kind == "other" and name:
            return _("a %(name)s object") % {"name": name}
        if kind in CONTAINERS:
            count = (
                len(obj.get("items", []))
                + len(obj.get("entries", []))
                + int(obj.get("more", 0) or 0)
            )
            return _container_text(kind, count)
        return {
            "function": _("a function"),
            "class": _("a class"),
            "module": _("a module"),
        }.get(kind, _("an object"))
    text = value.get("repr", "")
    if len(text) > VALUE_WORDS:
        text = text[: VALUE_WORDS - 1] + "…"
    return text


@dataclass
class Shown:
    """A value as a cell shows it: its repr, or a pointer to an object (#id)."""

    text: str
    ref: str = ""
    kind: str = ""  # the value's type ("int", "str", ...) or the object's

    @property
    def is_ref(self) -> bool:
        return bool(self.ref)


def shown(value: dict, heap: dict) -> Shown:
    if "ref" in value:
        obj = heap.get(value["ref"], {})
        return Shown(text=f"#{value['ref']}", ref=str(value["ref"]), kind=obj.get("type", "other"))
    text = value.get("repr", "")
    if "len" in value:
        text += " … " + _("(%(count)s in all)") % {"count": grouped_number(value["len"])}
    return Shown(text=text, kind=value.get("type", ""))


# Layout ------------------------------------------------------------------------------


@dataclass
class Variable:
    name: str
    value: Shown
    y: int = 0  # the middle of its row, from the top of the frames column


@dataclass
class Frame:
    function: str
    line: int
    variables: list[Variable]
    returned: Shown | None = None
    current: bool = False  # the innermost: the one running
    id: str = ""  # the tracer's frame id ("f3"): a function object's parent names it
    kept: bool = False  # returned, but a closure still uses its variables
    hidden_before: int = 0  # calls not shown just before it (a deep stack's middle)
    y: int = 0  # the middle of its heading row

    @property
    def title(self) -> str:
        return _("Global frame") if self.function == "<module>" else f"{self.function}()"

    @property
    def rows(self) -> int:
        """Its height in rows: the heading, and each variable, "returns" or "no variables"."""
        return 1 + max(1, len(self.variables) + (self.returned is not None))


@dataclass
class Entry:
    key: Shown | None  # a dict's key, an instance's attribute name (as text), or None
    value: Shown
    label: str = ""  # an index, or an attribute's name


@dataclass
class Box:
    """One object beside the frames."""

    id: str
    type: str
    name: str
    entries: list[Entry]
    more: int = 0
    y: int = 0  # the middle of its heading row
    signature: str = ""  # a function's parameters: "(x, items=…)"
    bases: list[str] = field(default_factory=list)  # a class's base classes
    text: str = ""  # a C-level object's short form: "range(0, 3)"
    parent: str = ""  # the id of the frame a function was made in ("f3")
    parent_title: str = ""  # that frame's title, "" when it is not drawn

    @property
    def title(self) -> str:
        kind = KIND_WORDS.get(self.type, "object")
        if self.type == "function" and self.name:
            return f"{kind} {self.name}{self.signature}"
        if self.type == "class" and self.name and self.bases:
            return f"class {self.name}({', '.join(self.bases)})"
        if self.type in ("instance", "function", "class", "module") and self.name:
            return f"{kind} {self.name}"
        if self.type == "other" and self.name:
            return self.name
        return kind

    @property
    def shows_empty(self) -> bool:
        return not self.entries and self.type in CONTAINERS

    @property
    def rows(self) -> int:
        """Its height in rows: the heading, its short text, each entry ("empty" for an empty
        container), "… and n more", and the frame it was made in."""
        body = len(self.entries) or int(self.shows_empty)
        return 1 + bool(self.text) + body + (1 if self.more else 0) + bool(self.parent)

    @property
    def first_entry_row(self) -> int:
        return 1 + bool(self.text)

    @property
    def parent_y(self) -> int:
        """The middle of its "made in" row (the last one)."""
        return self.y + ROW * (self.rows - 1)

    @property
    def size_text(self) -> str:
        count = len(self.entries) + self.more
        if self.type in CONTAINERS:
            return ngettext("%(count)s item", "%(count)s items", count) % {"count": count}
        return ""


@dataclass
class Arrow:
    """From a variable's row (left) to an object's heading (right), in the gutter."""

    name: str
    ref: str
    y1: int
    y2: int

    @property
    def path(self) -> str:
        mid = ARROW_WIDTH // 2
        return f"M0 {self.y1} C{mid} {self.y1} {mid} {self.y2} {ARROW_WIDTH - 6} {self.y2}"


@dataclass
class MadeIn:
    """From a function's "made in" row (right) back to the heading of the frame it was
    made in (left), across the gutter between frames and objects."""

    function: str
    frame: str
    y1: int
    y2: int

    @property
    def path(self) -> str:
        mid = ARROW_WIDTH // 2
        return f"M{ARROW_WIDTH} {self.y1} C{mid} {self.y1} {mid} {self.y2} 6 {self.y2}"


@dataclass
class Link:
    """From an entry of an object (a list's item, a dict's key or value, an attribute) to
    another object's heading, or its own: a loop out into the gutter right of the
    objects, wider the farther it goes."""

    label: str  # the entry, in words: "item 0", "key 'a'", "attribute next"
    ref: str
    y1: int
    y2: int

    @property
    def path(self) -> str:
        reach = min(LINK_WIDTH - 4, 14 + abs(self.y2 - self.y1) // 6)
        return f"M0 {self.y1} C{reach} {self.y1} {reach} {self.y2} 6 {self.y2}"


def build_links(boxes: list["Box"]) -> list[Link]:
    """The arrows from objects to objects: one per entry (key or value) that names an
    object shown beside it, from the entry's row."""
    box_y = {box.id: box.y for box in boxes}
    links = []
    for box in boxes:
        for row, entry in enumerate(box.entries, start=box.first_entry_row):
            y = box.y + ROW * row
            if entry.key is not None and entry.key.is_ref and entry.key.ref in box_y:
                links.append(Link(f"a key of #{box.id}", entry.key.ref, y, box_y[entry.key.ref]))
            if entry.value.is_ref and entry.value.ref in box_y:
                if entry.key is not None:
                    label = f"#{box.id}[{entry.key.text}]"
                elif entry.label and box.type in ("list", "tuple"):
                    label = f"#{box.id}[{entry.label}]"
                elif entry.label.endswith("="):
                    label = f"the default of {entry.label[:-1]} in #{box.id}"
                elif entry.label:
                    label = f"#{box.id}.{entry.label}"
                else:
                    label = f"an item of #{box.id}"
                links.append(Link(label, entry.value.ref, y, box_y[entry.value.ref]))
    return links


def frame_number(frame: dict) -> int:
    """The tracer's frame id as a number, to order frames as they were called."""
    text = str(frame.get("id", ""))
    return int(text[1:]) if text[1:].isdigit() else -1


def build_frames(step: dict, heap: dict) -> list[Frame]:
    """The running frames, outermost first, with the frames closures keep (returned,
    placed where they were called) among them; a deep stack's calls not shown counted
    before the first frame after them."""
    raw = step.get("frames", [])
    hidden = step.get("hidden_frames") or {}
    listed = [(frame, number == len(raw) - 1, False) for number, frame in enumerate(raw)]
    for frame in step.get("kept", []):
        at = next(
            (index for index, (live, _, _) in enumerate(listed)
             if frame_number(live) > frame_number(frame)),
            len(listed),
        )  # fmt: skip
        listed.insert(at, (frame, False, True))
    frames = []
    y = 0
    live_seen = 0
    for frame, current, kept in listed:
        hidden_before = 0
        if not kept:
            if hidden.get("count") and live_seen == hidden.get("after"):
                hidden_before = int(hidden["count"])
                y += ROW + GAP  # "… n calls not shown"
            live_seen += 1
        heading = y + ROW // 2
        y += ROW  # its heading
        variables = []
        for name, value in frame.get("locals", []):
            variables.append(Variable(name, shown(value, heap), y + ROW // 2))
            y += ROW
        returned = None
        if "returned" in frame:
            returned = shown(frame["returned"], heap)
            y += ROW
        frames.append(
            Frame(
                frame.get("function", "?"),
                frame.get("line", 0),
                variables,
                returned,
                current=current,
                id=str(frame.get("id", "")),
                kept=kept,
                hidden_before=hidden_before,
                y=heading,
            )
        )
        if not variables and returned is None:
            y += ROW  # "no variables yet"
        y += GAP
    return frames


def object_order(frames: list[Frame], heap: dict) -> list[str]:
    """The heap's objects in the order the frames reach them (outermost frame first, then
    what those objects hold), then any others."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(ref: str) -> None:
        stack = [ref]
        while stack:
            ref = stack.pop()
            if ref in seen or ref not in heap:
                continue
            seen.add(ref)
            order.append(ref)
            obj = heap[ref]
            inner = [v for v in obj.get("items", [])]
            inner += [v for pair in obj.get("entries", []) for v in pair]
            inner += [v for _name, v in obj.get("attrs", [])]
            stack.extend(reversed([v["ref"] for v in inner if isinstance(v, dict) and "ref" in v]))

    for frame in frames:
        for variable in frame.variables:
            if variable.value.ref:
                visit(variable.value.ref)
        if frame.returned is not None and frame.returned.ref:
            visit(frame.returned.ref)
    for ref in heap:
        visit(ref)
    return order


def build_boxes(order: list[str], heap: dict, frames: list[Frame] | None = None) -> list[Box]:
    titles = {frame.id: frame.title for frame in frames or [] if frame.id}
    boxes = []
    y = 0
    for ref in order:
        obj = heap[ref]
        entries: list[Entry] = []
        for index, value in enumerate(obj.get("items", [])):
            label = str(index) if obj.get("type") in ("list", "tuple") else ""
            entries.append(Entry(None, shown(value, heap), label))
        for key, value in obj.get("entries", []):
            entries.append(Entry(shown(key, heap), shown(value, heap)))
        default = "=" if obj.get("type") == "function" else ""  # a function's default values
        for name, value in obj.get("attrs", []):
            entries.append(Entry(None, shown(value, heap), f"{name}{default}"))
        more = int(obj.get("more", 0) or 0) + max(0, len(entries) - MAX_ITEMS)
        entries = entries[:MAX_ITEMS]
        parent = str(obj.get("parent", ""))
        box = Box(
            str(ref),
            obj.get("type", "other"),
            obj.get("name", ""),
            entries,
            more,
            y + ROW // 2,
            signature=str(obj.get("signature", "")),
            bases=[str(base) for base in obj.get("bases", [])],
            text=str(obj.get("text", "")),
            parent=parent,
            parent_title=titles.get(parent, ""),
        )
        boxes.append(box)
        y += ROW * box.rows + GAP
    return boxes


# Words -------------------------------------------------------------------------------


def frame_key(frames: list[dict], number: int) -> tuple[int, str]:
    return number, frames[number].get("function", "?")


def names_by_frame(step: dict) -> dict[tuple, dict[str, dict]]:
    """Each frame's names and values: running frames by their place on the stack, frames
    that closures keep by their id."""
    frames = step.get("frames", [])
    names: dict[tuple, dict[str, dict]] = {
        frame_key(frames, number): {name: value for name, value in frame.get("locals", [])}
        for number, frame in enumerate(frames)
    }
    for frame in step.get("kept", []):
        names[("kept", frame.get("id"), frame.get("function", "?"))] = {
            name: value for name, value in frame.get("locals", [])
        }
    return names


def same_value(old: dict, new: dict, old_heap: dict, new_heap: dict) -> bool:
    if "ref" in old or "ref" in new:
        return old.get("ref") == new.get("ref") and old_heap.get(old.get("ref")) == new_heap.get(
            new.get("ref")
        )
    return old == new


def aliases(step: dict) -> list[tuple[list[str], str]]:
    """Groups of names (in any frame) that name one object, with the object's words."""
    heap = step.get("heap", {})
    by_ref: dict[str, list[str]] = {}
    for frame in step.get("frames", []):
        for name, value in frame.get("locals", []):
            if isinstance(value, dict) and "ref" in value:
                names = by_ref.setdefault(value["ref"], [])
                if name not in names:
                    names.append(name)
    return [(names, kind_word(ref, heap)) for ref, names in by_ref.items() if len(names) > 1]


def code_name(name: str) -> str:
    return f"`{name}`"


def listed(names: list[str]) -> str:
    names = [code_name(name) for name in names]
    if len(names) == 1:
        return names[0]
    return _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def line_just_run(before: dict, step: dict) -> int | None:
    """The line that has just run, going from `before` to `step`: the line `before` was
    about to run, except after a return to a caller (its frame was already running in
    `before`), where the caller's line has just finished (`print(fits(x))`: the print's
    line, not the `return` inside `fits`)."""
    frames, earlier = step.get("frames") or [], before.get("frames") or []
    if frames and len(earlier) > len(frames) and before.get("event") in ("return", "exception"):
        current = frames[-1]
        if current.get("id") is not None:
            found = next((f for f in earlier if f.get("id") == current["id"]), None)
        elif not before.get("hidden_frames"):  # a trace from before frame ids: by position
            found = earlier[len(frames) - 1]
        else:
            found = None
        if found is not None and found.get("function") == current.get("function"):
            return found.get("line")
    return before.get("line")


def describe(steps: list[dict], number: int, stdout: str, *, total: int) -> str:
    """What step `number` (from 1) shows, against the step before: for screen readers."""
    step = steps[number - 1]
    heap = step.get("heap", {})
    parts = [_("Step %(number)s of %(total)s.") % {"number": number, "total": total}]
    if number == 1:
        parts.append(
            _("The program starts: line %(line)s runs first.") % {"line": step.get("line")}
        )
        before: dict = {"frames": [], "heap": {}, "stdout_len": 0}
    else:
        before = steps[number - 2]
        ran = line_just_run(before, step)
        if step.get("event") == "return":
            parts.append(_("Line %(line)s ran.") % {"line": ran})
        else:
            parts.append(
                _("Line %(line)s ran; line %(next)s is next.")
                % {"line": ran, "next": step.get("line")}
            )
    event = step.get("event")
    frames = step.get("frames", [])
    if event == "call" and frames:
        parts.append(
            _("%(function)s was called.") % {"function": code_name(frames[-1].get("function", "?"))}
        )
    if event == "return" and frames and "returned" in frames[-1]:
        function = frames[-1].get("function", "?")
        what = value_text(frames[-1]["returned"], heap)
        if function == "<module>" and before.get("event") == "exception":
            parts.append(
                _("The program stopped with %(exception)s.")
                % {"exception": before.get("exception")}
            )
        elif function == "<module>":
            parts.append(_("The program has finished."))
        elif before.get("event") == "exception":
            parts.append(
                _("%(function)s is left: the exception goes on to its caller.")
                % {"function": code_name(function)}
            )
        else:
            parts.append(
                _("%(function)s returns %(value)s.")
                % {"function": code_name(function), "value": what}
            )
    if step.get("exception"):
        parts.append(_("It raised %(exception)s.") % {"exception": step["exception"]})
    old_names, new_names = names_by_frame(before), names_by_frame(step)
    old_heap = before.get("heap", {})
    for key, names in new_names.items():
        if key[0] == "kept" and key not in old_names:
            function = code_name(key[2])
            parts.append(
                _(
                    "%(function)s has returned, but its frame is kept: a function made in it "
                    "still uses %(names)s."
                )
                % {"function": function, "names": listed(list(names))}
                if names
                else _(
                    "%(function)s has returned, but its frame is kept: a function made in it "
                    "still uses its variables."
                )
                % {"function": function}
            )
    hidden = (step.get("hidden_frames") or {}).get("count", 0)
    if hidden and not (before.get("hidden_frames") or {}).get("count", 0):
        parts.append(
            ngettext(
                "Calls are now %(depth)s deep: the first and the last ones are shown, "
                "%(hidden)s in between is counted.",
                "Calls are now %(depth)s deep: the first and the last ones are shown, "
                "%(hidden)s in between are counted.",
                hidden,
            )
            % {"depth": len(frames) + hidden - 1, "hidden": hidden}
        )
    changes = []
    for key, names in new_names.items():
        if key[0] == "kept" and key not in old_names:
            continue
        old = old_names.get(key, {})
        for name, value in names.items():
            if name not in old:
                if key in old_names or key[0] == 0:
                    changes.append(
                        _("%(name)s is now %(value)s")
                        % {"name": code_name(name), "value": value_text(value, heap)}
                    )
            elif not same_value(old[name], value, old_heap, heap):
                if "ref" in value and old[name].get("ref") == value.get("ref"):
                    changes.append(
                        _("the %(kind)s %(name)s names changed: it is now %(value)s")
                        % {
                            "kind": kind_word(value["ref"], heap),
                            "name": code_name(name),
                            "value": value_text(value, heap),
                        }
                    )
                else:
                    changes.append(
                        _("%(name)s changed from %(old)s to %(new)s")
                        % {
                            "name": code_name(name),
                            "old": value_text(old[name], old_heap),
                            "new": value_text(value, heap),
                        }
                    )
    if changes:
        parts.append("; ".join(changes) + ".")
    old_aliases = {tuple(names) for names, _kind in aliases(before)}
    for names, what in aliases(step):
        if tuple(names) not in old_aliases:
            parts.append(
                _("%(names)s name the same %(kind)s.") % {"names": listed(names), "kind": what}
            )
    printed = stdout[before.get("stdout_len", 0) : step.get("stdout_len", 0)]
    if printed:
        lines = printed.count("\n")
        if printed.strip() and lines > 1:
            parts.append(
                ngettext(
                    "It printed “%(text)s” (%(lines)s line).",
                    "It printed “%(text)s” (%(lines)s lines).",
                    lines,
                )
                % {"text": printed.strip(), "lines": lines}
            )
        elif printed.strip():
            parts.append(_("It printed “%(text)s”.") % {"text": printed.strip()})
        else:
            parts.append(
                _("It printed an empty line.") if lines == 1 else _("It printed blank space.")
            )
    return " ".join(parts)


def stopped_words(data: dict) -> str:
    """Why a trace stopped early, in plain words (empty for one that finished)."""
    stopped = data.get("stopped")
    if data.get("status") == "syntax_error" and data.get("error"):
        error = data["error"]
        return _(
            "Python could not read this program: line %(line)s: %(message)s. Fix it, then "
            "step through again."
        ) % {"line": error.get("line"), "message": error.get("message")}
    if data.get("status") == "failed":
        return _("Parsnip could not trace this program.")
    if not stopped:
        return ""
    # The tracer's `step` is the index of the last step recorded: as the learner counts, +1.
    step = int(stopped.get("step", 0)) + 1
    if stopped.get("message"):
        return stopped["message"]
    return str(STOPPED_WORDS.get(stopped.get("reason"), _("It stopped at step {step}."))).format(
        step=step
    )


def uncaught(data: "dict | Steps") -> str | None:
    """The exception the program ended with, if it ended with one: the module's last step
    is its return, just after the exception passed through it."""
    steps = Steps.of(data)
    if steps.summary.get("status") != "complete" or len(steps) < 2:
        return None
    last, before = steps[-1], steps[-2]
    if (
        last.get("event") == "return"
        and len(last.get("frames", [])) == 1
        and before.get("event") == "exception"
    ):
        return before.get("exception")
    return None


# Where a stepping opens ---------------------------------------------------------------


def leaves_prediction(output: str, predicted: list[str]) -> bool:
    """Whether the output so far is no longer the start of what the learner predicted:
    a finished line that differs (or one more than they said), or a line being printed
    that is not the start of theirs."""
    pieces = output.split("\n")
    finished, printing = pieces[:-1], pieces[-1]
    for number, line in enumerate(finished):
        if number >= len(predicted) or line.rstrip("\r") != predicted[number]:
            return True
    if printing:
        if len(finished) >= len(predicted):
            return True
        return not predicted[len(finished)].startswith(printing)
    return False


def first_differing_step(data: "dict | Steps", prediction: str) -> int:
    """The step (from 1) at which the output so far stops matching the prediction: the line
    just run printed what the learner did not say. When everything printed is what they
    said but they said more (a line missing from the output), the step where the program
    raised, or else its last step. 1 when nothing differs. (Reads the index only.)"""
    steps = Steps.of(data)
    if not len(steps):
        return 1
    stdout = steps.stdout
    predicted = output_lines(prediction)
    checked = None
    for number, stdout_len in enumerate(steps.index["stdout_len"], start=1):
        if stdout_len != checked:  # the output grew (or it is the first step): compare
            checked = stdout_len
            if leaves_prediction(stdout[:stdout_len], predicted):
                return number
    if output_lines(stdout) == predicted:
        return 1
    raised = next((n for n, flag in enumerate(steps.index["raised"], start=1) if flag), None)
    return raised or len(steps)


def first_step_from_line(data: "dict | Steps", line: int) -> int:
    """The first step (from 1) that runs line `line` or a later one of the program itself
    (its outermost frame): where a check appended after the learner's code begins."""
    index = Steps.of(data).index
    for number, (at, depth) in enumerate(zip(index["line"], index["depth"], strict=True), start=1):
        if depth <= 1 and at >= line:
            return number
    return 1


# The step ------------------------------------------------------------------------------


@dataclass
class CodeLine:
    number: int
    text: str
    current: bool = False  # about to run
    ran: bool = False  # just ran


@dataclass
class StepView:
    """Everything one step's region shows."""

    number: int
    total: int
    code: list[CodeLine]
    frames: list[Frame]
    boxes: list[Box]
    arrows: list[Arrow]
    output: str
    description: str
    event: str
    exception: str | None
    stopped: str = ""  # why the trace stopped, at its last step
    ended_with: str | None = None  # the exception the program ended with, at its last step
    links: list[Link] = field(default_factory=list)  # objects' arrows to objects
    made_in: list[MadeIn] = field(default_factory=list)  # functions' arrows to their frames
    height: int = 0  # of the frames-and-objects drawing
    line: int = 0
    ran_line: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def output_lines(self) -> list[str]:
        """The output so far as lines (a line still being printed is one too); a lone
        newline is one empty line."""
        lines = self.output.replace("\r\n", "\n").split("\n")
        return lines[:-1] if lines[-1] == "" else lines

    @property
    def first(self) -> bool:
        return self.number == 1

    @property
    def last(self) -> bool:
        return self.number == self.total


def step_view(data: "dict | Steps", code: str, number: int) -> StepView:
    """Step `number` (from 1, within the trace) of the trace `data` of `code`: parses that
    step and the one before, no other."""
    steps = Steps.of(data)
    total = len(steps)
    steps.read(number - 2, number - 1)  # this step and the one before, read at once
    step = steps[number - 1]
    heap = step.get("heap", {})
    ran = line_just_run(steps[number - 2], step) if number > 1 else None
    line = step.get("line", 0)
    lines = [
        CodeLine(n, text, current=n == line, ran=n == ran)
        for n, text in enumerate(code.split("\n"), start=1)
    ]
    if lines and lines[-1].text == "" and not (lines[-1].current or lines[-1].ran):
        lines.pop()
    frames = build_frames(step, heap)
    boxes = build_boxes(object_order(frames, heap), heap, frames)
    box_y = {box.id: box.y for box in boxes}
    arrows = [
        Arrow(variable.name, variable.value.ref, variable.y, box_y[variable.value.ref])
        for frame in frames
        for variable in frame.variables
        if variable.value.ref in box_y
    ]
    frame_y = {frame.id: frame.y for frame in frames if frame.id}
    made_in = [
        MadeIn(f"#{box.id}", box.parent, box.parent_y, frame_y[box.parent])
        for box in boxes
        if box.parent in frame_y
    ]
    frames_height = sum(ROW * f.rows + GAP + (ROW + GAP if f.hidden_before else 0) for f in frames)
    boxes_height = sum(ROW * box.rows + GAP for box in boxes)
    stdout = steps.stdout
    return StepView(
        number=number,
        total=total,
        code=lines,
        frames=frames,
        boxes=boxes,
        arrows=arrows,
        links=build_links(boxes),
        made_in=made_in,
        output=stdout[: step.get("stdout_len", 0)],
        description=describe(steps, number, stdout, total=total),
        event=step.get("event", "line"),
        exception=step.get("exception"),
        stopped=stopped_words(steps.summary) if number == total else "",
        ended_with=uncaught(steps) if number == total else None,
        height=max(frames_height, boxes_height, ROW),
        line=line,
        ran_line=ran,
    )
