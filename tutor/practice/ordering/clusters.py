"""Ordering exercises' wrong arrangements, grouped by the lines out of place.

An arrangement is compared with the solution as text, line by line: the longest run of
lines in the solution's order stays put, and what is left is a line out of place (with the
line it now comes before), a line left out, or a line that does not belong. Lines are
compared by their text, so two lines that read the same are interchangeable, and
trailing spaces never count."""

import difflib
from collections.abc import Sequence

from django.db.models import Prefetch, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from course.kinds.ordering import OrderingExercise, OrderingLine
from tutor.clusters.groups import Distribution, Group, gather, group_key, joined, quoted
from tutor.practice.ordering.board import Board
from tutor.practice.ordering.lines import ExerciseLines
from tutor.practice.ordering.models import OrderingAttempt


def _texts(keys: Sequence[str], texts: dict[str, str]) -> list[str]:
    return [texts[key].rstrip() for key in keys if key in texts]


def arrangement_group(order: Sequence[str], correct: Sequence[str], texts: dict[str, str]) -> Group:
    """The group of a wrong arrangement (line keys, top to bottom) of lines `texts`."""
    placed, solution = _texts(order, texts), _texts(correct, texts)
    belongs = set(solution)
    extra = sorted({line for line in placed if line not in belongs})
    used = [line for line in placed if line in belongs]
    left_out = sorted(set(solution) - set(used))
    matcher = difflib.SequenceMatcher(a=solution, b=used, autojunk=False)
    kept = {j + i for _, j, size in matcher.get_matching_blocks() for i in range(size)}
    misplaced = [
        (line, used[j + 1] if j + 1 < len(used) else None)
        for j, line in enumerate(used)
        if j not in kept
    ]
    parts = [
        _("line %(line)s placed before %(after)s") % {"line": quoted(line), "after": quoted(after)}
        if after is not None
        else _("line %(line)s placed last") % {"line": quoted(line)}
        for line, after in misplaced
    ]
    parts += [_("leaves out %(line)s") % {"line": quoted(line)} for line in left_out]
    parts += [_("uses %(line)s, which does not belong") % {"line": quoted(line)} for line in extra]
    if not parts:  # the right lines in the right order, graded wrong by what they print
        parts = [_("every line in place, yet the program’s output is wrong")]
    key = group_key("ordering", misplaced, left_out, extra)
    description = joined(parts)
    out_of_place = {line for line, _ in misplaced} | set(extra)
    if misplaced and not (left_out or extra):
        n = len(misplaced)
        label = ngettext("%(n)s line out of place", "%(n)s lines out of place", n) % {"n": n}
    elif left_out and not (misplaced or extra):
        n = len(left_out)
        label = ngettext("Leaves out %(n)s line", "Leaves out %(n)s lines", n) % {"n": n}
    elif extra and not (misplaced or left_out):
        n = len(extra)
        label = ngettext("%(n)s line that does not belong", "%(n)s lines that do not belong", n) % {
            "n": n
        }
    elif misplaced or left_out or extra:
        n = len(misplaced) + len(left_out) + len(extra)
        label = ngettext("%(n)s difference", "%(n)s differences", n) % {"n": n}
    else:
        label = _("Right order, wrong output")
    return Group(
        key,
        description[:1].upper() + description[1:],
        "\n".join(placed),
        label=label,
        marked=frozenset(i for i, line in enumerate(placed) if line in out_of_place),
        right_marked=frozenset(
            i for i, line in enumerate(solution) if line in out_of_place or line in left_out
        ),
    )


def cluster_of(board: Board | None) -> tuple[int, Group] | None:
    """The learner's latest check, while the board still shows it and it was wrong."""
    if board is None or board.solved or board.verdict != OrderingAttempt.Verdict.WRONG:
        return None
    lines = ExerciseLines.of(board.exercise, depends_on={})
    order = [line.key for line in board.order]
    return board.exercise.block_id, arrangement_group(order, lines.correct, lines.texts)


def clusters(*, in_class: Q, blocks: list) -> dict[int, Distribution]:
    """Each student's latest check (a student who solved it once counts as right): three
    queries for any number of exercises."""
    exercises = list(
        OrderingExercise.objects.filter(block__in=blocks).prefetch_related(
            Prefetch("lines", queryset=OrderingLine.objects.order_by("pk"))
        )
    )
    attempts = (
        OrderingAttempt.objects.filter(in_class, exercise__in=exercises)
        .order_by("created_at", "pk")
        .values_list("exercise_id", "user_id", "verdict", "order")
    )
    latest: dict[int, dict[int, tuple[str, list]]] = {e.pk: {} for e in exercises}
    solved: dict[int, set[int]] = {e.pk: set() for e in exercises}
    for exercise_id, user_id, verdict, order in attempts:
        if verdict == OrderingAttempt.Verdict.SOLVED:
            solved[exercise_id].add(user_id)
        if verdict != OrderingAttempt.Verdict.PENDING:
            latest[exercise_id][user_id] = (verdict, order)
    found = {}
    for exercise in exercises:
        lines = ExerciseLines.of(exercise, depends_on={})
        wrong = {
            user_id: arrangement_group(order, lines.correct, lines.texts)
            for user_id, (verdict, order) in latest[exercise.pk].items()
            if user_id not in solved[exercise.pk] and verdict == OrderingAttempt.Verdict.WRONG
        }
        found[exercise.block_id] = gather(
            exercise.block_id,
            solved[exercise.pk],
            wrong,
            right_answer="\n".join(_texts(lines.correct, lines.texts)),
        )
    return found
