"""Put the lines in order: arrange them, check the order, get help, start again.

Each action locks the learner's OrderingArrangement row, lets the row apply its own rules
(tutor/practice/ordering/models.py: it fits itself to edited lines, moves a line, gives
help, counts a check with F() expressions), and records what else the step writes: the
attempt, the use of Help, and through `learner_worked` the live view and the lesson's
progress. Two requests at once never lose an update.
"""

from collections.abc import Sequence
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from course.kinds.ordering import OrderingExercise
from tutor import grading
from tutor.actions.progress import learner_worked, refresh_lesson_progress
from tutor.actions.runs import queue_run
from tutor.models import Run, code_digest
from tutor.practice.ordering.lines import ExerciseLines, starting_order
from tutor.practice.ordering.models import (
    OrderingArrangement,
    OrderingAttempt,
    OrderingHelp,
    OrderingRefused,
)

HELP_AFTER_WRONG_CHECKS = 3
# The solution's reference run may fail this often within the window before checks stop
# waiting for it (a broken exercise must not keep the worker busy or learners waiting).
REFERENCE_TRIES = 3
REFERENCE_TRIES_WINDOW = timedelta(minutes=10)


# What a check's verdict tells the live view (tutor.live): a wrong one is a failure in a
# row, a solving one is progress, a pending one neither yet.
FAILED = {OrderingAttempt.Verdict.WRONG: True, OrderingAttempt.Verdict.SOLVED: False}


def check_words(attempt: OrderingAttempt, verdict: str | None = None) -> str:
    """A check in the live view's words: "checked the order — wrong (3 lines in order)"."""
    verdict = verdict or attempt.verdict
    if verdict == OrderingAttempt.Verdict.SOLVED:
        return "checked the order — solved"
    if verdict == OrderingAttempt.Verdict.PENDING:
        return "checked the order — running it"
    return f"checked the order — wrong ({attempt.lines_in_place} lines in order)"


class NoReferenceOutput(Exception):
    """The solution did not run cleanly, again and again: there is nothing to compare with."""


def _locked_arrangement(
    *, user: AbstractBaseUser, exercise: OrderingExercise, lines: ExerciseLines
) -> OrderingArrangement:
    arrangement, _ = OrderingArrangement.objects.get_or_create(
        user=user,
        exercise=exercise,
        defaults={"order": starting_order(user_id=user.pk, lines=lines)},
    )
    arrangement = OrderingArrangement.objects.select_for_update().get(pk=arrangement.pk)
    if arrangement.fit_to_lines(lines):
        arrangement.save(update_fields=["order", "unused", "fixed", "removed", "updated_at"])
    return arrangement


def arrange_lines(
    *,
    user: AbstractBaseUser,
    exercise: OrderingExercise,
    order: Sequence[str],
    unused: Sequence[str],
) -> OrderingArrangement:
    """Save where the learner put every line (after a drag, or any move made in the page)."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        arrangement.refuse_if_solved()
        arrangement.arrange(order, unused)
        learner_worked(user=user, block=exercise.block, what="moved lines")
    return arrangement


def move_line(
    *, user: AbstractBaseUser, exercise: OrderingExercise, key: str, direction: str
) -> OrderingArrangement:
    """Move one line one step (the buttons that work without JavaScript)."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        arrangement.refuse_if_solved()
        arrangement.move(key, direction)
        learner_worked(user=user, block=exercise.block, what="moved lines")
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
    `settle_check` sees the run finished. An answer equal to the solution needs no run, and
    one with a line that does not belong is wrong without one.
    """
    lines = ExerciseLines.of(exercise)
    if order is not None:
        # Saved on its own, so a Check refused for too many runs keeps the learner's last move.
        arrange_lines(user=user, exercise=exercise, order=order, unused=unused or [])
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        arrangement.refuse_if_solved()
        submitted = list(arrangement.order)
        result = lines.grade(submitted)
        run = None
        if lines.needs_a_run(submitted):
            run = queue_run(code=lines.program(submitted), user=user, purpose=Run.Purpose.CHECK)
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
            lines_in_place=len(result.in_order),
            help_used=arrangement.help_used,
            run=run,
        )
        arrangement.count_check(verdict, checks=1)
        learner_worked(user=user, block=exercise.block, what=check_words(attempt),
                       failed=FAILED.get(verdict), counts=verdict == OrderingAttempt.Verdict.SOLVED,
                       attempt=True)  # fmt: skip
    return attempt


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
    lines = ExerciseLines.of(attempt.exercise)
    # A check queued before lines that do not belong were refused a run is wrong too.
    if run.status == Run.Status.OK and not lines.not_belonging(attempt.order):
        try:
            expected = _reference_output(lines)
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
                arrangement.count_check(verdict)
                learner_worked(user=attempt.user, block=attempt.exercise.block,
                               what=check_words(attempt, verdict), failed=FAILED.get(verdict), later=True)  # fmt: skip
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
        arrangement.refuse_if_solved()
        if arrangement.wrong_checks < HELP_AFTER_WRONG_CHECKS:
            raise OrderingRefused(_("Help is there after three checks that were not right yet."))
        given, key = arrangement.give_help(lines)
        OrderingHelp.objects.create(user=user, exercise=exercise, given=given, line_key=key)
        learner_worked(user=user, block=exercise.block, what="used Help")
    text = lines.texts[key].strip()
    if given == OrderingHelp.Given.REMOVED:
        return _("Help took away “%(line)s”: it does not belong.") % {"line": text}
    return _("Help put “%(line)s” in its place, line %(number)s, and locked it.") % {
        "line": text,
        "number": len(arrangement.fixed),
    }


def start_again(*, user: AbstractBaseUser, exercise: OrderingExercise) -> OrderingArrangement:
    """Back to the learner's starting shuffle, with a fresh count of checks and help.
    Only the board: the attempts, runs and uses of Help stay on record for the teacher."""
    lines = ExerciseLines.of(exercise)
    with transaction.atomic():
        arrangement = _locked_arrangement(user=user, exercise=exercise, lines=lines)
        arrangement.start_over(lines)
        learner_worked(user=user, block=exercise.block, what="started the order again")
    return arrangement
