"""An author's check of a code exercise: its reference solution must pass every test and
its starter code must fail at least one (else there is nothing to do, or nothing can be
done). `manage.py check_content` runs these in the sandbox here and now."""

from dataclasses import dataclass

from course.kinds.code_exercise import CodeExercise
from tutor.practice.code_exercise.actions import PER_TEST_SECONDS, grading_limits, tests_of
from tutor.sandbox.grading import Grading, grade


def where_of(exercise: CodeExercise) -> str:
    lesson = exercise.block.lesson
    return f"{lesson.course.slug}/{lesson.slug} · {exercise.block.key}"


def problems_of(solution: Grading, starter: Grading) -> list[str]:
    """What is wrong with an exercise, given its solution's and its starter's gradings."""
    problems = []
    for result in solution.results:
        if not result.passed:
            problems.append(f"the solution fails test '{result.name}': {result.message or result.kind}")
    if solution.status == "syntax_error" and not solution.results:
        problems.append(f"the solution does not compile: {solution.message}")
    if starter.passed:
        problems.append("the starter code already passes every test: there is nothing to do")
    return problems


@dataclass(frozen=True)
class ExerciseCheck:
    exercise: CodeExercise
    solution: Grading
    starter: Grading

    @property
    def where(self) -> str:
        return where_of(self.exercise)

    @property
    def problems(self) -> list[str]:
        return problems_of(self.solution, self.starter)

    @property
    def ok(self) -> bool:
        return not self.problems

    ok_note = " (solution passes, starter does not)"
    mismatch_note = ""
    pending = False

    @property
    def report(self) -> list[str]:
        return [f"  {problem}" for problem in self.problems]


@dataclass(frozen=True)
class QueuedCheck:
    """An exercise's two checks queued for the worker (the admin's Check outputs): each
    Grading once its run is final, else None."""

    exercise: CodeExercise
    solution: Grading | None
    starter: Grading | None
    failed: bool = False  # a run could not finish

    @property
    def pending(self) -> bool:
        return not self.failed and (self.solution is None or self.starter is None)

    @property
    def where(self) -> str:
        return where_of(self.exercise)

    @property
    def problems(self) -> list[str]:
        if self.failed:
            return ["the worker could not grade it: check it again"]
        if self.pending:
            return []
        return problems_of(self.solution, self.starter)

    @property
    def ok(self) -> bool:
        return not self.pending and not self.problems


def queued_checks(run_ids) -> list[QueuedCheck]:
    """The admin's checks among these runs, one per exercise, in the course's order."""
    from tutor.practice.code_exercise.models import ExerciseCheck as CheckRow

    rows = (
        CheckRow.objects.filter(run__in=list(run_ids))
        .select_related("run", "exercise__block__lesson__course")
        .order_by("exercise__block__lesson__course__position", "exercise__block__lesson__position",
                  "exercise__block__position", "pk")
    )
    found: dict[int, dict] = {}
    for row in rows:
        entry = found.setdefault(row.exercise_id, {"exercise": row.exercise, "failed": False})
        if row.run.is_final and row.results:
            entry[row.role] = Grading.from_dict(row.results)
        elif row.run.as_seen().status == "failed":
            entry["failed"] = True
    return [
        QueuedCheck(entry["exercise"], entry.get("solution"), entry.get("starter"), entry["failed"])
        for entry in found.values()
    ]


def check_exercise(exercise: CodeExercise) -> ExerciseCheck:
    """Grade the solution and the starter (two sandbox runs). Raises SandboxUnavailable
    when code cannot run here."""
    tests, limits = tests_of(exercise), grading_limits(exercise)
    return ExerciseCheck(
        exercise,
        solution=grade(exercise.solution, tests, limits=limits, per_test_seconds=PER_TEST_SECONDS),
        starter=grade(exercise.starter, tests, limits=limits, per_test_seconds=PER_TEST_SECONDS),
    )


def exercises_in_order():
    return (
        CodeExercise.objects.select_related("block__lesson__course")
        .prefetch_related("tests")
        .order_by("block__lesson__course__position", "block__lesson__position", "block__position")
    )
