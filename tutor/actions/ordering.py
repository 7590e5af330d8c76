"""Put the lines in order: arrange them, check the order, get help, start again.

Each action locks the learner's OrderingArrangement row and changes its counters with
F() expressions, so two requests at once never lose an update.
"""

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from course.models import OrderingExercise, OrderingLine
from tutor import grading
from tutor.actions.progress import refresh_lesson_progress
from tutor.actions.runs import queue_run
from tutor.models import OrderingArrangement, OrderingAttempt, OrderingHelp, Run, code_digest

UP, DOWN, LEAVE_OUT, USE = "up", "down", "leave-out", "use"
DIRECTIONS = (UP, DOWN, LEAVE_OUT, USE)
HELP_AFTER_WRONG_CHECKS = 3
# The solution's reference run may fail this often within the window before checks stop
# waiting for it (a broken exercise must not keep the worker busy or learners waiting).
REFERENCE_TRIES = 3
REFERENCE_TRIES_WINDOW = timedelta(minutes=10)


class OrderingRefused(Exception):
    """The learner cannot do that to this exercise now; the message says why."""


class NoReferenceOutput(Exception):
    """The solution did not run cleanly, again and again: there is nothing to compare with."""


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

    def grade(self, order: Sequence[str]) -> grading.OrderingResult:
        """By the exercise's rule; for output grading, the marks compare with the solution."""
        if self.grading == OrderingExercise.Grading.DEPENDENCIES:
            return grading.grade_dependencies(order, self.correct, self.depends_on, self.texts)
        return grading.grade_exact(order, self.correct, self.texts)

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
    """The learner's shuffle: the same on every visit, never already solved by the rule."""
    rng = random.Random(f"ordering:{user_id}:{lines.exercise_id}")
    keys = sorted(lines.texts)
    distractors = set(lines.distractors)
    for _ in range(50):
        rng.shuffle(keys)
        if not lines.is_solved_without_running([k for k in keys if k not in distractors]):
            return keys
    return keys  # a one-line exercise, or one whose lines depend on nothing: any order works


def pinned(order: Sequence[str], unused: Sequence[str], fixed: Sequence[str]) -> tuple[list, list]:
    """Lines fixed by Help stay at the top of the answer, in the solution's order."""
    fixed_set = set(fixed)
    return (
        list(fixed) + [key for key in order if key not in fixed_set],
        [key for key in unused if key not in fixed_set],
    )


def moved(
    order: Sequence[str], unused: Sequence[str], fixed: Sequence[str], key: str, direction: str
) -> tuple[list[str], list[str]]:
    """One step for one line: up or down in its area, out to "not used", or back in."""
    order, unused = list(order), list(unused)
    if key in fixed:
        raise OrderingRefused("That line is fixed in place by Help and cannot move.")
    area = order if key in order else unused
    top = len(fixed) if area is order else 0
    i = area.index(key)
    if direction == UP and i > top:
        area[i - 1], area[i] = area[i], area[i - 1]
    elif direction == DOWN and i < len(area) - 1:
        area[i + 1], area[i] = area[i], area[i + 1]
    elif direction == LEAVE_OUT and area is order:
        order.remove(key)
        unused.append(key)
    elif direction == USE and area is unused:
        unused.remove(key)
        order.append(key)
    return order, unused


def fit_to_lines(arrangement: OrderingArrangement, lines: ExerciseLines) -> bool:
    """Bring a saved arrangement up to date with the exercise's lines, which may have been
    edited since the learner last worked on it. True when anything changed (in memory).

    A key no longer in the exercise goes. A new line joins the end of the answer, even a
    distractor: putting it in "Not used" would tell the learner that it does not belong.
    Lines fixed by Help stay fixed only while they still start the solution; a line Help
    took away stays away only while it is still a distractor.
    """
    distractors = set(lines.distractors)
    removed = [key for key in dict.fromkeys(arrangement.removed) if key in distractors]
    fixed = []
    for key, right in zip(arrangement.fixed, lines.correct, strict=False):
        if key != right:
            break
        fixed.append(key)
    away = set(removed)
    order = [
        key for key in dict.fromkeys(arrangement.order) if key in lines.texts and key not in away
    ]
    unused = [
        key
        for key in dict.fromkeys(arrangement.unused)
        if key in lines.texts and key not in away and key not in order
    ]
    placed = away | set(order) | set(unused) | set(fixed)
    if len(placed) < len(lines.texts):
        # In the learner's own shuffle, so several new lines do not arrive in the solution's order.
        shuffle = starting_order(user_id=arrangement.user_id, lines=lines)
        order += [key for key in shuffle if key not in placed]
    order, unused = pinned(order, unused, fixed)
    if (order, unused, fixed, removed) == (
        arrangement.order, arrangement.unused, arrangement.fixed, arrangement.removed
    ):
        return False
    arrangement.order, arrangement.unused = order, unused
    arrangement.fixed, arrangement.removed = fixed, removed
    return True


