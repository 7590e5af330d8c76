"""What teachers see of ordering exercises: how the class did on each exercise of a
lesson, a student's checks in their timeline, and the attempts CSV rows."""

import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Prefetch, Q

from course.kinds.ordering import OrderingExercise, OrderingLine
from tutor import teaching
from tutor.practice.ordering.models import OrderingAttempt, OrderingHelp

GRADED_CHECKS = {OrderingAttempt.Verdict.SOLVED, OrderingAttempt.Verdict.WRONG}


@dataclass
class ExerciseAnalysis:
    key: str
    title: str
    intro: str
    tried: int = 0
    solved: int = 0
    median_checks: float | None = None
    help_students: int = 0
    help_total: int = 0
    wrong_orders: list[teaching.CommonAnswer] = field(default_factory=list)


def analyse_exercise(
    exercise,
    attempts: Iterable[tuple],
    help_used: Iterable[tuple[int, int]],
    *,
    top: int = 3,
) -> ExerciseAnalysis:
    """attempts: (student pk, student name, verdict, order) oldest first; help_used:
    (student pk, times "Help me" was used). Line texts come from `exercise.lines.all()`."""
    texts = {line.key: line.text for line in exercise.lines.all()}
    analysis = ExerciseAnalysis(exercise.key, exercise.title, exercise.intro)
    checks: dict[int, int] = defaultdict(int)
    solved_after: dict[int, int] = {}
    wrong: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for user_id, name, verdict, order in attempts:
        if user_id in solved_after or verdict not in GRADED_CHECKS:
            continue  # checks after solving say nothing about solving it; pending ones nothing yet
        checks[user_id] += 1
        if verdict == OrderingAttempt.Verdict.SOLVED:
            solved_after[user_id] = checks[user_id]
        else:
            wrong[tuple(order)].append(name)
    analysis.tried = len(checks)
    analysis.solved = len(solved_after)
    if solved_after:
        analysis.median_checks = statistics.median(solved_after.values())
    for _, times in help_used:
        if times:
            analysis.help_students += 1
            analysis.help_total += times
    groups = sorted(wrong.items(), key=lambda item: (-len(set(item[1])), item[0]))
    analysis.wrong_orders = [
        teaching.CommonAnswer(
            "\n".join(texts.get(key, f"[{key}]") for key in order),
            len(names),
            sorted(set(names), key=str.casefold),
        )
        for order, names in groups[:top]
    ]
    return analysis



PERSON = ("user__username", "user__first_name", "user__last_name")


def analyses(*, in_class: Q, lesson) -> list[ExerciseAnalysis]:
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
        analyse_exercise(e, attempts.get(e.pk, []), help_used.get(e.pk, []))
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
