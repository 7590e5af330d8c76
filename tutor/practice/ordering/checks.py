"""An author's check of ordering exercises graded by their output: the lines, in the
solution's order, must run without an error, print something, and print the declared
`expected_output` when there is one. Otherwise no learner can ever be marked right (the
lesson's program never gives a reference output, or gives another one than declared).

`manage.py check_content` runs them here and now, as it does snippets.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from course.kinds.ordering import OrderingExercise
from tutor import sandbox
from tutor.grading import outputs_match
from tutor.practice.ordering.lines import ExerciseLines


@dataclass(frozen=True)
class OrderingCheck:
    exercise: OrderingExercise
    status: str
    printed: str
    stderr: str

    @property
    def where(self) -> str:
        lesson = self.exercise.block.lesson
        return f"{lesson.course.slug}/{lesson.slug} · {self.exercise.block.key}"

    @property
    def problems(self) -> list[str]:
        problems = []
        if self.status != "ok":
            problems.append(f"the lines in the solution's order end with status {self.status}")
        elif not self.printed.strip():
            problems.append("the lines in the solution's order print nothing, so any order that prints nothing passes")
        expected = self.exercise.expected_output
        if expected.strip() and not outputs_match(self.printed, expected):
            problems.append(f"declares {expected!r} but the solution prints {self.printed!r}")
        return problems

    @property
    def ok(self) -> bool:
        return not self.problems

    ok_note = ""

    @property
    def mismatch_note(self) -> str:
        return f" (status: {self.status})"

    @property
    def report(self) -> list[str]:
        lines = [f"  {problem}" for problem in self.problems]
        if self.stderr:
            lines.append("  stderr:\n" + "\n".join(f"    |{line}" for line in self.stderr.split("\n")))
        return lines


def output_graded_in_order():
    return (
        OrderingExercise.objects.filter(grading=OrderingExercise.Grading.OUTPUT)
        .select_related("block__lesson__course")
        .prefetch_related("lines")
        .order_by("block__lesson__course__position", "block__lesson__position", "block__position")
    )


def check_exercises(exercises: Iterable[OrderingExercise]) -> list[OrderingCheck]:
    """Run each exercise's solution; raises sandbox.SandboxUnavailable if code cannot run here."""
    checks = []
    for exercise in exercises:
        lines = ExerciseLines.of(exercise)
        result = sandbox.run(lines.program(lines.correct), backend=settings.SANDBOX_BACKEND)
        checks.append(OrderingCheck(exercise, result.status, result.stdout, result.stderr))
    return checks
