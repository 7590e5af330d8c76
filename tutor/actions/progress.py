"""Lesson progress, derived from what a learner did and recomputed under a row lock."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from course.models import Block, Lesson, OrderingExercise, Snippet
from tutor.models import LessonProgress, OrderingAttempt, Prediction, Run


def refresh_lesson_progress(*, user: AbstractBaseUser, lesson: Lesson) -> LessonProgress:
    """Recount one learner's progress on one lesson from the stored rows.

    The progress row is locked first, so two requests landing together serialise here
    and the later one counts what the earlier one committed: no update is lost. A
    lesson is complete when every snippet has a prediction and every exercise is solved.
    """
    with transaction.atomic():
        progress = LessonProgress.objects.select_for_update().filter(user=user, lesson=lesson).first()
        if progress is None:
            progress, _ = LessonProgress.objects.get_or_create(user=user, lesson=lesson)
            progress = LessonProgress.objects.select_for_update().get(pk=progress.pk)
        (
            progress.snippets_total,
            progress.snippets_predicted,
            progress.predictions_right,
            progress.exercises_total,
            progress.exercises_solved,
            progress.runs,
        ) = _counts(user_id=user.pk, lesson_id=lesson.pk)

        now = timezone.now()
        done = (
            progress.snippets_predicted >= progress.snippets_total
            and progress.exercises_solved >= progress.exercises_total
            and progress.items_total > 0
        )
        if not done:
            progress.completed_at = None
        elif progress.completed_at is None:
            progress.completed_at = now
        progress.updated_at = now
        progress.save()
    return progress


def _counts(*, user_id: int, lesson_id: int) -> tuple[int, ...]:
    """Snippets, those predicted, first predictions right on the current version,
    exercises, those solved (once solved stays solved: "Practise again" does not undo it),
    and runs: one statement, because it runs while the row is locked (and, on SQLite,
    while every other writer waits). Six ORM counts cost several milliseconds of Python."""
    snippet, block = Snippet._meta.db_table, Block._meta.db_table
    prediction, exercise = Prediction._meta.db_table, OrderingExercise._meta.db_table
    attempt, run = OrderingAttempt._meta.db_table, Run._meta.db_table
    of_lesson = f"JOIN {block} b ON b.id = s.block_id WHERE b.lesson_id = %(lesson)s"
    predictions = (
        f"FROM {prediction} p JOIN {snippet} s ON s.id = p.snippet_id {of_lesson} "
        "AND p.user_id = %(user)s AND p.verdict <> %(pending)s"
    )
    sql = f"""SELECT
        (SELECT COUNT(*) FROM {snippet} s {of_lesson}),
        (SELECT COUNT(DISTINCT p.snippet_id) {predictions}),
        (SELECT COUNT(*) {predictions} AND p.is_first = %(true)s
            AND p.snippet_version = s.version AND p.verdict IN (%(right)s, %(self_right)s)),
        (SELECT COUNT(*) FROM {exercise} s {of_lesson}),
        (SELECT COUNT(DISTINCT a.exercise_id) FROM {attempt} a
            JOIN {exercise} s ON s.id = a.exercise_id {of_lesson}
            AND a.user_id = %(user)s AND a.verdict = %(solved)s),
        (SELECT COUNT(*) FROM {run} r JOIN {snippet} s ON s.id = r.snippet_id {of_lesson}
            AND r.user_id = %(user)s AND r.purpose = %(purpose)s)"""
    params = {
        "lesson": lesson_id, "user": user_id, "pending": Prediction.Verdict.PENDING.value,
        "true": True, "right": Prediction.Verdict.RIGHT.value,
        "self_right": Prediction.Verdict.SELF_RIGHT.value,
        "solved": OrderingAttempt.Verdict.SOLVED.value, "purpose": Run.Purpose.RUN.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return tuple(cursor.fetchone())


def count_run(*, user: AbstractBaseUser, lesson: Lesson) -> None:
    """A run only adds one to the learner's runs (it does not change what is done): one
    UPDATE, so a class pressing Run together holds the write lock for microseconds."""
    counted = LessonProgress.objects.filter(user=user, lesson=lesson).update(
        runs=F("runs") + 1, updated_at=timezone.now()
    )
    if not counted:
        refresh_lesson_progress(user=user, lesson=lesson)


def recompute_all_progress() -> int:
    """Rebuild every learner's progress from their stored attempts; returns rows written."""
    pairs = set()
    for model, lesson_path in (
        (Prediction, "snippet__block__lesson"),
        (OrderingAttempt, "exercise__block__lesson"),
        (Run, "snippet__block__lesson"),
    ):
        rows = model.objects.filter(user__isnull=False, **{f"{lesson_path}__isnull": False})
        pairs.update(rows.values_list("user_id", lesson_path).distinct())
    pairs.update(LessonProgress.objects.values_list("user_id", "lesson_id"))
    users = get_user_model().objects.in_bulk({user_id for user_id, _ in pairs})
    lessons = Lesson.objects.in_bulk({lesson_id for _, lesson_id in pairs})
    for user_id, lesson_id in sorted(pairs):
        refresh_lesson_progress(user=users[user_id], lesson=lessons[lesson_id])
    return len(pairs)
