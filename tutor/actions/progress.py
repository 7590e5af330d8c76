"""Lesson progress, derived from what a learner did and recomputed under a row lock."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from course.models import Lesson, OrderingExercise, Snippet
from tutor.models import LessonProgress, OrderingAttempt, Prediction, Run


def refresh_lesson_progress(*, user: AbstractBaseUser, lesson: Lesson) -> LessonProgress:
    """Recount one learner's progress on one lesson from the stored rows.

    The progress row is locked first, so two requests landing together serialise here
    and the later one counts what the earlier one committed: no update is lost. A
    lesson is complete when every snippet has a prediction and every exercise is solved.
    """
    with transaction.atomic():
        progress, _ = LessonProgress.objects.get_or_create(user=user, lesson=lesson)
        progress = LessonProgress.objects.select_for_update().get(pk=progress.pk)

        snippets = Snippet.objects.filter(block__lesson=lesson)
        predictions = Prediction.objects.filter(user=user, snippet__block__lesson=lesson).exclude(
            verdict=Prediction.Verdict.PENDING
        )
        first_on_current = predictions.filter(
            is_first=True, snippet_version=F("snippet__version")
        )
        progress.snippets_total = snippets.count()
        progress.snippets_predicted = predictions.values("snippet").distinct().count()
        progress.predictions_right = first_on_current.filter(
            verdict__in=[Prediction.Verdict.RIGHT, Prediction.Verdict.SELF_RIGHT]
        ).count()
        progress.exercises_total = OrderingExercise.objects.filter(block__lesson=lesson).count()
        # Solved once is solved: "Practise again" afterwards does not undo it.
        progress.exercises_solved = (
            OrderingAttempt.objects.filter(
                user=user, exercise__block__lesson=lesson, verdict=OrderingAttempt.Verdict.SOLVED
            )
            .values("exercise")
            .distinct()
            .count()
        )
        progress.runs = Run.objects.filter(
            user=user, snippet__block__lesson=lesson, purpose=Run.Purpose.RUN
        ).count()

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
