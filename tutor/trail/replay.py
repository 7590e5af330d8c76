"""One step of a trail as the replay shows it, rebuilt from the nearest checkpoint: two
queries (the chunk that holds the step, then the chunks from its checkpoint to it),
whatever the trail's length."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from tutor.trail import encoding
from tutor.trail.encoding import Step
from tutor.trail.models import CHECKPOINT_EVERY, Trail, TrailChunk

SPEEDS = (1, 10, 60)
LONGEST_PAUSE_MS = 5000  # a replay never waits longer than this between steps at 1×


@dataclass(frozen=True)
class ReplayStep:
    number: int  # 0: the code the trail started with
    total: int
    text: str
    step: Step | None
    at: datetime | None
    next_in_ms: int | None  # until the next step happened (capped), for playing

    @property
    def words(self) -> str:
        step = self.step
        if step is None:
            return "The code as it started."
        if step.kind == encoding.RUN:
            return "Ran the code."
        if step.kind == encoding.CHECK:
            return "Checked the code."
        if step.kind == encoding.SUBMIT:
            return "Submitted the code."
        lines = len(step.insert.splitlines()) or 1
        if step.kind == encoding.PASTE:
            return (
                f"Pasted {len(step.insert)} characters ({lines} line{'s' if lines != 1 else ''})."
            )
        if step.kind == encoding.SYNC:
            return "The code as the server received it (edits in between were not recorded)."
        if step.insert and step.delete:
            return f"Replaced {step.delete} characters by {len(step.insert)}."
        if step.insert:
            return f"Typed {len(step.insert)} character{'s' if len(step.insert) != 1 else ''}."
        return f"Deleted {step.delete} character{'s' if step.delete != 1 else ''}."

    @property
    def is_paste(self) -> bool:
        return self.step is not None and self.step.is_paste

    def numbered_lines(self) -> list[tuple[int, SafeString]]:
        """The code's lines, the step's inserted text marked (a paste says so in words)."""
        span = encoding.marked_span(self.step) if self.step is not None else None
        if span is None:
            html = escape(self.text)
        else:
            start, end = span
            label = "pasted" if self.is_paste else "just changed"
            css = "trail-paste" if self.is_paste else "trail-change"
            inside = escape(self.text[start:end]).split("\n")
            marked = "\n".join(
                f'<mark class="{css}"><span class="visually-hidden">[{label}:]</span>{part}</mark>'
                if part
                else ""
                for part in inside
            )
            html = escape(self.text[:start]) + marked + escape(self.text[end:])
        return [(n, mark_safe(line)) for n, line in enumerate(html.split("\n"), start=1)]


def step_of(trail: Trail, number: int) -> ReplayStep:
    number = max(0, min(number, trail.steps))
    if number == 0:
        first = trail.chunk_rows.filter(seq=0).first()
        text = first.checkpoint if first is not None else trail.text
        following = first.steps()[0] if first is not None and first.steps() else None
        return ReplayStep(0, trail.steps, text, None, None, None if following is None else 0)
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
    here = next(t for t in timed if t[0] == number)
    after = next((t for t in timed if t[0] == number + 1), None)
    next_in = None
    if after is not None:
        next_in = min(int((after[1] - here[1]).total_seconds() * 1000), LONGEST_PAUSE_MS)
    return ReplayStep(number, trail.steps, text, here[2], here[1], next_in)


def marks_in_words(trail: Trail) -> list[tuple[int, str]]:
    words = {
        encoding.RUN: "Run",
        encoding.CHECK: "Check",
        encoding.SUBMIT: "Submission",
        encoding.PASTE: "Paste",
    }
    return [
        (
            step,
            f"{words.get(kind, kind)}"
            + (f" of {size} characters" if kind == encoding.PASTE else ""),
        )
        for step, kind, size in trail.marks
    ]
