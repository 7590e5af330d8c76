"""The trail's writes: a batch of edits from the editor, a moment (run, check, submission)
from a view, and the retention purge. Each is one transaction on the learner's trail row."""

import logging
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Sum
from django.db.models.functions import Coalesce, Length
from django.utils import timezone
from django.utils.translation import gettext

from course.models import Block
from tutor.connections import DATABASE_OUTAGES
from tutor.trail import encoding, pastes
from tutor.trail.encoding import BROWSER_RUN, CHECK, RUN, SUBMIT, Step  # noqa: F401 (the moments views name)
from tutor.trail.models import CHECKPOINT_EVERY, Trail, TrailChunk

logger = logging.getLogger(__name__)

ACTIVE_GAP = timedelta(seconds=60)  # a longer pause is not counted as time at work
# What one student may record in an hour, over all their trails: the editor sends a batch
# every 4 s at most (900 an hour); an hour of steady typing keeps about 60,000 characters.
BATCHES_PER_HOUR = 1800
CHARACTERS_PER_HOUR = 500_000


class RecordingRefused(Exception):
    """The student has recorded as much as Parsnip keeps in an hour; the message says so."""


def original_code(block: Block) -> str:
    """The code the editor opens with before any draft: a snippet's, an exercise's starter."""
    snippet = getattr(block, "snippet", None)
    if snippet is not None:
        return snippet.code
    exercise = getattr(block, "code_exercise", None)
    return exercise.starter if exercise is not None else ""


def trail_for_update(*, user: AbstractBaseUser, block: Block) -> Trail:
    """The learner's trail on the block, locked for this transaction (made if need be)."""
    found = Trail.objects.select_for_update().filter(user=user, block=block).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return Trail.objects.create(user=user, block=block, text=original_code(block))
    except IntegrityError:  # made by a request at the same moment
        return Trail.objects.select_for_update().get(user=user, block=block)


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _append(trail: Trail, timed: list[tuple[datetime, Step]]) -> None:
    """Keep the steps (each with its time) as one chunk and bring the trail's figures on."""
    if not timed:
        return
    start = timed[0][0]
    last = trail.updated_at if trail.steps else None
    if not trail.steps:
        trail.started_at = start
    steps, insertions = [], []
    memory, text = pastes.Memory(trail.recent), trail.text
    for at, step in timed:
        steps.append(
            Step(
                int((at - start).total_seconds() * 1000),
                step.kind,
                step.pos,
                step.delete,
                step.insert,
            )
        )
        if last is not None:
            trail.active_seconds += int(
                min(max(at - last, timedelta(0)), ACTIVE_GAP).total_seconds()
            )
        trail.steps += 1
        if step.changes_text:
            known = memory.knows(text, step, _ms(at))
            text = step.apply(text)
            if step.insert:
                after = None if last is None else max(0, _ms(at) - _ms(last))
                insertions.append(pastes.Insertion.of(trail.steps, _ms(at), step, after, known))
        last = at
        if step.kind in (encoding.RUN, encoding.BROWSER_RUN):
            trail.runs += 1
        elif step.kind in (encoding.SUBMIT, encoding.CHECK):
            trail.submissions += 1
        if step.kind in encoding.MOMENTS:
            trail.marks.append([trail.steps, step.kind, 0])
    memory.pieces = pastes.judge(insertions, recent=memory.pieces, marks=trail.marks)
    trail.recent = memory.kept()
    trail.marks.sort(key=lambda mark: mark[0])
    trail.largest_paste = max(
        [trail.largest_paste] + [mark[2] for mark in trail.marks if mark[1] == encoding.PASTE]
    )
    checkpoint = trail.chunks % CHECKPOINT_EVERY == 0
    TrailChunk.objects.create(
        trail=trail,
        seq=trail.chunks,
        first_step=trail.steps - len(steps),
        at=start,
        data=encoding.encode(steps),
        checkpoint=trail.text if checkpoint else None,
        checkpoint_spans=_spans_now(trail) if checkpoint else None,
    )
    trail.chunks += 1
    trail.updated_at = last
    trail.text = text
    trail.save()


def _spans_now(trail: Trail) -> list:
    """Where pasted text sits in the trail's text before its next chunk: the last
    checkpoint's spans carried through the chunks since (one query, every 16th chunk)."""
    if not trail.chunks:
        return []
    chunks = list(
        TrailChunk.objects.filter(trail=trail, seq__gte=trail.chunks - CHECKPOINT_EVERY).order_by(
            "seq"
        )
    )
    numbered = [
        (chunk.first_step + i + 1, step) for chunk in chunks for i, step in enumerate(chunk.steps())
    ]
    return pastes.spans_after(chunks[0].checkpoint_spans or [], numbered, trail.paste_at)


def _sync(text: str, code: str) -> Step | None:
    if text == code:
        return None
    pos, delete, insert = encoding.splice_between(text, code)
    return Step(0, encoding.SYNC, pos, delete, insert)


