"""Put the lines in order: a Parsons problem.

The region these views swap is the `exercise-practice` partial of
templates/tutor/ordering_practice.html (the element `#exercise-<key>-practice`), which the
lesson page includes once per exercise. A plain (no-JS) POST redirects back to the
exercise on the lesson page; an htmx POST gets the partial.

Nothing a learner receives tells the solution: lines appear in the learner's own shuffle,
the page and the POSTs name each line by an opaque token of its own for that learner
(never by its key in the content, which may say `wrong-return`), and a refused
arrangement is told what is wrong in general terms, never which lines it lacks.
"""

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from course import htmx
from course.kinds.ordering import OrderingExercise
from course.models import Lesson
from tutor.actions.runs import RunRefused
from tutor.assignments.closing import closed_to
from tutor.practice import with_lesson_progress
from tutor.practice.ordering.actions import (
    arrange_lines,
    check_order,
    help_with_order,
    move_line,
    settle_check,
    start_again,
)
from tutor.practice.ordering.board import LineTokens, board_of, latest_attempts
from tutor.practice.ordering.lines import DIRECTIONS, LEAVE_OUT, USE, ExerciseLines
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt, OrderingRefused

PARTIAL = "tutor/ordering_practice.html#exercise-practice"
# Far more than any exercise's keys need; a longer arrangement is refused before parsing.
MAX_ARRANGEMENT_CHARS = 10_000


class Malformed(ValueError):
    """The POST does not describe a move of this exercise's lines; the message says why
    in general terms (it names no line: that could tell which lines the answer lacks)."""


# Reading what the learner sent --------------------------------------------------------


# Every refusal of an arrangement reads the same whatever the exercise: it says what kind
# of thing is wrong, never which line.
RELOAD = "Reload the page to see your lines as saved."
NOT_A_LINE = f"The arrangement names a line that is not one of yours in this exercise. {RELOAD}"
TWICE = f"The arrangement names a line more than once. {RELOAD}"
INCOMPLETE = f"Every line must be in your answer or in “Not used”, once each; some are missing. {RELOAD}"
NO_UNUSED_AREA = "This exercise has no “Not used” area: every line belongs in the answer."


def read_arrangement(
    raw: str, lines: ExerciseLines, tokens: LineTokens, *, removed: list[str]
) -> tuple[list[str], list[str]]:
    """Every line of the exercise exactly once, in the answer or in "not used", named by
    the learner's tokens; returns the lines' keys."""
    if len(raw) > MAX_ARRANGEMENT_CHARS:
        raise Malformed(
            f"The arrangement is too long: at most {MAX_ARRANGEMENT_CHARS:,} characters."
        )
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise Malformed("The arrangement is not valid JSON.") from None
    if not (
        isinstance(data, dict)
        and all(isinstance(data.get(area), list) for area in ("order", "unused"))
        and all(isinstance(token, str) for token in data["order"] + data["unused"])
    ):
        raise Malformed(
            "The arrangement must be a JSON object with “order” and “unused”, "
            "each a list of the page's lines."
        )
    keys = tokens.keys
    seen: set[str] = set()
    for token in data["order"] + data["unused"]:
        key = keys.get(token)
        if key is None:
            raise Malformed(NOT_A_LINE)
        if key in seen:
            raise Malformed(TWICE)
        seen.add(key)
    if any(key not in seen and key not in removed for key in lines.texts):
        raise Malformed(INCOMPLETE)
    if data["unused"] and not lines.distractors:
        raise Malformed(NO_UNUSED_AREA)
    # A line Help took away in another tab is simply dropped.
    return (
        [keys[token] for token in data["order"] if keys[token] not in removed],
        [keys[token] for token in data["unused"] if keys[token] not in removed],
    )


def read_move(raw: str, lines: ExerciseLines, tokens: LineTokens) -> tuple[str, str]:
    direction, _, token = raw.partition(":")
    key = tokens.key_of(token)
    if direction not in DIRECTIONS or key is None:
        raise Malformed(
            "That is not a move: send up, down, leave-out or use, a colon, and one of "
            f"your lines on the page. {RELOAD}"
        )
    if direction in (LEAVE_OUT, USE) and not lines.distractors:
        raise Malformed(NO_UNUSED_AREA)
    return key, direction


# Responses ----------------------------------------------------------------------------


def exercise_or_404(request: HttpRequest, exercise_id: int) -> OrderingExercise:
    """The exercise, if its lesson is one the user may see (a draft's: staff only)."""
    return get_object_or_404(
        OrderingExercise.objects.select_related("block__lesson__course").prefetch_related("lines"),
        pk=exercise_id,
        block__lesson__in=Lesson.objects.visible_to(request.user),
    )


def exercise_url(exercise: OrderingExercise) -> str:
    return f"{exercise.block.lesson.get_absolute_url()}#exercise-{exercise.key}"


def log_in_first(request: HttpRequest, exercise: OrderingExercise) -> HttpResponse:
    """Ordering needs an account: to the login page, and back to this exercise after."""
    return htmx.log_in_first(request, then=exercise_url(exercise))


def refused(request: HttpRequest, exercise: OrderingExercise, message: str) -> HttpResponse:
    """A request the page's script sent gets a 400 shown under the lines (the lines on the
    page may no longer be the saved ones: reloading shows those); a plain form goes back to
    the exercise, with the reason shown at the top of the lesson page."""
    if htmx.wants_partial(request):
        if RELOAD not in message:
            message = f"{message} {RELOAD}"
        return htmx.refusal(request, message, into=f"exercise-{exercise.key}-message", status=400)
    messages.error(request, message)
    return redirect(exercise_url(exercise))


