"""Which insertions the trail marks as pastes: by what they are (how much arrived, how fast),
not by what the browser claims. A claim of a paste can add a mark, never hide one.

- One step inserting PASTE_MIN_CHARS or more (a new line's indentation not counted: the
  editor adds it) is a paste: the editor sends typing at one place as one step only within
  2 seconds, and nobody types 40 characters in 2 seconds.
- A step the browser said was pasted, of more than a line, is a paste (as before).
- Smaller insertions are summed over WINDOW_MS: pieces the browser said were pasted adding
  up to PASTE_MIN_CHARS, or any insertions adding up to more than TYPED_MAX (20 characters a
  second for 10 seconds, faster than anyone types code), make one paste of all of them.
- A correction (the code as the server received it: edits not recorded) is a paste when it
  inserts more than PASTE_MIN_CHARS plus 20 characters a second since the trail's last step.
- Text the code already had is no paste: copied from elsewhere in it, or brought back (an
  undo, a cut and paste) within KNOWN_FOR_MS of being deleted.

The times are the browser's, but each is clamped between the trail's previous step and the
moment the server received it (tutor.trail.actions): an hour of "typing" takes an hour.
"""

import hashlib
import re
from dataclasses import dataclass

from tutor.trail import encoding

PASTE_MIN_CHARS = encoding.PASTE_MIN_CHARS
WINDOW_MS = 10_000
TYPED_PER_SECOND = 20
TYPED_MAX = TYPED_PER_SECOND * WINDOW_MS // 1000
KNOWN_FOR_MS = 10 * 60 * 1000
KEEP_DELETED = 20  # the latest large deletions remembered (their digests)
_INDENT = re.compile(r"\n[ \t]+")


def typed_length(insert: str) -> int:
    """The characters a person would type for it: a new line's indentation is the editor's."""
    return len(_INDENT.sub("\n", insert))


@dataclass(frozen=True)
class Insertion:
    number: int  # the step's number in the trail
    at_ms: int  # since the epoch
    kind: str
    chars: int  # len(insert)
    typed: int  # typed_length(insert)
    lines: bool  # more than a line
    after_ms: int | None  # since the trail's step before it (None: the first)
    known: bool = False  # text the code already had (see `Memory.knows`)

    @classmethod
    def of(
        cls,
        number: int,
        at_ms: int,
        step: encoding.Step,
        after_ms: int | None,
        known: bool = False,
    ) -> "Insertion":
        return cls(
            number,
            at_ms,
            step.kind,
            len(step.insert),
            typed_length(step.insert),
            "\n" in step.insert.strip("\n"),
            after_ms,
            known,
        )


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


class Memory:
    """What the trail remembers between batches (kept in `Trail.recent`): the small
    insertions of the last WINDOW_MS, and digests of the large deletions of the last
    KNOWN_FOR_MS (an insertion bringing one back is no paste)."""

    def __init__(self, kept) -> None:
        kept = kept if isinstance(kept, dict) else {}
        self.pieces: list = [list(row) for row in kept.get("pieces", [])]
        self.deleted: list = [list(row) for row in kept.get("deleted", [])]

    def knows(self, text_before: str, step: encoding.Step, at_ms: int) -> bool:
        """Whether the step inserts a large text the code had: elsewhere in it now, or
        deleted from it lately. Remembers what the step deletes."""
        insert = step.insert
        known = (
            step.kind != encoding.SYNC
            and len(insert) >= PASTE_MIN_CHARS
            and (
                insert in text_before
                or any(
                    digest == _digest(insert)
                    for ms, digest in self.deleted
                    if at_ms - ms <= KNOWN_FOR_MS
                )
            )
        )
        if step.delete >= PASTE_MIN_CHARS:
            removed = text_before[step.pos : step.pos + step.delete]
            self.deleted = [*self.deleted[-(KEEP_DELETED - 1) :], [at_ms, _digest(removed)]]
        return known

    def kept(self) -> dict:
        return {"pieces": self.pieces, "deleted": self.deleted}


def judge(insertions: list[Insertion], *, recent: list, marks: list) -> list:
    """Add to `marks` ([step, "p", characters] or, for pieces, [first, "p", characters,
    last step]) the pastes among `insertions` (in order); `recent` is the trail's small
    insertions of the last WINDOW_MS ([step, ms, kind, chars, typed]), kept across batches.
    Returns the new `recent`."""
    recent = [list(row) for row in recent]
    for one in insertions:
        if one.known:
            continue
        if one.kind == encoding.SYNC:
            if (
                one.after_ms is not None
                and one.typed > PASTE_MIN_CHARS + TYPED_PER_SECOND * one.after_ms / 1000
            ):
                marks.append([one.number, encoding.PASTE, one.chars])
            continue
        if one.typed >= PASTE_MIN_CHARS or (one.kind == encoding.PASTE and one.lines):
            marks.append([one.number, encoding.PASTE, one.chars])
            continue
        recent = [row for row in recent if one.at_ms - row[1] <= WINDOW_MS]
        recent.append([one.number, one.at_ms, one.kind, one.chars, one.typed])
        claimed = sum(row[4] for row in recent if row[2] == encoding.PASTE)
        typed = sum(row[4] for row in recent)
        if claimed < PASTE_MIN_CHARS and typed <= TYPED_MAX:
            continue
        last = next((mark for mark in reversed(marks) if len(mark) == 4), None)  # in pieces
        if last is not None and last[3] >= recent[0][0]:
            # The same run of pieces: the paste grows.
            last[2] += sum(row[3] for row in recent if row[0] > last[3])
            last[3] = one.number
        else:
            marks.append([recent[0][0], encoding.PASTE, sum(row[3] for row in recent), one.number])
    return recent


# Where pasted text sits as the code changes after it --------------------------------------

MAX_SPANS = 200  # the latest kept: a trail of more pastes forgets its oldest


def carry(spans: list, step: encoding.Step) -> list:
    """The spans ([start, end) of pasted text) after `step`: moved by what it inserted
    before them, cut where it deleted inside them (typing inside pasted text is not pasted)."""
    if not step.changes_text:
        return spans
    pos, end, grow = step.pos, step.pos + step.delete, len(step.insert) - step.delete
    kept = []
    for start, stop in spans:
        if stop <= pos:
            kept.append([start, stop])
        elif start >= end:
            kept.append([start + grow, stop + grow])
        else:
            if start < pos:
                kept.append([start, pos])
            if stop > end:
                kept.append([end + grow, stop + grow])
    return kept


def spans_after(spans: list, numbered_steps, paste_at) -> list:
    """`spans` carried through `numbered_steps` ((number, step) in order), each step a
    paste (`paste_at(number)` is a mark) adding where its text landed."""
    spans = [list(span) for span in spans]
    for number, step in numbered_steps:
        spans = carry(spans, step)
        if step.insert and paste_at(number) is not None:
            spans.append([step.pos, step.pos + len(step.insert)])
    return spans[-MAX_SPANS:]
