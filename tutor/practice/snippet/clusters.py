"""Snippets' wrong predictions, grouped by their difference from the real output.

Two predictions are in one group when they differ from what the code prints in the same
lines in the same way, compared by the rules that grade them (tutor.grading: trailing
spaces, trailing blank lines and Windows line ends never count; the error's name alone
names the error)."""

import difflib

from django.db.models import F, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from course.kinds.snippet import Snippet
from tutor.clusters.groups import Distribution, Group, gather, group_key, joined, quoted
from tutor.grading import PredictionComparison, compare_prediction, output_lines
from tutor.models import Run, code_digest
from tutor.practice.snippet.models import Prediction
from tutor.practice.snippet.state import SnippetPractice, pick_reveal_runs

RIGHT = {Prediction.Verdict.RIGHT, Prediction.Verdict.SELF_RIGHT}


def _difference(line) -> str:
    words = {"number": line.number, "expected": quoted(line.expected)}
    if line.kind == "wrong":
        return _("%(predicted)s instead of %(expected)s on line %(number)s") % (
            words | {"predicted": quoted(line.predicted)}
        )
    if line.kind == "moved":
        return _("puts line %(number)s, %(expected)s, in another place") % words
    if line.kind == "missing":
        return _("leaves out line %(number)s, %(expected)s") % words
    return _("adds %(predicted)s before line %(number)s") % {
        "predicted": quoted(line.predicted),
        "number": line.number,
    }


def _label(differences: list) -> str:
    kinds = {line.kind for line in differences}
    if not kinds:
        return ""
    if kinds == {"moved"}:
        return _("Right lines, wrong order")
    n = len(differences)
    if len(kinds) > 1:
        return ngettext("%(n)s difference", "%(n)s differences", n) % {"n": n}
    (kind,) = kinds
    if kind == "wrong":
        if n == 1:
            return _("Line %(number)s differs") % {"number": differences[0].number}
        return ngettext("%(n)s line differs", "%(n)s lines differ", n) % {"n": n}
    if kind == "missing":
        if n == 1:
            return _("Leaves out line %(number)s") % {"number": differences[0].number}
        return ngettext("Leaves out %(n)s line", "Leaves out %(n)s lines", n) % {"n": n}
    return ngettext("%(n)s extra line", "%(n)s extra lines", n) % {"n": n}


def prediction_group(comparison: PredictionComparison) -> Group:
    """The group of a wrong prediction, from its comparison with the real output."""
    differences = [line for line in comparison.lines if line.kind != "match"]
    key = group_key("snippet", [[d.kind, d.number, d.expected, d.predicted] for d in differences])
    description = joined([_difference(line) for line in differences])
    answer = "\n".join(comparison.predicted)
    expected = [line.expected for line in comparison.lines if line.kind != "extra"]
    matcher = difflib.SequenceMatcher(a=expected, b=comparison.predicted, autojunk=False)
    blocks = matcher.get_matching_blocks()
    same = {j + k for _, j, size in blocks for k in range(size)}
    right = {i + k for i, _, size in blocks for k in range(size)}
    return Group(
        key,
        description[:1].upper() + description[1:],
        answer,
        label=_label(differences),
        marked=frozenset(range(len(comparison.predicted))) - same,
        right_marked=frozenset(range(len(expected))) - right,
    )


def cluster_of(state: SnippetPractice | None) -> tuple[int, Group] | None:
    """The learner's first prediction, when it was typed and wrong and the output is known."""
    if (
        state is None
        or state.prediction is None
        or state.prediction.verdict != Prediction.Verdict.WRONG
    ):
        return None
    comparison = state.comparison
    if comparison is None or comparison.is_right:
        return None
    return state.snippet.block_id, prediction_group(comparison)


def reveal_runs(snippets: list[Snippet]) -> dict[int, Run]:
    """The run that shows what each snippet's current version prints, by snippet pk."""
    runs = pick_reveal_runs(
        list(
            Run.objects.filter(
                purpose=Run.Purpose.REVEAL, code_hash__in={code_digest(s.code) for s in snippets}
            ).order_by("-created_at", "-pk")
        )
    )
    found = {}
    for snippet in snippets:
        run = runs.get((code_digest(snippet.code), snippet.stdin))
        if run is not None and run.is_final and run.status != Run.Status.FAILED:
            found[snippet.pk] = run
    return found


def clusters(*, in_class: Q, blocks: list) -> dict[int, Distribution]:
    """First predictions on each snippet's current version: three queries for any number."""
    snippets = list(Snippet.objects.filter(block__in=blocks))
    if not snippets:
        return {}
    runs = reveal_runs(snippets)
    by_pk = {snippet.pk: snippet for snippet in snippets}
    rows = (
        Prediction.objects.filter(in_class, snippet__in=snippets, is_first=True)
        .filter(snippet_version=F("snippet__version"))
        .values_list("snippet_id", "user_id", "verdict", "text")
        .distinct()
    )
    right: dict[int, set[int]] = {pk: set() for pk in by_pk}
    wrong: dict[int, dict[int, Group]] = {pk: {} for pk in by_pk}
    aloud: dict[int, set[int]] = {pk: set() for pk in by_pk}
    for snippet_id, user_id, verdict, text in rows:
        if verdict in RIGHT:
            right[snippet_id].add(user_id)
        elif verdict == Prediction.Verdict.SELF_WRONG:
            aloud[snippet_id].add(user_id)
        elif verdict == Prediction.Verdict.WRONG:
            run = runs.get(snippet_id)
            if run is None:  # the output was known when it was graded, and is gone since
                comparison = compare_prediction(text, by_pk[snippet_id].expected_output)
            else:
                comparison = compare_prediction(text, run.stdout, error=run.raised)
            wrong[snippet_id][user_id] = prediction_group(comparison)
    return {
        snippet.block_id: gather(
            snippet.block_id, right[pk], wrong[pk], aloud[pk], right_answer=_right_output(snippet, runs.get(pk))
        )
        for pk, snippet in by_pk.items()
    }


def _right_output(snippet: Snippet, run: Run | None) -> str:
    """What the snippet prints, as predictions are compared with it (the error it ends with
    as its last line)."""
    if run is None:
        return "\n".join(output_lines(snippet.expected_output))
    lines = output_lines(run.stdout)
    if run.raised is not None:
        lines.append(run.raised.line)
    return "\n".join(lines)