def _locked_arrangement(
    *, user: AbstractBaseUser, exercise: OrderingExercise, lines: ExerciseLines
) -> OrderingArrangement:
    arrangement, _ = OrderingArrangement.objects.get_or_create(
        user=user,
        exercise=exercise,
        defaults={"order": starting_order(user_id=user.pk, lines=lines)},
    )
    arrangement = OrderingArrangement.objects.select_for_update().get(pk=arrangement.pk)
    if fit_to_lines(arrangement, lines):
        arrangement.save(update_fields=["order", "unused", "fixed", "removed", "updated_at"])
    return arrangement


def _refuse_if_solved(arrangement: OrderingArrangement) -> None:
    if arrangement.solved_at is not None:
        raise OrderingRefused(
            "You have solved this one already. Choose “Practise again” to start over."
        )


def _store(arrangement: OrderingArrangement, order: Sequence[str], unused: Sequence[str]) -> None:
    arrangement.order, arrangement.unused = pinned(order, unused, arrangement.fixed)
    arrangement.save(update_fields=["order", "unused", "updated_at"])


def arrange_lines(
    *, user: AbstractBaseUser, exercise: OrderingExercise, order: Sequence[str], unused: Sequence[str]
) -> OrderingArrangement:
    """Save where the learner put every line (after a drag, or any move made in the page)."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        _refuse_if_solved(arrangement)
        _store(arrangement, order, unused)
    return arrangement


def move_line(
    *, user: AbstractBaseUser, exercise: OrderingExercise, key: str, direction: str
) -> OrderingArrangement:
    """Move one line one step (the buttons that work without JavaScript)."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        _refuse_if_solved(arrangement)
        if key in arrangement.removed:
            raise OrderingRefused("Help took that line away: it does not belong in the answer.")
        order, unused = moved(arrangement.order, arrangement.unused, arrangement.fixed, key, direction)
        _store(arrangement, order, unused)
    return arrangement


def check_order(
    *,
    user: AbstractBaseUser,
    exercise: OrderingExercise,
    order: Sequence[str] | None = None,
    unused: Sequence[str] | None = None,
) -> OrderingAttempt:
    """Grade the answer by the exercise's rule and record the attempt.

    Output grading runs the assembled program: the attempt is then `pending` until
    `settle_check` sees the run finished. An answer equal to the solution needs no run.
    """
    lines = ExerciseLines.of(exercise)
    if order is not None:
        # Saved on its own, so a Check refused for too many runs keeps the learner's last move.
        arrange_lines(user=user, exercise=exercise, order=order, unused=unused or [])
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        _refuse_if_solved(arrangement)
        submitted = list(arrangement.order)
        result = lines.grade(submitted)
        run = None
        if lines.grading == OrderingExercise.Grading.OUTPUT and submitted != lines.correct:
            run = queue_run(
                code=lines.program(submitted), user=user, purpose=Run.Purpose.CHECK
            )
            try:
                _reference_output(lines)  # start the solution's run now, alongside, if needed
            except NoReferenceOutput:
                pass  # settle_check says so once the learner's run is done
            verdict = OrderingAttempt.Verdict.PENDING
        elif result.solved or submitted == lines.correct:
            verdict = OrderingAttempt.Verdict.SOLVED
        else:
            verdict = OrderingAttempt.Verdict.WRONG
        attempt = OrderingAttempt.objects.create(
            user=user,
            exercise=exercise,
            order=submitted,
            verdict=verdict,
            lines_in_place=len(result.in_place),
            help_used=arrangement.help_used,
            run=run,
        )
        _count(arrangement.pk, verdict, checks=1)
        if verdict == OrderingAttempt.Verdict.SOLVED:
            refresh_lesson_progress(user=user, lesson=exercise.block.lesson)
    return attempt


def _count(arrangement_id: int, verdict: str, *, checks: int = 0) -> None:
    changes: dict = {"updated_at": timezone.now()}
    if checks:
        changes["checks"] = F("checks") + checks
    if verdict == OrderingAttempt.Verdict.WRONG:
        changes["wrong_checks"] = F("wrong_checks") + 1
    elif verdict == OrderingAttempt.Verdict.SOLVED:
        changes["solved_at"] = timezone.now()
    OrderingArrangement.objects.filter(pk=arrangement_id).update(**changes)


def _reference_output(lines: ExerciseLines) -> str | None:
    """What the program should print: the exercise's expected output, or else what the
    solution prints (run once, shared by every learner); None while that run is pending.

    Only a run that ended OK counts: a sandbox hiccup's empty or partial output is no
    answer. A lost or failed run is replaced, up to REFERENCE_TRIES in a while; after
    that, NoReferenceOutput.
    """
    if lines.expected_output.strip():
        return lines.expected_output
    code = lines.program(lines.correct)
    runs = Run.objects.filter(code_hash=code_digest(code), purpose=Run.Purpose.CHECK, user=None)
    done = runs.filter(status=Run.Status.OK).order_by("-created_at", "-pk").first()
    if done is not None:
        return done.stdout
    waiting = runs.pending().order_by("-created_at", "-pk").first()
    if waiting is not None and not waiting.fail_if_stale():
        return None
    tried = runs.final().filter(created_at__gte=timezone.now() - REFERENCE_TRIES_WINDOW)
    if tried.count() >= REFERENCE_TRIES:
        raise NoReferenceOutput(f"The lesson's program did not run: {lines.exercise_id}")
    queue_run(code=code, purpose=Run.Purpose.CHECK)
    return None


