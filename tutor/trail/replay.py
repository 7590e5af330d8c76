"""One step of a trail as the replay shows it, rebuilt from the nearest checkpoint: two
queries (the chunk that holds the step, then the chunks from its checkpoint to it),
whatever the trail's length."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from tutor.practice.code_exercise.models import Submission
from tutor.trail import encoding, pastes
from tutor.trail.encoding import Step
from tutor.trail.models import CHECKPOINT_EVERY, Trail, TrailChunk

SPEEDS = (1, 10, 60)
LONGEST_PAUSE_MS = 5000  # a replay never waits longer than this between steps at 1×


@dataclass(frozen=True)
class Line:
    number: int
    html: SafeString
    changed: bool  # holds what the step inserted, or where it deleted
    pasted: bool  # ... and that was a paste
    first: bool  # the first changed line: the replay scrolls to it
    from_paste: bool = False  # holds text pasted at this step or before


@dataclass(frozen=True)
class ReplayStep:
    number: int  # 0: the code the trail started with
    total: int
    text: str
    step: Step | None
    at: datetime | None
    next_in_ms: int | None  # until the next step happened (capped), for playing
    paste: list | None = None  # the paste mark covering this step (tutor.trail.pastes)
    spans: list = field(default_factory=list)  # where pasted text sits in `text`

    @property
    def words(self) -> str:
        step = self.step
        if step is None:
            return gettext("The code as it started.")
        if step.kind == encoding.RUN:
            return gettext("Ran the code.")
        if step.kind == encoding.BROWSER_RUN:
            return gettext("Ran the code in the browser.")
        if step.kind == encoding.CHECK:
            return gettext("Checked the code.")
        if step.kind == encoding.SUBMIT:
            return gettext("Submitted the code.")
        inserted = len(step.insert)
        lines = len(step.insert.splitlines()) or 1
        if step.kind == encoding.SYNC:
            said = gettext(
                "The code as the server received it (edits in between were not recorded)."
            )
        elif step.kind == encoding.PASTE:
            said = ngettext(
                "Pasted %(chars)s characters (%(lines)s line).",
                "Pasted %(chars)s characters (%(lines)s lines).",
                lines,
            ) % {"chars": inserted, "lines": lines}
        elif step.insert and step.delete:
            said = gettext("Replaced %(deleted)s characters by %(chars)s.") % {
                "deleted": step.delete,
                "chars": inserted,
            }
        elif step.insert:
            said = ngettext(
                "Typed %(chars)s character.", "Typed %(chars)s characters.", inserted
            ) % {"chars": inserted}
        else:
            said = ngettext(
                "Deleted %(chars)s character.", "Deleted %(chars)s characters.", step.delete
            ) % {"chars": step.delete}
        return f"{said} {self.paste_words}".strip()

    @property
    def paste_words(self) -> str:
        """Why the step is marked as a paste when the browser did not say so."""
        mark = self.paste
        step = self.step
        if mark is None:
            if (
                step is not None
                and step.kind in (encoding.EDIT, encoding.PASTE)
                and (
                    pastes.typed_length(step.insert) >= pastes.PASTE_MIN_CHARS
                    or (step.kind == encoding.PASTE and "\n" in step.insert.strip("\n"))
                )
            ):
                return gettext(
                    "Text the code already had (copied within it, or brought back by an undo): "
                    "not a paste."
                )
            return ""
        if len(mark) > 3:
            return gettext(
                "Part of a paste in pieces: %(chars)s characters in steps %(first)s to "
                "%(last)s (pasted, or inserted faster than anyone types)."
            ) % {"chars": mark[2], "first": mark[0], "last": mark[3]}
        if self.step is not None and self.step.kind != encoding.PASTE:
            return gettext("More at once than anyone types: marked as a paste.")
        return ""

    @property
    def is_paste(self) -> bool:
        return self.paste is not None

    def lines(self) -> list[Line]:
        """The code's lines, the step's inserted text marked (a paste says so in words), the
        lines it changed flagged; a deletion leaves a mark where it was."""
        step = self.step
        pasted = self.lines_from_pastes()
        if step is None or not step.changes_text:
            return [
                Line(n, mark_safe(line), False, False, False, n in pasted)  # noqa: S308 -- escaped
                for n, line in enumerate(escape(self.text).split("\n"), start=1)
            ]
        start, end = step.pos, step.pos + len(step.insert)
        label = gettext("pasted") if self.is_paste else gettext("just changed")
        css = "trail-paste" if self.is_paste else "trail-change"
        if step.insert:
            inside = escape(self.text[start:end]).split("\n")
            marked = "\n".join(
                f'<mark class="{css}"><span class="visually-hidden">[{label}:]</span>{part}</mark>'
                if part
                else ""
                for part in inside
            )
        else:
            deleted = ngettext(
                "%(chars)s character deleted here", "%(chars)s characters deleted here", step.delete
            ) % {"chars": step.delete}
            marked = f'<span class="trail-deleted" title="{escape(deleted)}"><span class="visually-hidden">[{escape(deleted)}]</span></span>'
        html = escape(self.text[:start]) + marked + escape(self.text[end:])
        first = self.text.count("\n", 0, start) + 1
        last = first + self.text.count("\n", start, max(start, end - 1))  # not past a final \n
        return [
            Line(
                n,
                mark_safe(line),  # noqa: S308 -- every part escaped above
                first <= n <= last,
                first <= n <= last and self.is_paste,
                n == first,
                n in pasted,
            )
            for n, line in enumerate(html.split("\n"), start=1)
        ]

    def lines_from_pastes(self) -> set[int]:
        """The numbers of the lines holding pasted text (this step's paste or earlier ones)."""
        found, start = set(), 0
        for n, line in enumerate(self.text.split("\n"), start=1):
            end = start + len(line) + 1  # its line break with it
            if any(
                a < end and b > start and self.text[max(a, start) : min(b, end)].strip()
                for a, b in self.spans
            ):
                found.add(n)
            start = end
        return found


def step_of(trail: Trail, number: int) -> ReplayStep:
    number = max(0, min(number, trail.steps))
    if number == 0:
        first = trail.chunk_rows.filter(seq=0).first()
        text = first.checkpoint if first is not None else trail.text
        following = first.steps()[0] if first is not None and first.steps() else None
        spans = (first.checkpoint_spans or []) if first is not None else []
        return ReplayStep(
            0, trail.steps, text, None, None, None if following is None else 0, None, spans
        )
    holder = (
        TrailChunk.objects.filter(trail=trail, first_step__lt=number)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    start = holder - holder % CHECKPOINT_EVERY
    # The checkpoint's chunk to the one after the step's (when the next step happens).
    chunks = list(
        TrailChunk.objects.filter(trail=trail, seq__gte=start, seq__lte=holder + 1).order_by("seq")
    )
    text = chunks[0].checkpoint
    timed = [
        (chunk.first_step + i + 1, chunk.at + timedelta(milliseconds=step.ms), step)
        for chunk in chunks
        for i, step in enumerate(chunk.steps())
    ]
    for n, _, step in timed:
        if n > number:
            break
        text = step.apply(text)
    spans = pastes.spans_after(
        chunks[0].checkpoint_spans or [],
        [(n, step) for n, _, step in timed if n <= number],
        trail.paste_at,
    )
    here = next(t for t in timed if t[0] == number)
    after = next((t for t in timed if t[0] == number + 1), None)
    next_in = None
    if after is not None:
        next_in = min(int((after[1] - here[1]).total_seconds() * 1000), LONGEST_PAUSE_MS)
    paste = trail.paste_at(number) if here[2].changes_text else None
    return ReplayStep(number, trail.steps, text, here[2], here[1], next_in, paste, spans)


def marks_in_words(trail: Trail) -> list[tuple[int, str, int | None]]:
    """The steps to jump to: (step, what happened, the last step of a paste in pieces)."""
    words = {
        encoding.RUN: gettext("Run"),
        encoding.BROWSER_RUN: gettext("Run in the browser"),
        encoding.CHECK: gettext("Check"),
        encoding.SUBMIT: gettext("Submission"),
    }
    found = []
    for number, kind, size, *through in trail.marks:
        if kind != encoding.PASTE:
            found.append((number, words.get(kind, kind), None))
        elif through:
            found.append(
                (
                    number,
                    gettext("Paste in pieces of %(chars)s characters") % {"chars": size},
                    through[0],
                )
            )
        else:
            found.append((number, gettext("Paste of %(chars)s characters") % {"chars": size}, None))
    return found


def submission_at(trail: Trail, shown: ReplayStep):
    """The submission a submit step recorded (the view records the step just after making
    the submission), for its result; None for any other step."""
    if shown.step is None or shown.step.kind != encoding.SUBMIT or shown.at is None:
        return None
    return (
        Submission.objects.filter(
            user=trail.user_id, exercise__block=trail.block_id, created_at__lte=shown.at
        )
        .order_by("-created_at", "-pk")
        .first()
    )
