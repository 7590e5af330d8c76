"""What a student sees of their assignments: what is set, when it is due (their
extension, if any), whether it is done, late or closed. The home page, My progress and
the lesson page merge `context()` into theirs."""

from dataclasses import dataclass, replace
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone

from course.models import Lesson
from tutor.assignments.grid import item_names
from tutor.assignments.models import Assignment
from tutor.assignments.status import LATE, MISSING, ON_TIME, Standing, items_of, standings


@dataclass(frozen=True)
class Assigned:
    """One assignment as its student sees it."""

    assignment: Assignment
    standing: Standing
    items: tuple[str, ...] = ()  # the exercises set, by name, when not the whole lesson

    @property
    def closed(self) -> bool:
        return self.assignment.is_closed

    @property
    def done(self) -> bool:
        return self.standing.status in (ON_TIME, LATE)

    @property
    def overdue(self) -> bool:
        return self.standing.status == MISSING


def assigned_to(
    user: AbstractBaseUser | AnonymousUser,
    *,
    lessons: list | None = None,
    now: datetime | None = None,
) -> list[Assigned]:
    """The opened assignments of the user's classes (on `lessons` only, if given), soonest
    due first: two queries, and one per practice kind assigned."""
    if not user.is_authenticated:
        return []
    now = now or timezone.now()
    found = (
        Assignment.objects.for_student(user)
        .opened(now)
        .filter(lesson__in=Lesson.objects.visible_to(user))
        .select_related("lesson__course", "cohort__teacher")
        .order_by("due_at", "pk")
        .distinct()
    )
    if lessons is not None:
        found = found.filter(lesson__in=[getattr(lesson, "pk", lesson) for lesson in lessons])
    assignments = list(found)
    standing = standings(assignments, [user.pk], now=now)
    return [Assigned(a, standing[(a.pk, user.pk)]) for a in assignments]


def named(assigned: list[Assigned]) -> list[Assigned]:
    """With the names of the exercises set, for assignments of some of a lesson's exercises
    (what the lesson page says; a query for those only)."""
    # A drawn quiz names none: its pool is the course's, and each attempt draws from it.
    some = [item for item in assigned if not item.assignment.whole_lesson and not item.assignment.is_drawn]
    if not some:
        return assigned
    items = items_of([item.assignment for item in some])
    return [
        item
        if item.assignment.pk not in items
        else replace(item, items=tuple(item_names(item.assignment, items[item.assignment.pk])))
        for item in assigned
    ]


def sets_block(assigned: list[Assigned], block) -> bool:
    """Whether one of these assignments, still taking work, sets the block (a query only
    for assignments of some of a lesson's exercises)."""
    taking = [item.assignment for item in assigned if not item.closed]
    if any(assignment.whole_lesson for assignment in taking):
        return True
    return bool(taking) and (
        Assignment.blocks.through.objects.filter(assignment__in=taking, block=block).exists()
    )


def closed_items(assigned: list[Assigned], blocks: list) -> set[int]:
    """The pks of those of `blocks` a closed assignment of these covers: their panels say
    so and offer no Check (the views refuse them anyway: tutor.assignments.closing). A
    query only for closed assignments of some of a lesson's exercises."""
    closed = [item.assignment for item in assigned if item.closed]
    if not closed or not blocks:
        return set()
    pks = {block.pk for block in blocks}
    if any(assignment.whole_lesson for assignment in closed):
        return pks
    return set(
        Assignment.blocks.through.objects.filter(assignment__in=closed, block__in=pks).values_list(
            "block_id", flat=True
        )
    )


def context(
    user: AbstractBaseUser | AnonymousUser,
    *,
    lessons: list | None = None,
    names: bool = False,
    in_class: bool = True,
) -> dict:
    """`assigned` (a list, soonest due first) and `assigned_by_lesson` (lesson pk -> list);
    `names`: with the names of the exercises set (the lesson page); `in_class=False`: the
    user is known to be in no class, so none (no query)."""
    assigned = assigned_to(user, lessons=lessons) if in_class else []
    if names:
        assigned = named(assigned)
    by_lesson: dict[int, list[Assigned]] = {}
    for item in assigned:
        by_lesson.setdefault(item.assignment.lesson_id, []).append(item)
    return {"assigned": assigned, "assigned_by_lesson": by_lesson}