def settle_check(*, attempt: OrderingAttempt) -> OrderingAttempt:
    """Give a pending output check its verdict once its run (and the solution's) finished.

    A run that did not end OK is "not yet" at once (the feedback says why it stopped, or
    that Parsnip lost it), without waiting for the solution's output.
    """
    if attempt.verdict != OrderingAttempt.Verdict.PENDING or attempt.run is None:
        return attempt
    run = attempt.run
    if not run.is_final:
        run.fail_if_stale()
    if not run.is_final:
        return attempt
    solved = False
    if run.status == Run.Status.OK:
        try:
            expected = _reference_output(ExerciseLines.of(attempt.exercise))
        except NoReferenceOutput:
            expected = None  # nothing to compare with: "not yet", never a hang
        else:
            if expected is None:
                return attempt
        solved = expected is not None and grading.outputs_match(run.stdout, expected)
    verdict = OrderingAttempt.Verdict.SOLVED if solved else OrderingAttempt.Verdict.WRONG
    with transaction.atomic():
        claimed = OrderingAttempt.objects.pending().filter(pk=attempt.pk).update(verdict=verdict)
        if claimed:
            # Counted only while the answer is still the one checked (not after Start again).
            arrangement = (
                OrderingArrangement.objects.select_for_update()
                .of(attempt.user_id, attempt.exercise_id)
                .filter(solved_at=None)
                .first()
            )
            # A run Parsnip lost or could not start is not the learner's wrong check.
            lost = run.status == Run.Status.FAILED
            if arrangement is not None and arrangement.order == attempt.order and not lost:
                _count(arrangement.pk, verdict)
            if solved:
                refresh_lesson_progress(user=attempt.user, lesson=attempt.exercise.block.lesson)
    attempt.verdict = verdict
    return attempt


def settle_checks_for_run(*, run: Run) -> list[OrderingAttempt]:
    """The worker finished a check run: give the attempts waiting for it their verdict.

    A learner's attempt may also have been waiting for the solution's reference run (no
    user), so every pending attempt whose own run is final gets settled.
    """
    if run.purpose != Run.Purpose.CHECK:
        return []
    waiting = OrderingAttempt.objects.ready_to_settle().select_related(
        "run", "user", "exercise__block__lesson"
    )
    return [settle_check(attempt=attempt) for attempt in waiting]


def help_with_order(*, user: AbstractBaseUser, exercise: OrderingExercise) -> str:
    """Take away one line that does not belong or, when none is left, fix the next line
    of the solution at the top of the answer. Returns what it did, in words."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        _refuse_if_solved(arrangement)
        if arrangement.wrong_checks < HELP_AFTER_WRONG_CHECKS:
            raise OrderingRefused("Help is there after three checks that were not right yet.")
        left = [key for key in lines.distractors if key not in arrangement.removed]
        order, unused = list(arrangement.order), list(arrangement.unused)
        if left:
            # The one doing harm first: a distractor still in the answer.
            key = next((key for key in order if key in left), left[0])
            order = [k for k in order if k != key]
            unused = [k for k in unused if k != key]
            arrangement.removed = [*arrangement.removed, key]
            given = OrderingHelp.Given.REMOVED
            done = f"Help took away “{lines.texts[key].strip()}”: it does not belong."
        elif len(arrangement.fixed) < len(lines.correct):
            key = lines.correct[len(arrangement.fixed)]
            arrangement.fixed = [*arrangement.fixed, key]
            given = OrderingHelp.Given.FIXED
            done = (
                f"Help put “{lines.texts[key].strip()}” in its place, "
                f"line {len(arrangement.fixed)}, and locked it."
            )
        else:
            raise OrderingRefused("Every line is already in its place: press Check.")
        arrangement.order, arrangement.unused = pinned(order, unused, arrangement.fixed)
        arrangement.save(update_fields=["order", "unused", "removed", "fixed", "updated_at"])
        OrderingArrangement.objects.filter(pk=arrangement.pk).update(help_used=F("help_used") + 1)
        OrderingHelp.objects.create(user=user, exercise=exercise, given=given, line_key=key)
    return done


def start_again(*, user: AbstractBaseUser, exercise: OrderingExercise) -> OrderingArrangement:
    """Back to the learner's starting shuffle, with a fresh count of checks and help.
    Only the board: the attempts, runs and uses of Help stay on record for the teacher."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        arrangement.order = starting_order(user_id=user.pk, lines=lines)
        arrangement.unused, arrangement.fixed, arrangement.removed = [], [], []
        arrangement.checks = arrangement.wrong_checks = arrangement.help_used = 0
        arrangement.solved_at = None
        arrangement.save()
    return arrangement
