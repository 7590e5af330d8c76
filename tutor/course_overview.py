"""What a course's page shows beside its lessons: the lessons grouped by level, where the
learner left off, what each lesson practises, and for a teacher, how far a class is
through each lesson and whether it is already set, to pick what to assign next.

Plain functions that return data; tutor.views.lessons.course_detail merges them.
"""

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q
from django.utils.translation import gettext as _

from course.models import Block, Lesson
from tutor import practice
from tutor.assignments.models import Assignment
from tutor.models import Cohort, LessonProgress
from tutor.roles import is_teacher


@dataclass
class Level:
    """A run of consecutive lessons of one level ("" for lessons without one)."""

    name: str
    before: int  # lessons before this group in the course: its first is number before + 1
    lessons: list[Lesson] = field(default_factory=list)
    complete: int = 0


def by_level(lessons: list[Lesson], progress: dict[int, LessonProgress]) -> list[Level]:
    """The lessons in course order, cut where the level changes (a level that comes back
    later in the order starts a new group, so the order is never broken)."""
    levels: list[Level] = []
    for n, lesson in enumerate(lessons):
        if not levels or levels[-1].name != lesson.level:
            levels.append(Level(lesson.level, before=n))
        levels[-1].lessons.append(lesson)
        if (row := progress.get(lesson.pk)) is not None and row.is_complete:
            levels[-1].complete += 1
    return levels


@dataclass(frozen=True)
class Resume:
    """The lesson to go on with: "continue" (the unfinished lesson worked on last),
    "next" (nothing half-done: the first lesson not started, after some finished) or
    "start" (nothing done yet), as My progress says it for all courses."""

    lesson: Lesson
    how: str
    percent: int = 0

    @property
    def words(self) -> str:
        return {
            "continue": _("Continue where you left off"),
            "next": _("Next"),
            "start": _("Start with"),
        }[self.how]


def where_to_continue(lessons: list[Lesson], progress: dict[int, LessonProgress]) -> Resume | None:
    """Where the learner left off in these lessons (in course order): None when every
    lesson is complete, or there are none."""
    unfinished = [row for pk, row in progress.items() if not row.is_complete]
    if unfinished:
        latest = max(unfinished, key=lambda row: row.updated_at)
        lesson = next(lesson for lesson in lessons if lesson.pk == latest.lesson_id)
        return Resume(lesson, "continue", latest.percent)
    lesson = next((lesson for lesson in lessons if lesson.pk not in progress), None)
    if lesson is None:
        return None
    return Resume(lesson, "next" if progress else "start")


def practised(lessons: list[Lesson]) -> dict[int, list[tuple[str, int]]]:
    """What each lesson practises, as (kind's label, how many) in the kinds' order, by
    lesson pk: one query, whatever the number of lessons and kinds."""
    kinds = {kind.name: kind for kind in practice.every() if not kind.panel}
    order = list(kinds)
    counts = (
        Block.objects.filter(lesson__in=lessons, kind__in=order)
        .values("lesson_id", "kind")
        .annotate(n=Count("pk"))
    )
    by_lesson: dict[int, list[tuple[str, int]]] = {}
    for row in sorted(counts, key=lambda row: order.index(row["kind"])):
        by_lesson.setdefault(row["lesson_id"], []).append((kinds[row["kind"]].label, row["n"]))
    return by_lesson


@dataclass(frozen=True)
class ClassOnLesson:
    """How one class stands on one lesson: students who started it and finished it, and
    the due date of the latest assignment of it, if it is set."""

    started: int = 0
    complete: int = 0
    due_at: datetime | None = None


@dataclass(frozen=True)
class Teaching:
    classes: list[Cohort]
    chosen: Cohort
    students: int
    by_lesson: dict[int, ClassOnLesson]


def teaching(
    user: AbstractBaseUser | AnonymousUser, lessons: list[Lesson], *, chosen: str = ""
) -> Teaching | None:
    """For a teacher with classes: the class chosen (`chosen`, a pk as text; else their
    first) and how it stands on each lesson, in three queries. None for anyone else."""
    if not is_teacher(user):
        return None
    classes = list(Cohort.objects.visible_to(user).annotate(size=Count("memberships", distinct=True)))
    if not classes:
        return None
    cohort = next((c for c in classes if chosen.isdecimal() and str(c.pk) == chosen), classes[0])
    members = Q(user__memberships__cohort=cohort)
    rows = (
        LessonProgress.objects.filter(members, lesson__in=lessons)
        .values("lesson_id")
        .annotate(
            started=Count("pk"), complete=Count("pk", filter=Q(completed_at__isnull=False))
        )
    )
    due = dict(
        Assignment.objects.filter(cohort=cohort, lesson__in=lessons)
        .order_by("lesson_id", "due_at")
        .values_list("lesson_id", "due_at")
    )
    by_lesson = {
        lesson.pk: ClassOnLesson(due_at=due.get(lesson.pk)) for lesson in lessons
    }
    for row in rows:
        by_lesson[row["lesson_id"]] = ClassOnLesson(
            row["started"], row["complete"], due.get(row["lesson_id"])
        )
    return Teaching(classes, cohort, cohort.size, by_lesson)
