"""The trail's steps and how they are kept: one splice per edit, as compact JSON.

A step is an edit (`pos`, `delete`, `insert`: replace `delete` characters at `pos` by
`insert`), a paste (an edit the browser saw come from the clipboard), a correction the
server made so that the trail matches the code it received (`sync`), or a moment with no
change of text (a run, a check, a submission). Replaying the steps from the code a trail
started with rebuilds every text the learner had, exactly.
"""

import json
import re
from dataclasses import dataclass

from django.utils.translation import gettext

EDIT, PASTE, SYNC = "e", "p", "s"
RUN, CHECK, SUBMIT = "run", "check", "submit"
BROWSER_RUN = "brun"  # a run in the learner's own browser, as it reported it
CHANGES = (EDIT, PASTE, SYNC)
MOMENTS = (RUN, BROWSER_RUN, CHECK, SUBMIT)
# An insertion is a paste (marked, and the largest kept) from this size: tutor.trail.pastes.
PASTE_MIN_CHARS = 40


class BadSteps(ValueError):
    """What the browser sent is not a list of steps (the message says why)."""


@dataclass(frozen=True)
class Step:
    ms: int  # after the chunk's start
    kind: str
    pos: int = 0
    delete: int = 0
    insert: str = ""

    @property
    def changes_text(self) -> bool:
        return self.kind in CHANGES

    def apply(self, text: str) -> str:
        if not self.changes_text:
            return text
        if not 0 <= self.pos <= len(text) or self.delete < 0 or self.pos + self.delete > len(text):
            raise BadSteps(gettext("An edit outside the text."))
        return text[: self.pos] + self.insert + text[self.pos + self.delete :]


def splice_between(old: str, new: str) -> tuple[int, int, str]:
    """The one splice that turns `old` into `new`: what differs between their common start
    and their common end."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return start, len(old) - start - end, new[start : len(new) - end]


def encode(steps: list[Step]) -> str:
    rows = [
        [step.ms, step.kind, step.pos, step.delete, step.insert]
        if step.changes_text
        else [step.ms, step.kind]
        for step in steps
    ]
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False)


def decode(text: str) -> list[Step]:
    return [Step(*row) for row in json.loads(text)]


def replay(text: str, steps: list[Step]) -> str:
    for step in steps:
        text = step.apply(text)
    return text


MAX_STEPS = 2000  # in one batch (a few seconds of typing is a few dozen)
MAX_AGO_MS = 10 * 60 * 1000
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 units each


def normalise_line_breaks(text: str) -> str:
    """A line break as the editors and every code form keep it (a form sends CRLF)."""
    return text.replace("\r\n", "\n")


def half_characters_inside(insert: str) -> bool:
    """Half of a UTF-16 pair anywhere but at an end of the insertion, where its other half
    may be the text's (the editor's diff can cut between the halves of an emoji)."""
    return bool(_SURROGATE.search(insert, 1, max(1, len(insert) - 1)))


def parse_batch(raw: str) -> list[tuple[int, str, int, int, str]]:
    """The browser's batch: a JSON list of [ms ago, "e" or "p", pos, delete, insert], oldest
    first, positions in UTF-16 units (see `from_utf16`), line breaks normalised. Checked for
    shape only; whether each edit fits the text is the replay's to say."""
    try:
        rows = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: lists nested thousands deep
        raise BadSteps(gettext("The edits are not readable.")) from None
    if not isinstance(rows, list) or len(rows) > MAX_STEPS:
        raise BadSteps(gettext("Send at most %(count)s edits at a time.") % {"count": MAX_STEPS})
    parsed = []
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 5
            and all(
                isinstance(n, int) and not isinstance(n, bool) for n in (row[0], row[2], row[3])
            )
            and row[1] in (EDIT, PASTE)
            and isinstance(row[4], str)
            and 0 <= row[0] <= MAX_AGO_MS
            and row[2] >= 0
            and row[3] >= 0
        ):
            raise BadSteps(
                gettext("An edit is not of the form [ms ago, kind, position, deleted, inserted].")
            )
        if half_characters_inside(row[4]):
            raise BadSteps(gettext("An edit holds half of a character (a broken UTF-16 pair)."))
        parsed.append((row[0], row[1], row[2], row[3], normalise_line_breaks(row[4])))
    return parsed


def from_utf16(text: str, pos: int, delete: int, insert: str) -> tuple[int, int, str]:
    """The edit (`pos` and `delete` counted in UTF-16 units, as the browser counts) in
    Python's characters. A position between the two halves of an emoji's pair (the editor's
    diff of 😀 to 😃 changes the second half only) moves out to the whole character, so the
    edit replaces whole characters. BadSteps if it falls outside the text, or leaves half a
    character that has no other half."""
    if not _ASTRAL.search(text) and not _SURROGATE.search(insert):
        if pos + delete > len(text):
            raise BadSteps(gettext("An edit outside the text."))
        return pos, delete, insert  # one unit a character: the same positions
    units = text.encode("utf-16-le")
    size = len(units) // 2
    start, end = pos, pos + delete
    if end > size:
        raise BadSteps(gettext("An edit outside the text."))

    def after_first_half(i: int) -> bool:  # unit i-1 opens a pair (stored text has no halves)
        return 0 < i < size and units[2 * i - 1] & 0xFC == 0xD8

    if after_first_half(start):
        start -= 1
    if after_first_half(end):
        end += 1
    middle = (
        units[2 * start : 2 * pos]
        + insert.encode("utf-16-le", "surrogatepass")
        + units[2 * (pos + delete) : 2 * end]
    ).decode("utf-16-le", "surrogatepass")
    if _SURROGATE.search(middle):
        raise BadSteps(gettext("An edit holds half of a character."))
    before = len(units[: 2 * start].decode("utf-16-le"))
    return before, len(units[2 * start : 2 * end].decode("utf-16-le")), middle


def marked_span(step: Step) -> tuple[int, int] | None:
    """Where the step's inserted text sits in the text after it (start, end)."""
    if not step.changes_text or not step.insert:
        return None
    return step.pos, step.pos + len(step.insert)
