"""Grading a question: pure functions of the question's values (as the content files hold
them, `BlockKind.values_of`) and the learner's answer (as `answers.read_answer` normalised
it). No query, no clock: the same answer to the same question always gets the same grade.

An answer is, by kind:
- choice: a list of one option key;
- checkboxes: a list of the option keys ticked;
- number: {"text": what was typed, "value": the number read from it};
- blanks: {blank name: what was typed};
- code_blanks: {"fills": {blank name: what was typed}, "status": the run's status,
  "output": what the filled program printed} (status and output empty when every fill was
  one the question accepts at once, so no program ran); graded by tests, "status" is the
  grading's, "passed" whether every test passed, "output" what the failed tests found.
"""

from dataclasses import dataclass, field

from course.kinds.blanks import accepts, normalised
from course.kinds.code_blanks import accepted
from course.kinds.number import within
from tutor.grading import outputs_match


@dataclass(frozen=True)
class Graded:
    score: float  # 0 to 1
    right: bool
    feedback: tuple[str, ...] = ()  # Markdown the author wrote for this answer
    # What each part of the answer was: an option key or a blank name -> right or not.
    parts: dict[str, bool] = field(default_factory=dict)
    group: tuple = ()  # the answer, normalised, for grouping wrong answers alike


def right_keys(values: dict) -> list[str]:
    return [option["key"] for option in values["options"] if option.get("right")]


def _feedback_of(values: dict, keys) -> tuple[str, ...]:
    chosen = set(keys)
    return tuple(
        option["feedback"]
        for option in values["options"]
        if option["key"] in chosen and option.get("feedback")
    )


def grade_choice(values: dict, answer: list[str]) -> Graded:
    right = set(right_keys(values))
    chosen = answer[0] if answer else ""
    ok = chosen in right
    return Graded(
        1.0 if ok else 0.0, ok, _feedback_of(values, [chosen]), {chosen: ok}, (chosen,)
    )


def checkbox_score(scoring: str, *, right: set[str], wrong: set[str], ticked: set[str]) -> float:
    """The checkboxes' partial credit, by the question's stated rule."""
    if scoring == "all-or-nothing":
        return 1.0 if ticked == right else 0.0
    if scoring == "each-option":
        judged = len(ticked & right) + len(wrong - ticked)
        return judged / (len(right) + len(wrong))
    # right-minus-wrong: ticking every option scores 0, ticking none scores 0.
    earned = len(ticked & right) / len(right) if right else 0.0
    lost = len(ticked & wrong) / len(wrong) if wrong else 0.0
    return max(0.0, earned - lost)


def grade_checkboxes(values: dict, answer: list[str]) -> Graded:
    keys = [option["key"] for option in values["options"]]
    right = set(right_keys(values))
    ticked = set(answer) & set(keys)
    score = checkbox_score(
        values.get("scoring") or "right-minus-wrong",
        right=right, wrong=set(keys) - right, ticked=ticked,
    )
    return Graded(
        round(score, 6),
        ticked == right,
        _feedback_of(values, ticked),
        {key: key in right for key in keys if key in ticked},
        tuple(sorted(ticked)),
    )


def grade_number(values: dict, answer: dict, *, expected: float | None = None) -> Graded:
    """`expected`: the variant's answer, when the question computes it (else the file's)."""
    expected = values["answer"] if expected is None else expected
    given = answer["value"]
    tolerance = {"tolerance": values.get("tolerance") or 0,
                 "relative": values.get("relative_tolerance") or 0}
    ok = within(given, expected, **tolerance)
    feedback: tuple[str, ...] = ()
    if not ok:
        feedback = tuple(
            mistake["feedback"]
            for mistake in values.get("mistakes", [])
            if within(given, mistake["answer"], **tolerance)
        )[:1]
    return Graded(1.0 if ok else 0.0, ok, feedback, {}, (f"{given:.12g}",))


def grade_blanks(values: dict, answer: dict) -> Graded:
    spaces = values.get("spaces") or "collapse"
    parts = {
        blank["key"]: accepts(blank, answer.get(blank["key"], ""), spaces=spaces)
        for blank in values["blanks"]
    }
    score = sum(parts.values()) / len(parts) if parts else 0.0
    group = tuple(
        (key, normalised(answer.get(key, ""), spaces=spaces, case_sensitive=False))
        for key, ok in parts.items()
        if not ok
    )
    return Graded(round(score, 6), all(parts.values()), (), parts, group)


def accepted_at_once(values: dict, fills: dict) -> dict[str, bool]:
    """Each blank: whether its fill is the solution or one of its answers (spaces at the
    ends aside), which is right without running the program."""
    return {
        blank["key"]: fills.get(blank["key"], "").strip() in {a.strip() for a in accepted(blank)}
        for blank in values["blanks"]
    }


def grade_code_blanks(values: dict, answer: dict) -> Graded:
    fills = answer.get("fills", {})
    at_once = accepted_at_once(values, fills)
    if all(at_once.values()):
        ok = True
    elif values.get("tests"):  # graded by its tests in the worker (code_runs.answer_from)
        ok = answer.get("passed") is True
    else:
        ok = answer.get("status") == "ok" and outputs_match(answer.get("output") or "", values["expected_output"])
    group = () if ok else tuple((blank["key"], " ".join(fills.get(blank["key"], "").split())) for blank in values["blanks"])
    parts = {key: True for key in at_once} if ok else {}
    return Graded(1.0 if ok else 0.0, ok, (), parts, group)


GRADERS = {
    "choice": grade_choice,
    "checkboxes": grade_checkboxes,
    "number": grade_number,
    "blanks": grade_blanks,
    "code_blanks": grade_code_blanks,
}


def grade(kind: str, values: dict, answer) -> Graded:
    return GRADERS[kind](values, answer)
