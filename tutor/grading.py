"""Grading, as pure functions: predictions against real output, orderings against the rule.

Nothing here touches the database; actions load rows and store verdicts.
"""

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tutor.feedback import RaisedException


def output_lines(text: str) -> list[str]:
    """Lines as a learner compares them: trailing spaces and trailing blank lines don't count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True)
class LineComparison:
    kind: str  # "match", "wrong", "moved" (predicted, but elsewhere), "missing", "extra"
    number: int  # 1-based line number in the real output (for "extra": where it would go)
    expected: str | None
    predicted: str | None
    error: bool = False  # the line is the error the program ends with, not printed output


@dataclass(frozen=True)
class PredictionComparison:
    lines: list[LineComparison]
    slips: list[str] = field(default_factory=list)
    predicted: list[str] = field(default_factory=list)  # the prediction's lines, as compared

    @property
    def is_right(self) -> bool:
        return all(line.kind == "match" for line in self.lines)

    @property
    def counts(self) -> dict[str, int]:
        counts = {"match": 0, "wrong": 0, "moved": 0, "missing": 0, "extra": 0}
        for line in self.lines:
            counts[line.kind] += 1
        return counts

    @property
    def verdict(self) -> str:
        if self.is_right:
            return _("Spot on: your prediction matches the output line for line.")
        return _("Not quite: %(difference)s") % {"difference": self.difference}

    @property
    def difference(self) -> str:
        """How the lines differ, as the verdict says it after "Not quite:"."""
        counts = self.counts
        moved = counts["moved"]
        if moved and not (counts["wrong"] or counts["missing"] or counts["extra"]):
            return ngettext(
                "right lines, wrong order — %(n)d line is in a different place.",
                "right lines, wrong order — %(n)d lines are in a different place.",
                moved,
            ) % {"n": moved}
        total = counts["match"] + counts["wrong"] + moved + counts["missing"]
        parts = [
            ngettext(
                "%(right)d of %(total)d line right", "%(right)d of %(total)d lines right", total
            )
            % {"right": counts["match"], "total": total}
        ]
        if counts["wrong"]:
            parts.append(_("%(n)d different") % {"n": counts["wrong"]})
        if moved:
            parts.append(_("%(n)d in a different place") % {"n": moved})
        if counts["missing"]:
            parts.append(_("%(n)d missing") % {"n": counts["missing"]})
        if counts["extra"]:
            parts.append(_("%(n)d extra") % {"n": counts["extra"]})
        return ", ".join(parts) + "."


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _slips(expected: list[str], predicted: list[str], lines: list[LineComparison]) -> list[str]:
    slips = []
    if expected and expected[0] == "" and (not predicted or predicted[0] != ""):
        slips.append(_("The output starts with an empty line — the first `print()` prints one."))
    pairs = [(line.expected, line.predicted) for line in lines if line.kind == "wrong"]
    if any(e != p and e.lower() == p.lower() for e, p in pairs):
        slips.append(_("Some lines differ only in upper or lower case."))
    if any(e != p and e.split() == p.split() for e, p in pairs):
        slips.append(_("Some lines differ only in spacing inside the line."))
    numbers = next(
        (
            (printed, said)
            for e, p in pairs
            if e != p and _NUMBER.sub("#", e) == _NUMBER.sub("#", p)
            for printed, said in _same_numbers_written_differently(e, p)
        ),
        None,
    )
    if numbers:
        printed, said = numbers
        decimals = len(printed.partition(".")[2])
        numbers = {"printed": printed, "said": said, "format": f"%.{decimals}f", "n": decimals}
        if decimals:
            slip = ngettext(
                "Check how numbers are formatted: it prints `%(printed)s` where you wrote "
                "`%(said)s` — a format such as `%(format)s` always prints %(n)d decimal.",
                "Check how numbers are formatted: it prints `%(printed)s` where you wrote "
                "`%(said)s` — a format such as `%(format)s` always prints %(n)d decimals.",
                decimals,
            )
        else:
            slip = _(
                "Check how numbers are formatted: it prints `%(printed)s` where you wrote `%(said)s`."
            )
        slips.append(slip % numbers)
    return slips


def _same_numbers_written_differently(expected: str, predicted: str) -> list[tuple[str, str]]:
    """The numbers of two lines, pair by pair, when every pair has the same value; the pairs
    written differently. (Different values are a different mistake, not a formatting slip.)"""
    pairs = list(zip(_NUMBER.findall(expected), _NUMBER.findall(predicted), strict=True))
    if any(float(e) != float(p) for e, p in pairs):
        return []
    return [(e, p) for e, p in pairs if e != p]


def compare_prediction(
    prediction: str, output: str, *, error: RaisedException | None = None
) -> PredictionComparison:
    """Line by line. A program that fails ends with `error`: the learner predicts it as the
    last line, where its name alone counts (`ZeroDivisionError`, with or without a message)."""
    expected = output_lines(output)
    predicted = output_lines(prediction)
    if error is not None:
        expected.append(error.line)
        if predicted and error.is_named_by(predicted[-1]):
            # Empty lines just before the error count no more than at the end of the output.
            predicted = output_lines("\n".join(predicted[:-1])) + [error.line]
    lines: list[LineComparison] = []
    matcher = difflib.SequenceMatcher(a=expected, b=predicted, autojunk=False)
    for tag, e1, e2, p1, p2 in matcher.get_opcodes():
        if tag == "equal":
            lines += [
                LineComparison("match", e1 + i + 1, expected[e1 + i], None) for i in range(e2 - e1)
            ]
        elif tag == "delete":
            lines += [
                LineComparison("missing", e1 + i + 1, expected[e1 + i], None)
                for i in range(e2 - e1)
            ]
        elif tag == "insert":
            lines += [
                LineComparison("extra", e1 + 1, None, predicted[p1 + i]) for i in range(p2 - p1)
            ]
        else:  # replace: pair lines up, then the rest is missing or extra
            paired = min(e2 - e1, p2 - p1)
            lines += [
                LineComparison("wrong", e1 + i + 1, expected[e1 + i], predicted[p1 + i])
                for i in range(paired)
            ]
            lines += [
                LineComparison("missing", e1 + i + 1, expected[e1 + i], None)
                for i in range(paired, e2 - e1)
            ]
            lines += [
                LineComparison("extra", e2 + 1, None, predicted[p1 + i])
                for i in range(paired, p2 - p1)
            ]
    lines = _moved_lines(lines)
    matched = [line for line in lines if line.kind == "match"]
    # A match carries its text as `expected`; show it on both sides.
    lines = [
        LineComparison("match", line.number, line.expected, line.expected)
        if line in matched
        else line
        for line in lines
    ]
    if error is not None:
        lines = [
            replace(line, error=True)
            if line.kind != "extra" and line.number == len(expected)
            else line
            for line in lines
        ]
    slips = [] if expected == predicted else _slips(expected, predicted, lines)
    slips += _error_slips(expected, predicted, error)
    return PredictionComparison(lines=lines, slips=slips, predicted=predicted)


def _moved_lines(lines: list[LineComparison]) -> list[LineComparison]:
    """A line the learner predicted, but in another place, is one line "moved", not one
    missing here and one extra there (two swapped lines read as the slip they are)."""
    wanted = [
        (i, line.expected) for i, line in enumerate(lines) if line.kind in ("missing", "wrong")
    ]
    offered = [
        (i, line.predicted) for i, line in enumerate(lines) if line.kind in ("extra", "wrong")
    ]
    moved: set[int] = set()  # lines whose expected text the learner put elsewhere
    used: set[int] = set()  # lines whose predicted text is that elsewhere
    for i, text in wanted:
        j = next((j for j, said in offered if j != i and j not in used and said == text), None)
        if j is not None:
            moved.add(i)
            used.add(j)
    if not moved:
        return lines
    result = []
    for i, line in enumerate(lines):
        if line.kind == "extra":
            result += [] if i in used else [line]
        elif line.kind == "missing":
            result.append(
                replace(line, kind="moved", predicted=line.expected) if i in moved else line
            )
        elif line.kind == "wrong":
            if i in moved:
                result.append(replace(line, kind="moved", predicted=line.expected))
                if i not in used:  # what was said here belongs nowhere
                    result.append(LineComparison("extra", line.number + 1, None, line.predicted))
            elif i in used:
                result.append(replace(line, kind="missing", predicted=None))
            else:
                result.append(line)
        else:
            result.append(line)
    return result


_LOOKS_LIKE_AN_ERROR = re.compile(
    r"^\s*(Traceback \(most recent call last\)|[A-Z]\w*(Error|Exception)\b)"
)


def _error_slips(
    expected: list[str], predicted: list[str], error: RaisedException | None
) -> list[str]:
    if error is not None and (not predicted or predicted[-1] != error.line):
        if not any(error.is_named_by(line) for line in predicted):
            return [
                _(
                    "It stops with an error: end your prediction with the error's name "
                    "(`%(error)s`), on a line of its own."
                )
                % {"error": error.short_name}
            ]
        return []
    if error is None and predicted and _LOOKS_LIKE_AN_ERROR.match(predicted[-1]):
        return [_("It doesn't stop with an error: it runs to the end.")]
    return []


@dataclass(frozen=True)
class OrderingResult:
    solved: bool
    # Keys of the lines in order with each other (in the solution's order, or each after the
    # lines it needs): not necessarily at their exact place.
    in_order: list[str]
    first_wrong: str | None  # key of the line to move next (None: a line is missing, or solved)
    message: str


def _first_wrong_message(first_wrong: str | None, texts: Mapping[str, str]) -> str:
    if first_wrong is None:
        return _("Some lines are still missing from your answer.")
    return _("Move “%(line)s” next: it is not in its place yet.") % {
        "line": texts[first_wrong].strip()
    }


def lines_in_order(submitted: Sequence[str], correct: Sequence[str]) -> list[str]:
    """The most lines of the answer that already come in the solution's order, as a learner
    counts them: a line is in order when it is in order with the others, wherever they are
    (a longest common subsequence). Moving a line that does not belong out of the answer, or
    any line to where it belongs, never lowers the count. Of several such sets, the one that
    keeps the solution's first lines, as a learner builds a program from the top."""
    n, m = len(submitted), len(correct)
    longest = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            longest[i][j] = (
                longest[i + 1][j + 1] + 1
                if submitted[i] == correct[j]
                else max(longest[i + 1][j], longest[i][j + 1])
            )
    kept, i, j = [], 0, 0
    while i < n and j < m:
        if submitted[i] == correct[j]:
            kept.append(submitted[i])
            i, j = i + 1, j + 1
        elif longest[i + 1][j] >= longest[i][j + 1]:
            i += 1
        else:
            j += 1
    return kept


