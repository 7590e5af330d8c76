"""What moves the live view: every learner action, and hands raised, lowered and cleared.

`record` runs inside the transaction of the action it records (tutor announces each one
with `tutor.signals.learner_worked`, which `learner_worked` here listens to), so the
activity row never disagrees with the attempt it describes.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from course.models import Block, Lesson
from tutor.live.models import LessonActivity, LiveSettings, RaisedHand
from tutor.models import Cohort

WHAT_MAX = LessonActivity._meta.get_field("what").max_length


def learner_worked(
    sender, *, user: AbstractBaseUser, block: Block, what: str, failed: bool | None,
    later: bool, **kwargs,
) -> None:
    """Receives `tutor.signals.learner_worked` (connected in tutor.apps)."""
    record(user=user, block=block, what=what, failed=failed, later=later)


def record(
    *,
    user: AbstractBaseUser,
    block: Block,
    what: str,
    failed: bool | None = None,
    later: bool = False,
) -> None:
    """The learner did `what` (in words: "checked the ordering — wrong") on `block`.

    `failed`: True for a failed check or submission (one more in a row), False for
    progress (solved, passed, predicted: the count and the clock start again), None for
    a step that is neither (a move, a run). Acting on another block starts the count and
    the clock again too. `later`: the verdict of an earlier action, given by the worker;
    it counts only while the learner is still on that block (it never takes them back).

    One statement, in the caller's transaction: an upsert whose new values the database
    computes from the row as it is (the failures in a row plus one, on the block the row
    was on). Two actions of one learner at once both count, and the click holds SQLite's
    write lock for microseconds more, not for an ORM query's milliseconds of Python."""
    params = {
        "user": user.pk,
        "lesson": block.lesson_id,
        "block": block.pk,
        "what": what[:WHAT_MAX],
        "now": connection.ops.adapt_datetimefield_value(timezone.now()),
        "failures": 1 if failed else 0,
        "done": failed is False,
    }
    sql = (_LATER_SQL if later else _UPSERT_SQL)[failed]
    # No savepoint inside the caller's transaction: one statement, and an error in it
    # ends the caller's transaction anyway (a savepoint is two more round trips).
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(sql, params)


def _statements() -> tuple[dict, dict]:
    """The upsert, and the late verdict's update, for each value of `failed`."""
    table = LessonActivity._meta.db_table

    def if_same_block(kept: str, otherwise: str) -> str:
        return f"CASE WHEN {table}.block_id = excluded.block_id THEN {kept} ELSE {otherwise} END"

    since = if_same_block(f"{table}.since", "excluded.since")
    counts = {
        True: f"failures = {if_same_block(f'{table}.failures + 1', '1')}, since = {since}, "
        "done = %(done)s",
        False: "failures = 0, since = excluded.since, done = %(done)s",
        None: f"failures = {if_same_block(f'{table}.failures', '0')}, since = {since}, "
        f"done = {if_same_block(f'{table}.done', '%(done)s')}",
    }
    insert = (
        f"INSERT INTO {table} (user_id, lesson_id, block_id, what, acted_at, failures, since, done) "
        "VALUES (%(user)s, %(lesson)s, %(block)s, %(what)s, %(now)s, %(failures)s, %(now)s, %(done)s) "
        "ON CONFLICT (user_id, lesson_id) DO UPDATE SET "
    )
    moved = "block_id = excluded.block_id, what = excluded.what, acted_at = excluded.acted_at"
    upsert = {failed: f"{insert}{change}, {moved}" for failed, change in counts.items()}
    on_block = {  # still on that block, so nothing depends on which block the row was on
        True: "failures = failures + 1, done = %(done)s",
        False: "failures = 0, since = %(now)s, done = %(done)s",
        None: "done = done",
    }
    later = {
        failed: f"UPDATE {table} SET what = %(what)s, acted_at = %(now)s, {change} "
        "WHERE user_id = %(user)s AND lesson_id = %(lesson)s AND block_id = %(block)s"
        for failed, change in on_block.items()
    }
    return upsert, later


_UPSERT_SQL, _LATER_SQL = _statements()


class HandRefused(Exception):
    """The hand cannot be raised or cleared; the message says why. `status`: 400 for a
    request that makes no sense, 403 for one this person may not make."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def raise_hand(*, user: AbstractBaseUser, lesson: Lesson, block: Block | None = None) -> RaisedHand:
    """Raise the learner's hand in this lesson, about one of its items or the whole lesson
    (raised already: it keeps its place in the queue, about what it says now). Only a
    student of a class has a teacher to see it."""
    if not Cohort.objects.joined_by(user).exists():
        raise HandRefused(
            gettext("Raising a hand asks your teacher for help: join your teacher’s class first."),
            status=403,
        )
    if block is not None and block.lesson_id != lesson.pk:
        raise HandRefused(gettext("That item is not in this lesson."))
    hand, created = RaisedHand.objects.get_or_create(user=user, lesson=lesson, defaults={"block": block})
    if not created and hand.block_id != (block.pk if block else None):
        hand.block = block
        hand.save(update_fields=["block"])
    return hand


def lower_hand(*, user: AbstractBaseUser, lesson: Lesson) -> None:
    """The learner lowers their own hand."""
    RaisedHand.objects.filter(user=user, lesson=lesson).delete()


def clear_hands(*, cohort: Cohort, lesson: Lesson, student_pk: int | None = None) -> int:
    """The teacher clears one student's hand (`student_pk`) or every hand of the class in
    this lesson; returns how many. A student not in the class is refused."""
    hands = RaisedHand.objects.filter(lesson=lesson, user__memberships__cohort=cohort)
    if student_pk is not None:
        if not cohort.memberships.filter(student=student_pk).exists():
            raise HandRefused(gettext("That student is not in this class."))
        hands = hands.filter(user=student_pk)
    deleted, _ = RaisedHand.objects.filter(pk__in=list(hands.values_list("pk", flat=True))).delete()
    return deleted


def save_settings(*, cohort: Cohort, stuck_failures: int, stuck_minutes: int) -> LiveSettings:
    """The class's rules for "stuck"."""
    found, _ = LiveSettings.objects.update_or_create(
        cohort=cohort, defaults={"stuck_failures": stuck_failures, "stuck_minutes": stuck_minutes}
    )
    return found
