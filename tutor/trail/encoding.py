"""The trail's steps and how they are kept: one splice per edit, as compact JSON.

A step is an edit (`pos`, `delete`, `insert`: replace `delete` characters at `pos` by
`insert`), a paste (an edit the browser saw come from the clipboard), a correction the
server made so that the trail matches the code it received (`sync`), or a moment with no
change of text (a run, a check, a submission). Replaying the steps from the code a trail
started with rebuilds every text the learner had, exactly.
"""

import json
from dataclasses import dataclass

EDIT, PASTE, SYNC = "e", "p", "s"
RUN, CHECK, SUBMIT = "run", "check", "submit"
CHANGES = (EDIT, PASTE, SYNC)
MOMENTS = (RUN, CHECK, SUBMIT)
# A paste counts as one (marked, and the largest kept) from this size: a line or so.
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
            raise BadSteps("An edit outside the text.")
        return text[: self.pos] + self.insert + text[self.pos + self.delete :]

    @property
    def is_paste(self) -> bool:
        """A paste worth marking: more than a line or so."""
        return self.kind == PASTE and (
            "\n" in self.insert.strip("\n") or len(self.insert) >= PASTE_MIN_CHARS
        )


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


def parse_batch(raw: str) -> list[tuple[int, str, int, int, str]]:
    """The browser's batch: a JSON list of [ms ago, "e" or "p", pos, delete, insert], oldest
    first. Checked for shape only; whether each edit fits the text is the replay's to say."""
    try:
        rows = json.loads(raw)
    except ValueError:
        raise BadSteps("The edits are not readable.") from None
    if not isinstance(rows, list) or len(rows) > MAX_STEPS:
        raise BadSteps(f"Send at most {MAX_STEPS} edits at a time.")
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
                "An edit is not of the form [ms ago, kind, position, deleted, inserted]."
            )
        parsed.append(tuple(row))
    return parsed


def marked_span(step: Step) -> tuple[int, int] | None:
    """Where the step's inserted text sits in the text after it (start, end)."""
    if not step.changes_text or not step.insert:
        return None
    return step.pos, step.pos + len(step.insert)
