"""What teachers see of ordering exercises: how the class did on each exercise of a
lesson, a student's checks in their timeline, and the attempts CSV rows."""

from collections.abc import Iterator
from datetime import datetime

from django.db.models import Count, Prefetch, Q

from course.kinds.ordering import OrderingExercise, OrderingLine
from tutor import teaching
from tutor.models import OrderingAttempt, OrderingHelp

PERSON = ("user__username", "user__first_name", "user__last_name")


def analyses(*, in_class: Q, lesson) -> list[teaching.ExerciseAnalysis]:
    exercises = list(
        OrderingExercise.objects.filter(block__lesson=lesson)
        .select_related("block")
        .prefetch_related(Prefetch("lines", queryset=OrderingLine.objects.order_by("pk")))
        .order_by("block__position")
    )
    attempts = teaching.grouped(
        OrderingAttempt.objects.filter(in_class, exercise__in=exercises)
        .order_by("created_at", "pk")
        .values_list("exercise_id", "user_id", *PERSON, "verdict", "order"),
        lambda row: (row[1], teaching.student_name(*row[2:5]), row[5], row[6]),
    )
    help_used = teaching.grouped(
        OrderingHelp.objects.filter(in_class, exercise__in=exercises)
        .values("exercise_id", "user_id")
        .annotate(times=Count("pk"))
        .values_list("exercise_id", "user_id", "times")
        .order_by(),
        lambda row: row[1:],
    )
    return [
        teaching.analyse_exercise(e, attempts.get(e.pk, []), help_used.get(e.pk, []))
        for e in exercises
    ]


def events(*, student, limit: int) -> list[teaching.Event]:
    attempts = (
        OrderingAttempt.objects.filter(user=student)
        .select_related("exercise__block__lesson__course", "run")
        .prefetch_related("exercise__lines")
        .order_by("-created_at", "-pk")[:limit]
    )
    found = []
    for attempt in attempts:
        texts = {line.key: line.text for line in attempt.exercise.lines.all()}
        order = "\n".join(texts.get(key, f"[{key}]") for key in attempt.order)
        found.append(
            teaching.Event(
                "ordering", attempt.created_at, attempt, "tutor/teaching/kinds/ordering_event.html", order
            )
        )
    return found


def attempt_rows(*, in_class: Q, chunk: int) -> list[Iterator[tuple[datetime, list]]]:
    """Every ordering check of the class's students, oldest first."""
    exercises = {
        e.pk: (e.title, {line.key: line.text for line in e.lines.all()})
        for e in OrderingExercise.objects.select_related("block").prefetch_related("lines")
    }

    def checks():
        rows = (
            OrderingAttempt.objects.filter(in_class)
            .order_by("created_at", "pk")
            .values_list(
                "created_at", *PERSON, "exercise__block__lesson__course__title",
                "exercise__block__lesson__title", "exercise_id", "verdict", "order",
                "help_used", "run__stdout", "run__status",
            )
            .iterator(chunk_size=chunk)
        )
        for when, username, first, last, course, lesson, exercise, verdict, order, help_used, stdout, status in rows:
            title, texts = exercises.get(exercise, ("", {}))
            # The lines as the student put them, one per line, as a teacher reads code.
            answer = "\n".join(texts.get(key, f"[{key}]") for key in order)
            yield when, [
                "ordering", username, f"{first} {last}".strip(), when.isoformat(), course, lesson,
                title, "", verdict, "", answer, stdout or "", help_used, status or "",
            ]

    return [checks()]
