"""One learner's lines on an ordering exercise: the board its practice region shows.

Nothing on a board tells the solution: lines appear in the learner's own shuffle, named by
an opaque token of their own for that learner (never by their key in the content, which
may say `wrong-return`). Read only: boards are shown by page views, which never write.
"""

import json
from dataclasses import dataclass, field
from urllib.parse import quote

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from course.kinds.ordering import OrderingExercise
from tutor.grading import compare_prediction
from tutor.models import Run
from tutor.practice.ordering.actions import HELP_AFTER_WRONG_CHECKS
from tutor.practice.ordering.lines import ExerciseLines, dependencies_of, starting_order
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt

MAX_SHOWN_OUTPUT = 2_000


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
                    "parsnip.ordering.line",
                    f"{user.pk}:{lines.exercise_id}:{key}",
                    algorithm="sha256",
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
    mark: str = ""  # "in-order" (with the others, not at its exact place), "first-wrong" or "fixed"

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
            {
                "order": [line.token for line in self.order],
                "unused": [line.token for line in self.unused],
            }
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
            OrderingExercise.Grading.DEPENDENCIES: _("Every line comes after the lines it needs."),
            OrderingExercise.Grading.OUTPUT: _("Your program prints exactly what it should."),
        }.get(lines.grading, _("Every line is in its place."))
        return
    if attempt.verdict == OrderingAttempt.Verdict.PENDING:
        board.pending = True
        board.message = _("Running your program to see what it prints…")
        return
    in_order, first_wrong = set(result.in_order), result.first_wrong
    for line in board.order:
        if line.key in in_order and line.mark != "fixed":
            line.mark = "in-order"
        elif line.key == first_wrong:
            line.mark = "first-wrong"
    count = ngettext(
        "%(in_order)d of %(lines)d line in order.",
        "%(in_order)d of %(lines)d lines in order.",
        len(lines.correct),
    ) % {"in_order": len(result.in_order), "lines": len(lines.correct)}
    run = attempt.run
    if lines.grading == OrderingExercise.Grading.OUTPUT and run is not None:
        if run.status != Run.Status.OK:
            said = _("Your program stopped: %(error)s.") % {"error": _stderr_summary(run)}
        elif lines.expected_output.strip():
            comparison = compare_prediction(run.stdout, lines.expected_output)
            said = _("Its output is not right yet: %(difference)s") % {
                "difference": comparison.difference
            }
        else:
            said = _("Its output is not what the lesson's program prints.")
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
        arrangement.fit_to_lines(lines)  # the lines may have been edited; saved on the next move
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


def latest_attempts(user: AbstractBaseUser, exercise_ids: list[int]) -> dict[int, OrderingAttempt]:
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


def boards(
    user: AbstractBaseUser, exercises: list[OrderingExercise], *, lesson_url: str
) -> dict[int, Board]:
    """Each exercise's board for this user, by exercise pk, in a fixed number of queries
    for them all (one for a reader who is not logged in, whose page is cached whole). `exercise.lines` should be
    prefetched. Reads only: a check still waiting for its program is shown waiting; its
    verdict is given by the worker (or the repair sweep)."""
    if not exercises:
        return {}
    # a reader's scramble needs the dependencies too: without them every order of a
    # "dependencies" exercise counts as solved, and the authored one could be shown
    depends_on = dependencies_of(exercises)
    if not user.is_authenticated:
        return {
            exercise.pk: build_board(
                exercise,
                ExerciseLines.of(exercise, depends_on=depends_on.get(exercise.pk, {})),
                user=user,
                lesson_url=lesson_url,
            )
            for exercise in exercises
        }
    arrangements = {
        arrangement.exercise_id: arrangement
        for arrangement in OrderingArrangement.objects.filter(user=user, exercise__in=exercises)
    }
    checked = [pk for pk, arrangement in arrangements.items() if arrangement.checks]
    attempts = latest_attempts(user, checked) if checked else {}
    return {
        exercise.pk: build_board(
            exercise,
            ExerciseLines.of(exercise, depends_on=depends_on.get(exercise.pk, {})),
            user=user,
            lesson_url=lesson_url,
            arrangement=arrangements.get(exercise.pk),
            attempt=attempts.get(exercise.pk),
        )
        for exercise in exercises
    }


def board_of(user: AbstractBaseUser, exercise: OrderingExercise) -> Board:
    """One exercise's board (what the practice region's views render)."""
    return boards(user, [exercise], lesson_url=exercise.block.lesson.get_absolute_url())[
        exercise.pk
    ]