def grade_exact(
    submitted: Sequence[str], correct: Sequence[str], texts: Mapping[str, str]
) -> OrderingResult:
    in_order = lines_in_order(submitted, correct)
    kept = set(in_order)
    first_wrong = next((key for key in submitted if key not in kept), None)
    solved = list(submitted) == list(correct)
    if solved:
        message = _("Solved: every line is in its place.")
    elif first_wrong is not None and first_wrong not in set(correct):
        message = _("“%(line)s” doesn't belong in this program.") % {
            "line": texts[first_wrong].strip()
        }
    else:
        message = _first_wrong_message(first_wrong, texts)
    return OrderingResult(solved, in_order, None if solved else first_wrong, message)


def grade_dependencies(
    submitted: Sequence[str],
    required: Sequence[str],
    depends_on: Mapping[str, Sequence[str]],
    texts: Mapping[str, str],
) -> OrderingResult:
    """Any order is right when every line comes after the lines it depends on."""
    required_set = set(required)
    seen: set[str] = set()
    in_order: list[str] = []
    first_wrong = None
    for key in submitted:
        # In order wherever it is, as long as what it needs is above it.
        ok = key in required_set and all(dep in seen for dep in depends_on.get(key, ()))
        if ok:
            in_order.append(key)
        elif first_wrong is None:
            first_wrong = key
        seen.add(key)
    solved = (
        first_wrong is None and set(submitted) == required_set and len(submitted) == len(required)
    )
    if solved:
        message = _("Solved: every line comes after the lines it needs.")
    elif first_wrong is not None and first_wrong not in required_set:
        message = _("“%(line)s” doesn't belong in this answer.") % {
            "line": texts[first_wrong].strip()
        }
    elif first_wrong is not None:
        message = _(
            "“%(line)s” needs a line that comes after it. Move what it depends on above it."
        ) % {"line": texts[first_wrong].strip()}
    else:
        message = _first_wrong_message(None, texts)
    return OrderingResult(solved, in_order, first_wrong, message)


def assemble_program(submitted: Sequence[str], texts: Mapping[str, str]) -> str:
    return "\n".join(texts[key] for key in submitted) + "\n"


def outputs_match(actual: str, expected: str) -> bool:
    return output_lines(actual) == output_lines(expected)