def practice_response(
    request: HttpRequest,
    exercise: OrderingExercise,
    *,
    notice: str = "",
    help_removed: bool = False,
    progress: bool = False,
) -> HttpResponse:
    """The practice region for htmx; otherwise back to the exercise on the lesson page.

    `help_removed`: Help just took a line away; the region's list of lines Help took away
    says so (and is announced), so the notice is not said a second time. `progress`: the
    request may have solved the exercise, so the lesson's progress badge comes too."""
    if help_removed:
        notice = ""
    if not htmx.wants_partial(request):
        if notice:
            messages.info(request, notice)
        return redirect(exercise_url(exercise))
    context = {
        "exercise": exercise, "block": exercise.block, "board": board_of(request.user, exercise),
        "notice": notice, "help_removed": help_removed,
        # A closed assignment covers it: no Check (the lesson page says the same).
        "closed_blocks": {exercise.block.pk} if closed_to(request.user, exercise.block) else set(),
    }
    response = TemplateResponse(request, PARTIAL, context)
    if progress:
        return with_lesson_progress(request, response, exercise.block.lesson)
    return response


def removed_keys(
    user: AbstractBaseUser, exercise: OrderingExercise, lines: ExerciseLines
) -> list[str]:
    """The lines Help took away that are still distractors of the exercise as it is now."""
    arrangement = OrderingArrangement.objects.of(user, exercise).first()
    if arrangement is None:
        return []
    arrangement.fit_to_lines(lines)
    return arrangement.removed


def wait_for(attempt: OrderingAttempt, *, seconds: float) -> None:
    """A program's output arrives within the request if it comes within `seconds`
    (sleeping costs nothing: tutor/run_notices.py); a slower one is polled for."""
    if attempt.run is not None and not attempt.run.is_final:
        attempt.run.wait_until_final(seconds)


# Views --------------------------------------------------------------------------------


@require_GET
@never_cache  # practice state: never a stale copy on Back
def ordering_practice(request: HttpRequest, exercise_id: int) -> HttpResponse:
    """The practice region again: what a check that is still running polls."""
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    attempt = latest_attempts(request.user, [exercise.pk]).get(exercise.pk)
    if attempt is not None and attempt.verdict == OrderingAttempt.Verdict.PENDING:
        # The page's poll waits for the worker's notice; a plain GET does not wait. The
        # worker gives the verdict (a GET never writes); until then the region polls on.
        wait_for(attempt, seconds=settings.RUN_LONG_POLL_SECONDS if htmx.wants_partial(request) else 0)
    return practice_response(request, exercise, progress=True)


@require_POST
def ordering_move(request: HttpRequest, exercise_id: int) -> HttpResponse:
    """Save a move: one step of one line (`move=up:<token>`), or where every line now is
    (`arrangement`, JSON, sent by the page's script after a drag, click or key)."""
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    lines = ExerciseLines.of(exercise)
    try:
        if "arrangement" in request.POST:
            removed = removed_keys(request.user, exercise, lines)
            order, unused = read_arrangement(
                request.POST["arrangement"], lines, LineTokens.of(request.user, lines), removed=removed
            )
            arrange_lines(user=request.user, exercise=exercise, order=order, unused=unused)
        else:
            tokens = LineTokens.of(request.user, lines)
            key, direction = read_move(request.POST.get("move", ""), lines, tokens)
            move_line(user=request.user, exercise=exercise, key=key, direction=direction)
    except (Malformed, OrderingRefused) as refusal:
        return refused(request, exercise, str(refusal))
    return practice_response(request, exercise)


@require_POST
def ordering_check(request: HttpRequest, exercise_id: int) -> HttpResponse:
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    if closed := closed_to(request.user, exercise.block):
        if htmx.wants_partial(request):
            return htmx.refusal(request, closed, into=f"exercise-{exercise.key}-message", status=403)
        messages.error(request, closed)
        return redirect(exercise_url(exercise))
    lines = ExerciseLines.of(exercise)
    order = unused = None
    try:
        if "arrangement" in request.POST:
            removed = removed_keys(request.user, exercise, lines)
            order, unused = read_arrangement(
                request.POST["arrangement"], lines, LineTokens.of(request.user, lines), removed=removed
            )
        attempt = check_order(
            user=request.user, exercise=exercise, order=order, unused=unused
        )
    except (Malformed, OrderingRefused) as refusal:
        return refused(request, exercise, str(refusal))
    except RunRefused as refusal:
        if htmx.wants_partial(request):  # the move is saved: the lines on the page are right
            return htmx.refusal(request, str(refusal), into=f"exercise-{exercise.key}-message", status=429)
        return practice_response(request, exercise, notice=str(refusal))
    if attempt.verdict == OrderingAttempt.Verdict.PENDING:
        wait_for(attempt, seconds=settings.RUN_WAIT_SECONDS)
        settle_check(attempt=attempt)
    return practice_response(request, exercise, progress=True)


@require_POST
def ordering_help(request: HttpRequest, exercise_id: int) -> HttpResponse:
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    removed_before = len(removed_keys(request.user, exercise, ExerciseLines.of(exercise)))
    try:
        done = help_with_order(user=request.user, exercise=exercise)
    except OrderingRefused as refusal:
        return refused(request, exercise, str(refusal))
    removed_after = len(removed_keys(request.user, exercise, ExerciseLines.of(exercise)))
    return practice_response(
        request, exercise, notice=done, help_removed=removed_after > removed_before
    )


@require_POST
def ordering_reset(request: HttpRequest, exercise_id: int) -> HttpResponse:
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    start_again(user=request.user, exercise=exercise)
    return practice_response(
        request, exercise, notice=_("The lines are back where they started. Have another go.")
    )
