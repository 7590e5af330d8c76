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
from dataclasses import dataclass, field
from urllib.parse import quote

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from course.models import Lesson, OrderingExercise
from tutor import actions
from tutor.actions.ordering import (
    DIRECTIONS,
    HELP_AFTER_WRONG_CHECKS,
    LEAVE_OUT,
    USE,
    ExerciseLines,
    OrderingRefused,
    dependencies_of,
    fit_to_lines,
    starting_order,
)
from tutor.grading import compare_prediction
from tutor.models import OrderingArrangement, OrderingAttempt, Run
from tutor.views.progress import with_lesson_progress

PARTIAL = "tutor/ordering_practice.html#exercise-practice"
MAX_SHOWN_OUTPUT = 2_000
# Far more than any exercise's keys need; a longer arrangement is refused before parsing.
MAX_ARRANGEMENT_CHARS = 10_000


class Malformed(ValueError):
    """The POST does not describe a move of this exercise's lines; the message says why
    in general terms (it names no line: that could tell which lines the answer lacks)."""


@dataclass(frozen=True)
class LineTokens:
    """What one learner's page calls each line of one exercise: an HMAC of the learner,
    the exercise and the line's key, so it tells nothing about the line, differs from one
    learner to the next and cannot be made up without the site's secret key."""

    by_key: dict[str, str]

    @classmethod
    def of(cls, user: AbstractBaseUser, lines: ExerciseLines) -> "LineTokens":
        return cls(
            {
                key: "line-"
                + salted_hmac(
                    "parsnip.ordering.line", f"{user.pk}:{lines.exercise_id}:{key}", algorithm="sha256"
                ).hexdigest()[:16]
                for key in lines.texts
            }
        )

    def key_of(self, token: str) -> str | None:
        return self.keys.get(token)

    @property
    def keys(self) -> dict[str, str]:
        return {token: key for key, token in self.by_key.items()}


@dataclass
class BoardLine:
    key: str
    token: str
    text: str
    mark: str = ""  # "in-place", "first-wrong" or "fixed"

    @property
    def short(self) -> str:
        text = self.text.strip()
        return text if len(text) <= 40 else text[:38] + "…"


@dataclass
class Board:
    """One learner's state on one exercise: what the practice region shows."""

    exercise: OrderingExercise
    lesson_url: str
    signed_in: bool
    order: list[BoardLine]
    unused: list[BoardLine] = field(default_factory=list)
    has_unused_area: bool = False
    removed: list[str] = field(default_factory=list)  # texts Help took away
    checks: int = 0
    wrong_checks: int = 0
    solved: bool = False
    can_help: bool = False
    verdict: str = ""  # of the latest check, while the answer is still the one checked
    message: str = ""
    pending: bool = False
    program_output: str = ""

    @property
    def anchor(self) -> str:
        return f"exercise-{self.exercise.key}"

    @property
    def login_url(self) -> str:
        return f"{reverse('login')}?next={quote(self.lesson_url)}%23{self.anchor}"

    @property
    def signup_url(self) -> str:
        return f"{reverse('tutor:signup')}?next={quote(self.lesson_url)}%23{self.anchor}"

    @property
    def interactive(self) -> bool:
        return self.signed_in and not self.solved

    @property
    def arrangement_json(self) -> str:
        return json.dumps(
            {"order": [line.token for line in self.order], "unused": [line.token for line in self.unused]}
        )

    @property
    def help_soon(self) -> int:
        """Wrong checks still to go before Help appears."""
        return max(0, HELP_AFTER_WRONG_CHECKS - self.wrong_checks)


