"""What teachers see of code exercises: how the class did on each exercise of a lesson
(share solved, median attempts, the tests most often failed, the most common kinds of
failure), each student's submissions in their timeline, and the attempts CSV rows."""

import statistics
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Prefetch, Q

from course.kinds.code_exercise import CodeExercise, CodeTest
from tutor import teaching
from tutor.practice.code_exercise.models import Submission

PERSON = ("user__username", "user__first_name", "user__last_name")
TOP = 5

# A failure's kind (tutor.sandbox.grading.KINDS), as a teacher names it.
FAILURE_NAMES = {
    "wrong_output": "wrong output",
    "wrong_value": "wrong value: a check's assert failed",
    "exception": "stopped with an exception",
    "too_slow": "too slow / infinite loop",
    "recursion": "recursion too deep",
    "memory": "out of memory",
    "syntax_error": "syntax error",
    "exit": "ended the program early",
    "no_input": "input() with no input",
    "output_flood": "printed too much",
    "not_allowed": "tried something not allowed",
    "test_error": "a broken test",
    "not_checked": "could not be tested",
}


@dataclass
class CodeExerciseAnalysis:
    key: str
    title: str
    tried: int = 0  # students who submitted at least once
    solved: int = 0
    median_attempts: float | None = None  # submissions until the first pass (or all, unsolved)
    failed_tests: list[tuple[str, int]] = field(default_factory=list)  # test name, students
    failures: list[tuple[str, int]] = field(default_factory=list)  # kind of failure, students

    @property
    def percent(self) -> int | None:
        return round(100 * self.solved / self.tried) if self.tried else None


def analyse(exercise: CodeExercise, submissions: list[tuple]) -> CodeExerciseAnalysis:
    """`submissions`: (user id, verdict, results) oldest first, for one exercise."""
    analysis = CodeExerciseAnalysis(exercise.key, exercise.title)
    attempts: dict[int, int] = {}
    solved: set[int] = set()
    failed_tests: set[tuple[int, str]] = set()
    failures: set[tuple[int, str]] = set()
    for user_id, verdict, results in submissions:
        if user_id not in solved:
            attempts[user_id] = attempts.get(user_id, 0) + 1
        if verdict == Submission.Verdict.PASSED:
            solved.add(user_id)
        failing = [r for r in results.get("results", []) if not r["passed"]]
        failed_tests.update({(user_id, r["name"]) for r in failing})
        failures.update({(user_id, r["kind"]) for r in failing if r.get("kind")})
    analysis.tried, analysis.solved = len(attempts), len(solved)
    if attempts:
        analysis.median_attempts = statistics.median(attempts.values())
    # Each counted once per student: how many students a test (a kind of failure) caught.
    by_test = Counter(name for _, name in failed_tests)
    by_kind = Counter(FAILURE_NAMES.get(kind, kind) for _, kind in failures)
    analysis.failed_tests = by_test.most_common(TOP)
    analysis.failures = by_kind.most_common(TOP)
    return analysis


def analyses(*, in_class: Q, lesson) -> list[CodeExerciseAnalysis]:
    exercises = list(
        CodeExercise.objects.filter(block__lesson=lesson)
        .select_related("block")
        .prefetch_related(Prefetch("tests", queryset=CodeTest.objects.all()))
        .order_by("block__position")
    )
    rows = teaching.grouped(
        Submission.objects.filter(in_class, exercise__in=exercises)
        .order_by("created_at", "pk")
        .values_list("exercise_id", "user_id", "verdict", "results"),
        lambda row: row[1:],
    )
    return [analyse(exercise, rows.get(exercise.pk, [])) for exercise in exercises]


def events(*, student, limit: int) -> list[teaching.Event]:
    submissions = (
        Submission.objects.filter(user=student)
        .select_related("exercise__block__lesson__course")
        .order_by("-created_at", "-pk")[:limit]
    )
    return [
        teaching.Event("submission", s.created_at, s, "tutor/teaching/kinds/submission_event.html")
        for s in submissions
    ]


def failed_names(results: dict) -> str:
    return "; ".join(r["name"] for r in results.get("results", []) if not r["passed"])


def attempt_rows(*, in_class: Q, chunk: int) -> list[Iterator[tuple[datetime, list]]]:
    """Every submission of the class's students, oldest first."""

    def submissions():
        rows = (
            Submission.objects.filter(in_class)
            .order_by("created_at", "pk")
            .values_list(
                "created_at", *PERSON, "exercise__block__lesson__course__title",
                "exercise__block__lesson__title", "exercise__block__title", "exercise__block__key",
                "verdict", "code", "tests_passed", "tests_total", "results", "run__status",
            )
            .iterator(chunk_size=chunk)
        )
        for (when, username, first, last, course, lesson, title, key, verdict, code,
             passed, total, results, status) in rows:
            yield when, [
                "code submission", username, f"{first} {last}".strip(), when.isoformat(), course,
                lesson, title or key, "", verdict, "", code,
                f"{passed} of {total} tests pass" + (f"; failed: {failed_names(results)}" if passed < total else ""),
                "", status or "",
            ]

    return [submissions()]
