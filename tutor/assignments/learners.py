"""What a student sees of their assignments: what is set, when it is due (their
extension, if any), whether it is done, late or closed. The home page, My progress and
the lesson page merge `context()` into theirs."""

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone

from course.models import Lesson
from tutor.assignments.models import Assignment
from tutor.assignments.status import LATE, MISSING, ON_TIME, Standing, standings


@dataclass(frozen=True)
class Assigned:
    """One assignment as its student sees it."""

    assignment: Assignment
    standing: Standing

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
        .select_related("lesson__course", "cohort")
        .order_by("due_at", "pk")
        .distinct()
    )
    if lessons is not None:
        found = found.filter(lesson__in=[getattr(lesson, "pk", lesson) for lesson in lessons])
    assignments = list(found)
    standing = standings(assignments, [user.pk], now=now)
    return [Assigned(a, standing[(a.pk, user.pk)]) for a in assignments]


def context(user: AbstractBaseUser | AnonymousUser, *, lessons: list | None = None) -> dict:
    """`assigned` (a list, soonest due first) and `assigned_by_lesson` (lesson pk -> list)."""
    assigned = assigned_to(user, lessons=lessons)
    by_lesson: dict[int, list[Assigned]] = {}
    for item in assigned:
        by_lesson.setdefault(item.assignment.lesson_id, []).append(item)
    return {"assigned": assigned, "assigned_by_lesson": by_lesson}