def _stderr_summary(run: Run) -> str:
    lines = [line for line in run.stderr.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else run.get_status_display()


def _feedback(board: Board, lines: ExerciseLines, attempt: OrderingAttempt) -> None:
    """Marks and words for the latest check."""
    result = lines.grade(attempt.order)
    board.verdict = attempt.verdict
    if attempt.verdict == OrderingAttempt.Verdict.SOLVED:
        board.message = {
            OrderingExercise.Grading.DEPENDENCIES: "Every line comes after the lines it needs.",
            OrderingExercise.Grading.OUTPUT: "Your program prints exactly what it should.",
        }.get(lines.grading, "Every line is in its place.")
        return
    if attempt.verdict == OrderingAttempt.Verdict.PENDING:
        board.pending = True
        board.message = "Running your program to see what it prints…"
        return
    in_place, first_wrong = set(result.in_place), result.first_wrong
    for line in board.order:
        if line.key in in_place and line.mark != "fixed":
            line.mark = "in-place"
        elif line.key == first_wrong:
            line.mark = "first-wrong"
    count = f"{len(result.in_place)} of {len(lines.correct)} lines in place."
    run = attempt.run
    if lines.grading == OrderingExercise.Grading.OUTPUT and run is not None:
        if run.status != Run.Status.OK:
            said = f"Your program stopped: {_stderr_summary(run)}."
        elif lines.expected_output.strip():
            comparison = compare_prediction(run.stdout, lines.expected_output)
            said = "Its output is not right yet: " + comparison.verdict.removeprefix("Not quite: ")
        else:
            said = "Its output is not what the lesson's program prints."
        board.program_output = run.stdout[:MAX_SHOWN_OUTPUT]
        board.message = f"{said} {result.message} {count}"
    else:
        board.message = f"{result.message} {count}"


def build_board(
    exercise: OrderingExercise,
    lines: ExerciseLines,
    *,
    user: AbstractBaseUser,
    lesson_url: str,
    arrangement: OrderingArrangement | None = None,
    attempt: OrderingAttempt | None = None,
) -> Board:
    tokens = LineTokens.of(user, lines).by_key if user.is_authenticated else {}

    def board_lines(keys: list[str], fixed: list[str] = ()) -> list[BoardLine]:
        return [
            BoardLine(key, tokens.get(key, ""), lines.texts[key], "fixed" if key in fixed else "")
            for key in keys
            if key in lines.texts
        ]

    if not user.is_authenticated:
        # Every reader sees the same scramble; it is never the solution either.
        order = starting_order(user_id=0, lines=lines)
        return Board(exercise, lesson_url, signed_in=False, order=board_lines(order))
    if arrangement is None:
        arrangement = OrderingArrangement(
            user=user, exercise=exercise, order=starting_order(user_id=user.pk, lines=lines)
        )
    else:
        fit_to_lines(arrangement, lines)  # the lines may have been edited; saved on the next move
    board = Board(
        exercise,
        lesson_url,
        signed_in=True,
        order=board_lines(arrangement.order, arrangement.fixed),
        unused=board_lines(arrangement.unused),
        # Once Help took every distractor away, "Not used" has no more purpose.
        has_unused_area=bool(arrangement.unused)
        or len(arrangement.removed) < len(lines.distractors),
        removed=[lines.texts[key].strip() for key in arrangement.removed if key in lines.texts],
        checks=arrangement.checks,
        wrong_checks=arrangement.wrong_checks,
        solved=arrangement.solved_at is not None,
    )
    shows_check = (
        attempt is not None
        and arrangement.checks
        and (board.solved or attempt.order == arrangement.order)
        # Marks for an order naming a line since edited away would describe another exercise.
        and all(key in lines.texts for key in attempt.order)
    )
    if shows_check:
        _feedback(board, lines, attempt)
    board.can_help = (
        not board.solved
        and not board.pending
        and arrangement.wrong_checks >= HELP_AFTER_WRONG_CHECKS
        and (
            len(arrangement.removed) < len(lines.distractors)
            or len(arrangement.fixed) < len(lines.correct)
        )
    )
    return board


def _latest_attempts(user: AbstractBaseUser, exercise_ids: list[int]) -> dict[int, OrderingAttempt]:
    """The learner's latest check of each exercise, in one query."""
    latest = (
        OrderingAttempt.objects.filter(user=OuterRef("user"), exercise=OuterRef("exercise"))
        .order_by("-created_at", "-pk")
        .values("pk")[:1]
    )
    attempts = OrderingAttempt.objects.filter(
        user=user, exercise__in=exercise_ids, pk=Subquery(latest)
    ).select_related("run")
    return {attempt.exercise_id: attempt for attempt in attempts}


def attach_boards(
    user: AbstractBaseUser, exercises: list[OrderingExercise], *, lesson_url: str
) -> None:
    """Set `exercise.board` on each exercise, in a fixed number of queries for them all
    (none for a reader who is not logged in). `exercise.lines` should be prefetched."""
    if not exercises:
        return
    if not user.is_authenticated:
        for exercise in exercises:
            lines = ExerciseLines.of(exercise, depends_on={})
            exercise.board = build_board(exercise, lines, user=user, lesson_url=lesson_url)
        return
    depends_on = dependencies_of(exercises)
    arrangements = {
        arrangement.exercise_id: arrangement
        for arrangement in OrderingArrangement.objects.filter(user=user, exercise__in=exercises)
    }
    checked = [pk for pk, arrangement in arrangements.items() if arrangement.checks]
    attempts = _latest_attempts(user, checked) if checked else {}
    for exercise in exercises:
        lines = ExerciseLines.of(exercise, depends_on=depends_on.get(exercise.pk, {}))
        attempt = attempts.get(exercise.pk)
        if attempt is not None and attempt.verdict == OrderingAttempt.Verdict.PENDING:
            # Rare: the learner left while the program ran. Settle it now (a few writes).
            attempt.exercise = exercise
            attempt = actions.settle_check(attempt=attempt)
            arrangements[exercise.pk].refresh_from_db()
        exercise.board = build_board(
            exercise,
            lines,
            user=user,
            lesson_url=lesson_url,
            arrangement=arrangements.get(exercise.pk),
            attempt=attempt,
        )


def lesson_context(request: HttpRequest, lesson: Lesson) -> dict:
    """The learner's state for each ordering exercise on a lesson page.

    Each exercise the lesson page renders gets its `board`, which the included
    tutor/ordering_practice.html reads.
    """
    exercises = [
        block.exercise
        for block in lesson.blocks.all()
        if block.kind == "ordering" and hasattr(block, "exercise")
    ]
    attach_boards(request.user, exercises, lesson_url=lesson.get_absolute_url())
    return {}


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
    lesson_url = exercise.block.lesson.get_absolute_url()
    url = f"{reverse('login')}?next={quote(lesson_url)}%23exercise-{exercise.key}"
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def refused(request: HttpRequest, exercise: OrderingExercise, message: str) -> HttpResponse:
    """A request the page's script sent gets a 400 it shows beside the lines; a plain form
    goes back to the exercise, with the reason shown at the top of the lesson page."""
    if request.htmx:
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
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
    if not request.htmx:
        if notice:
            messages.info(request, notice)
        return redirect(exercise_url(exercise))
    user = request.user
    lines = ExerciseLines.of(exercise)
    arrangement = OrderingArrangement.objects.filter(user=user, exercise=exercise).first()
    attempt = None
    if arrangement is not None and arrangement.checks:
        attempt = _latest_attempts(user, [exercise.pk]).get(exercise.pk)
    exercise.board = build_board(
        exercise,
        lines,
        user=user,
        lesson_url=exercise.block.lesson.get_absolute_url(),
        arrangement=arrangement,
        attempt=attempt,
    )
    context = {
        "exercise": exercise, "block": exercise.block, "notice": notice, "help_removed": help_removed,
    }
    response = TemplateResponse(request, PARTIAL, context)
    if progress:
        return with_lesson_progress(request, response, exercise.block.lesson)
    return response


def removed_keys(
    user: AbstractBaseUser, exercise: OrderingExercise, lines: ExerciseLines
) -> list[str]:
    """The lines Help took away that are still distractors of the exercise as it is now."""
    arrangement = OrderingArrangement.objects.filter(user=user, exercise=exercise).first()
    if arrangement is None:
        return []
    fit_to_lines(arrangement, lines)
    return arrangement.removed


def wait_for(attempt: OrderingAttempt, *, seconds: float) -> OrderingAttempt:
    """A program's output arrives within the request if it comes within `seconds`
    (sleeping costs nothing: tutor/run_notices.py); a slower one is polled for."""
    if attempt.run is not None and not attempt.run.is_final:
        attempt.run.wait_until_final(seconds)
    return actions.settle_check(attempt=attempt)


# Views --------------------------------------------------------------------------------


@require_GET
@never_cache  # practice state: never a stale copy on Back
def ordering_practice(request: HttpRequest, exercise_id: int) -> HttpResponse:
    """The practice region again: what a check that is still running polls."""
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    attempt = _latest_attempts(request.user, [exercise.pk]).get(exercise.pk)
    if attempt is not None and attempt.verdict == OrderingAttempt.Verdict.PENDING:
        # The page's poll waits for the worker's notice; a plain GET does not wait.
        wait_for(attempt, seconds=settings.RUN_LONG_POLL_SECONDS if request.htmx else 0)
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
            actions.arrange_lines(user=request.user, exercise=exercise, order=order, unused=unused)
        else:
            tokens = LineTokens.of(request.user, lines)
            key, direction = read_move(request.POST.get("move", ""), lines, tokens)
            actions.move_line(user=request.user, exercise=exercise, key=key, direction=direction)
    except (Malformed, OrderingRefused) as refusal:
        return refused(request, exercise, str(refusal))
    return practice_response(request, exercise)


@require_POST
def ordering_check(request: HttpRequest, exercise_id: int) -> HttpResponse:
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    lines = ExerciseLines.of(exercise)
    order = unused = None
    try:
        if "arrangement" in request.POST:
            removed = removed_keys(request.user, exercise, lines)
            order, unused = read_arrangement(
                request.POST["arrangement"], lines, LineTokens.of(request.user, lines), removed=removed
            )
        attempt = actions.check_order(
            user=request.user, exercise=exercise, order=order, unused=unused
        )
    except (Malformed, OrderingRefused) as refusal:
        return refused(request, exercise, str(refusal))
    except actions.RunRefused as refusal:
        return practice_response(request, exercise, notice=str(refusal))
    if attempt.verdict == OrderingAttempt.Verdict.PENDING:
        wait_for(attempt, seconds=settings.RUN_WAIT_SECONDS)
    return practice_response(request, exercise, progress=True)


@require_POST
def ordering_help(request: HttpRequest, exercise_id: int) -> HttpResponse:
    exercise = exercise_or_404(request, exercise_id)
    if not request.user.is_authenticated:
        return log_in_first(request, exercise)
    removed_before = len(removed_keys(request.user, exercise, ExerciseLines.of(exercise)))
    try:
        done = actions.help_with_order(user=request.user, exercise=exercise)
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
    actions.start_again(user=request.user, exercise=exercise)
    return practice_response(
        request, exercise, notice="The lines are back where they started. Have another go."
    )