def record_edits(
    *,
    user: AbstractBaseUser,
    block: Block,
    edits: list[tuple[int, str, int, int, str]],
    code: str,
    base: str | None = None,
    now: datetime | None = None,
) -> Trail:
    """The editor's batch: its edits (ms ago, kind, pos, delete, insert; oldest first), the
    code it ended with and, from a page's first batch, the `base` its edits start from. An
    edit that does not fit the text as the trail has it (an edit lost on the way, another
    tab) stops the batch there; a correction then brings the trail to `code`, so the trail
    always ends where the learner's editor did."""
    now = now or timezone.now()
    with transaction.atomic():
        trail = trail_for_update(user=user, block=block)
        refused = over_the_hours_allowance(user=user, now=now)
        if refused:
            trail.refused += 1
            trail.save(update_fields=["refused"])
        else:
            _append(trail, _edits(trail, edits, code=code, base=base, now=now))
    if refused:
        raise RecordingRefused(refused)
    return trail


def over_the_hours_allowance(*, user: AbstractBaseUser, now: datetime) -> str | None:
    """Why the student's edits are not recorded now (more batches or characters in the last
    hour than BATCHES_PER_HOUR, CHARACTERS_PER_HOUR), or None. One query. A chunk's time may
    be up to MAX_AGO_MS before it arrived, so an hour counts a little less for a forger."""
    found = TrailChunk.objects.filter(trail__user=user, at__gte=now - timedelta(hours=1)).aggregate(
        batches=Count("pk"),
        steps=Coalesce(Sum(Length("data")), 0),
        checkpoints=Coalesce(Sum(Length("checkpoint")), 0),
    )
    if (
        found["batches"] < BATCHES_PER_HOUR
        and found["steps"] + found["checkpoints"] < CHARACTERS_PER_HOUR
    ):
        return None
    return gettext(
        "Parsnip has recorded as much of your editing as it keeps in an hour, so your edits "
        "are not recorded for now. Your runs and submissions still are, with their code."
    )


def _edits(trail: Trail, edits: list, *, code: str, base: str | None, now: datetime) -> list:
    """The batch's steps with their times, ending at `code`."""
    # Times only go forward: a step never lands before the trail's last one.
    floor = trail.updated_at if trail.steps else now - timedelta(milliseconds=encoding.MAX_AGO_MS)
    text, timed = trail.text, []
    if base is not None and (sync := _sync(text, base)):
        first = now - timedelta(milliseconds=edits[0][0]) if edits else now
        timed.append((max(first, floor), sync))
        text = base
    for ago, kind, pos, delete, insert in edits:
        try:
            step = Step(0, kind, *encoding.from_utf16(text, pos, delete, insert))
            text = step.apply(text)
        except encoding.BadSteps:
            break
        timed.append((max(now - timedelta(milliseconds=ago), floor), step))
        floor = timed[-1][0]
    if sync := _sync(text, code):
        timed.append((now, sync))
    return timed


def record_moment(
    *, user: AbstractBaseUser, block: Block, what: str, code: str, carried: dict | None = None
) -> None:
    """A run, check or submission of `code` (recorded by the view that took it; without
    JavaScript these are the whole trail), after the editor's edits it `carried` (the form's
    fields: see `carried_edits`), in one write."""
    now = timezone.now()
    edits, base = carried_edits(carried or {})
    try:
        with transaction.atomic():
            trail = trail_for_update(user=user, block=block)
            if (edits or base is not None) and over_the_hours_allowance(user=user, now=now):
                trail.refused += 1
                edits, base = [], None  # the moment and its code are kept all the same
            timed = _edits(trail, edits, code=code, base=base, now=now)
            timed.append((now, Step(0, what)))
            _append(trail, timed)
    except DATABASE_OUTAGES as error:
        if connection.in_atomic_block:
            raise  # the caller's transaction is lost with it: theirs to answer
        # The run or submission it records is stored already: a moment of its trail lost
        # to the database restarting is better than asking the learner to do it twice.
        logger.warning("a trail moment was not kept: the database went away (%s)", error)


def carried_edits(fields) -> tuple[list, str | None]:
    """The edits a run's or submission's form carried (trail.js), if readable: else none
    (the code itself is still recorded)."""
    try:
        edits = encoding.parse_batch(fields.get("trail_edits") or "[]")
    except encoding.BadSteps:
        return [], None
    base = fields.get("trail_base", "") if fields.get("trail_has_base") else None
    return edits, None if base is None else encoding.normalise_line_breaks(base)


def purge_older_than(*, days: int, now: datetime | None = None) -> int:
    """Delete the trails nobody has added to for `days` days; how many went."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted, by_model = Trail.objects.filter(updated_at__lt=cutoff).delete()
    return by_model.get("tutor.Trail", 0)
