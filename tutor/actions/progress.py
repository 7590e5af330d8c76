"""Lesson progress, derived from what a learner did and recomputed under a row lock."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from course.models import Block, Lesson
from tutor import practice, signals
from tutor.models import LessonProgress


def learner_worked(
    *,
    user: AbstractBaseUser,
    block: Block,
    what: str,
    failed: bool | None = None,
    later: bool = False,
    counts: bool = False,
    attempt: bool = False,
) -> None:
    """The one call a kind's action makes for what a learner did on a block, inside the
    action's transaction: `tutor.signals.learner_worked` announces it (the teacher's live
    view listens and records it, `tutor.live.actions.record`: `what` in words, `failed`,
    `later` for a verdict the worker gave), and when it may
    change what counts (`counts`: a verdict, a solved or passed item) the learner's
    progress on the lesson is recounted (`refresh_lesson_progress`, the one function
    every scoring change goes through); an `attempt` (a check, a submission, whatever its
    verdict) starts the lesson (`start_lesson`). The page's progress badge follows from the view
    (`tutor.practice.with_lesson_progress`); an assignment's closing is checked before, by
    the view (`tutor.assignments.closing.closed_to`)."""
    signals.learner_worked.send(
        sender=learner_worked, user=user, block=block, what=what, failed=failed, later=later
    )
    if counts:
        refresh_lesson_progress(user=user, lesson=block.lesson)
    elif attempt:
        start_lesson(user=user, lesson=block.lesson)


def start_lesson(*, user: AbstractBaseUser, lesson: Lesson) -> None:
    """An attempt that does nothing yet (a wrong check, a failed submission, one still
    waiting) still starts the lesson: its progress row is made, 0 of its items done, as
    `recompute_all_progress` would make it. One query once it exists."""
    if not LessonProgress.objects.of(user, lesson).exists():
        refresh_lesson_progress(user=user, lesson=lesson)


def refresh_lesson_progress(*, user: AbstractBaseUser, lesson: Lesson) -> LessonProgress:
    """Recount one learner's progress on one lesson from the stored rows.

    The progress row is locked first, so two requests landing together serialise here
    and the later one counts what the earlier one committed: no update is lost. A
    lesson is complete when every practice item on it is done (each practice kind says
    what "done" is: tutor.practice).
    """
    with transaction.atomic(savepoint=False):  # nothing here is caught and carried on from
        progress = LessonProgress.objects.select_for_update().of(user, lesson).first()
        if progress is None:
            # Made if still missing (a request landing together may make it first: nothing
            # is raised, so no savepoint), then locked as found.
            LessonProgress.objects.bulk_create(
                [LessonProgress(user=user, lesson=lesson)], ignore_conflicts=True
            )
            progress = LessonProgress.objects.select_for_update().of(user, lesson).get()
        progress.counts = _counts(user_id=user.pk, lesson_id=lesson.pk)
        for kind in practice.every():
            if (count := kind.count()) is not None:
                for name, column in count.columns:
                    setattr(progress, column, progress.counts[kind.name][name])
        progress.items_total = sum(numbers["total"] for numbers in progress.counts.values())
        progress.items_done = sum(numbers["done"] for numbers in progress.counts.values())

        now = timezone.now()
        done = progress.items_done >= progress.items_total and progress.items_total > 0
        if not done:
            progress.completed_at = None
        elif progress.completed_at is None:
            progress.completed_at = now
        progress.updated_at = now
        progress.save()
        transaction.on_commit(
            lambda: signals.progress_changed.send(
                sender=LessonProgress, user_id=progress.user_id, lesson_id=progress.lesson_id
            )
        )
    return progress


def _counts(*, user_id: int, lesson_id: int) -> dict[str, dict[str, int]]:
    """Each practice kind's numbers on the lesson (its items, those done, and its own
    extras): one statement, because it runs while the row is locked (and, on SQLite,
    while every other writer waits). Several ORM counts cost milliseconds of Python."""
    columns, params = [], {"lesson": lesson_id, "user": user_id}
    for kind in practice.every():
        if (count := kind.count()) is None:
            continue
        for name, sql in (("total", count.total), ("done", count.done), *count.extra):
            columns.append((kind.name, name, sql))
        params.update(count.params)
    if not columns:
        return {}
    sql = "SELECT " + ", ".join(f"({sql})" for _, _, sql in columns)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        values = cursor.fetchone()
    counts: dict[str, dict[str, int]] = {}
    for (kind, name, _), value in zip(columns, values, strict=True):
        counts.setdefault(kind, {})[name] = value
    return counts


def count_run(*, user: AbstractBaseUser, lesson: Lesson, runs: int = 1) -> None:
    """A run only adds one to the learner's runs (it does not change what is done): one
    UPDATE, so a class pressing Run together holds the write lock for microseconds. (A
    batch of runs in the browser adds `runs`, stored already.)"""
    counted = LessonProgress.objects.of(user, lesson).update(
        runs=F("runs") + runs, updated_at=timezone.now()
    )
    if not counted:
        refresh_lesson_progress(user=user, lesson=lesson)


def recompute_all_progress() -> int:
    """Rebuild every learner's progress from their stored attempts; returns rows written."""
    pairs = set()
    for kind in practice.every():
        pairs.update(kind.worked_on())
    pairs.update(LessonProgress.objects.values_list("user_id", "lesson_id"))
    users = get_user_model().objects.in_bulk({user_id for user_id, _ in pairs})
    lessons = Lesson.objects.in_bulk({lesson_id for _, lesson_id in pairs})
    for user_id, lesson_id in sorted(pairs):
        refresh_lesson_progress(user=users[user_id], lesson=lessons[lesson_id])
    return len(pairs)
