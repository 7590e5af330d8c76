"""What moves the live view: every learner action, and hands raised, lowered and cleared.

`record` is the one call each practice kind makes, inside the transaction of the action
it records, so the activity row never disagrees with the attempt it describes.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from course.models import Block, Lesson
from tutor.live.models import LessonActivity, LiveSettings, RaisedHand
from tutor.models import Cohort

WHAT_MAX = LessonActivity._meta.get_field("what").max_length


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

    The row is locked before it is read, and the count is an F() expression, so two
    actions of one learner at once both count (on SQLite the write transaction is
    already serialised)."""
    now = timezone.now()
    what = what[:WHAT_MAX]
    with transaction.atomic():
        row, created = LessonActivity.objects.get_or_create(
            user=user,
            lesson_id=block.lesson_id,
            defaults={  # (a late verdict with no row yet is rare: it starts one)
                "block": block,
                "what": what,
                "acted_at": now,
                "since": now,
                "failures": 1 if failed else 0,
                "done": failed is False,
            },
        )
        if created:
            return
        current = (
            LessonActivity.objects.select_for_update()
            .filter(pk=row.pk)
            .values_list("block_id", flat=True)
            .get()
        )
        if later and current != block.pk:
            return
        changes: dict = {"block": block, "what": what, "acted_at": now}
        if current != block.pk or failed is False:
            changes.update(since=now, failures=1 if failed else 0, done=failed is False)
        elif failed:
            changes.update(failures=F("failures") + 1, done=False)
        LessonActivity.objects.filter(pk=row.pk).update(**changes)


class HandRefused(Exception):
    """The hand cannot be raised or cleared; the message says why. `status`: 400 for a
    request that makes no sense, 403 for one this person may not make."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def raise_hand(*, user: AbstractBaseUser, lesson: Lesson) -> RaisedHand:
    """Raise the learner's hand in this lesson (raised already: it keeps its place in the
    queue). Only a student of a class has a teacher to see it."""
    if not Cohort.objects.joined_by(user).exists():
        raise HandRefused(
            "Raising a hand asks your teacher for help: join your teacher’s class first.",
            status=403,
        )
    hand, _ = RaisedHand.objects.get_or_create(user=user, lesson=lesson)
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
            raise HandRefused("That student is not in this class.")
        hands = hands.filter(user=student_pk)
    deleted, _ = RaisedHand.objects.filter(pk__in=list(hands.values_list("pk", flat=True))).delete()
    return deleted


def save_settings(*, cohort: Cohort, stuck_failures: int, stuck_minutes: int) -> LiveSettings:
    """The class's rules for "stuck"."""
    found, _ = LiveSettings.objects.update_or_create(
        cohort=cohort, defaults={"stuck_failures": stuck_failures, "stuck_minutes": stuck_minutes}
    )
    return found
