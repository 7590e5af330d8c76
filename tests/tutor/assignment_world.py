"""Rows the assignment tests share: a lesson with one item of each practice kind, a class,
and helpers that do each item the way a learner's rows record it."""

from datetime import datetime, timedelta

from django.utils import timezone

from course.kinds.code_exercise import CodeExercise
from course.models import Lesson
from tests.factories import (
    make_block,
    make_cohort,
    make_exercise,
    make_lesson,
    make_ordering_attempt,
    make_prediction,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.assignments.models import Assignment
from tutor.practice.code_exercise.models import Submission

NOW = timezone.now().replace(microsecond=0)


def make_code_exercise(lesson: Lesson) -> CodeExercise:
    block = make_block(lesson, "code_exercise", title="Write it")
    return CodeExercise.objects.create(block=block, solution="print(1)\n")


def practice_lesson(**fields) -> tuple[Lesson, dict]:
    """A lesson with a prose block, a snippet, an ordering exercise and a code exercise."""
    lesson = make_lesson(**fields)
    make_block(lesson, "prose", body="Read this.")
    items = {
        "snippet": make_snippet(lesson),
        "ordering": make_exercise(lesson),
        "code_exercise": make_code_exercise(lesson),
    }
    return lesson, items


def do_snippet(user, snippet, at: datetime):
    first = not snippet.predictions.filter(user=user, is_first=True).exists()
    return make_prediction(user, snippet, created_at=at, is_first=first)


def do_ordering(user, exercise, at: datetime):
    return make_ordering_attempt(user, exercise, created_at=at)


def do_code(user, exercise, at: datetime, verdict=Submission.Verdict.PASSED):
    return Submission.objects.create(
        user=user, exercise=exercise, code="print(1)\n", verdict=verdict, created_at=at
    )


DOERS = {"snippet": do_snippet, "ordering": do_ordering, "code_exercise": do_code}


def do_everything(user, items: dict, at: datetime) -> None:
    for kind, item in items.items():
        DOERS[kind](user, item, at)


def assign(cohort, lesson, *, blocks=(), opens=None, due=None, **fields) -> Assignment:
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        whole_lesson=not blocks,
        opens_at=opens or NOW - timedelta(days=1),
        due_at=due or NOW + timedelta(days=1),
        **fields,
    )
    assignment.blocks.set(blocks)
    return assignment


def class_of(*students, teacher=None):
    return make_cohort(teacher or make_teacher(), students=list(students) or [make_user()])
