"""An ordering exercise's lines as arranging and grading see them, the learner's starting
shuffle of them, and the moves a line can make.

Below the models (an OrderingArrangement fits itself to the lines and moves its lines
with these) and above the content: it reads an exercise's lines, never a learner's rows.
"""

import dataclasses
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from course.kinds.ordering import OrderingExercise, OrderingLine
from tutor import grading

UP, DOWN, LEAVE_OUT, USE = "up", "down", "leave-out", "use"
DIRECTIONS = (UP, DOWN, LEAVE_OUT, USE)


@dataclass(frozen=True)
class ExerciseLines:
    """What arranging and grading need to know about an exercise's lines."""

    exercise_id: int
    grading: str
    texts: dict[str, str]  # key -> text
    correct: list[str]  # the solution's keys, top to bottom
    depends_on: dict[str, list[str]]
    expected_output: str

    @classmethod
    def of(
        cls, exercise: OrderingExercise, depends_on: dict[str, list[str]] | None = None
    ) -> "ExerciseLines":
        """From `exercise.lines.all()` (prefetched on a lesson page, so free there)."""
        lines = list(exercise.lines.all())
        if depends_on is None and exercise.grading == OrderingExercise.Grading.DEPENDENCIES:
            depends_on = dependencies_of([exercise]).get(exercise.pk, {})
        return cls(
            exercise_id=exercise.pk,
            grading=exercise.grading,
            texts={line.key: line.text for line in lines},
            correct=[
                line.key
                for line in sorted(
                    (line for line in lines if line.position is not None),
                    key=lambda line: (line.position, line.pk),
                )
            ],
            depends_on=depends_on or {},
            expected_output=exercise.expected_output,
        )

    @property
    def distractors(self) -> list[str]:
        correct = set(self.correct)
        return [key for key in self.texts if key not in correct]

    def not_belonging(self, order: Sequence[str]) -> list[str]:
        """The lines of `order` that do not belong in the program (its distractors)."""
        correct = set(self.correct)
        return [key for key in order if key not in correct]

    def grade(self, order: Sequence[str]) -> grading.OrderingResult:
        """By the exercise's rule; for output grading, the marks compare with the solution.

        A line that does not belong is wrong by every rule: output grading too says so
        first, even where the program would print the same (a line after a `return`)."""
        if self.grading == OrderingExercise.Grading.DEPENDENCIES:
            return grading.grade_dependencies(order, self.correct, self.depends_on, self.texts)
        result = grading.grade_exact(order, self.correct, self.texts)
        extra = self.not_belonging(order)
        if self.grading == OrderingExercise.Grading.OUTPUT and extra:
            text = self.texts[extra[0]].strip()
            return dataclasses.replace(
                result,
                message=f"“{text}” doesn't belong in this program, even where it changes "
                "nothing it prints: move it to “Not used”.",
            )
        return result

    def needs_a_run(self, order: Sequence[str]) -> bool:
        """Output grading runs the assembled program, unless it is the solution or holds a
        line that does not belong (wrong whatever it prints)."""
        return (
            self.grading == OrderingExercise.Grading.OUTPUT
            and list(order) != self.correct
            and not self.not_belonging(order)
        )

    def is_solved_without_running(self, order: Sequence[str]) -> bool:
        return self.grade(order).solved or list(order) == self.correct

    def program(self, order: Sequence[str]) -> str:
        return grading.assemble_program(order, self.texts)


def dependencies_of(exercises: Iterable[OrderingExercise]) -> dict[int, dict[str, list[str]]]:
    """Each exercise's `depends_on` by line key, for many exercises in one query."""
    through = OrderingLine.depends_on.through
    rows = through.objects.filter(from_orderingline__exercise__in=list(exercises)).values_list(
        "from_orderingline__exercise_id", "from_orderingline__key", "to_orderingline__key"
    )
    found: dict[int, dict[str, list[str]]] = {}
    for exercise_id, key, needed in rows:
        found.setdefault(exercise_id, {}).setdefault(key, []).append(needed)
    return found


def starting_order(*, user_id: int, lines: ExerciseLines) -> list[str]:
    """The learner's shuffle: the same on every visit, never already solved by the rule, and
    far from solved: no line at its own place or right after the line it follows in the
    solution, and at most half the lines in order with it. Of the shuffles tried, the first
    that is far enough, else the farthest (a tiny exercise has no arrangement that is)."""
    rng = random.Random(f"ordering:{user_id}:{lines.exercise_id}")
    keys = sorted(lines.texts)
    distractors = set(lines.distractors)
    enough = max(1, len(lines.correct) // 2)
    best, best_score = None, None
    for _ in range(100):
        rng.shuffle(keys)
        used = [k for k in keys if k not in distractors]
        if lines.is_solved_without_running(used):
            continue
        score = (_close_to_solved(used, lines.correct), len(grading.lines_in_order(used, lines.correct)))
        if score[0] == 0 and score[1] <= enough:
            return list(keys)
        if best_score is None or score < best_score:
            best, best_score = list(keys), score
    # None: a one-line exercise, or one whose lines depend on nothing: any order works.
    return best if best is not None else keys


def _close_to_solved(used: Sequence[str], correct: Sequence[str]) -> int:
    """Lines at their place in the solution, and lines right after the line they follow there."""
    at_place = sum(key == want for key, want in zip(used, correct, strict=False))
    follows = {a: b for a, b in zip(correct, correct[1:], strict=False)}
    after = sum(follows.get(a) == b for a, b in zip(used, used[1:], strict=False))
    return at_place + after
