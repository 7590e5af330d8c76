"""An author's check of a code exercise: its reference solution must pass every test and
its starter code must fail at least one (else there is nothing to do, or nothing can be
done). `manage.py check_content` runs these in the sandbox here and now."""

from dataclasses import dataclass

from course.kinds.code_exercise import CodeExercise
from tutor.practice.code_exercise.actions import PER_TEST_SECONDS, grading_limits, tests_of
from tutor.sandbox.grading import Grading, grade


@dataclass(frozen=True)
class ExerciseCheck:
    exercise: CodeExercise
    solution: Grading
    starter: Grading

    @property
    def where(self) -> str:
        lesson = self.exercise.block.lesson
        return f"{lesson.course.slug}/{lesson.slug} · {self.exercise.block.key}"

    @property
    def problems(self) -> list[str]:
        problems = []
        for result in self.solution.results:
            if not result.passed:
                problems.append(
                    f"the solution fails test '{result.name}': {result.message or result.kind}"
                )
        if self.solution.status == "syntax_error" and not self.solution.results:
            problems.append(f"the solution does not compile: {self.solution.message}")
        if self.starter.passed:
            problems.append("the starter code already passes every test: there is nothing to do")
        return problems

    @property
    def ok(self) -> bool:
        return not self.problems


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
