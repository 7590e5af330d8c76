"""How each practice kind groups wrong answers: equal normalised answers share a group,
different mistakes do not, and what a group says reads as a teacher would say it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutor.grading import compare_prediction
from tutor.practice.code_exercise.clusters import submission_group
from tutor.practice.ordering.clusters import arrangement_group
from tutor.practice.snippet.clusters import prediction_group

lines = st.lists(st.text(alphabet="ab 1\t", max_size=6), max_size=5)


def group_of(prediction: str, output: str):
    return prediction_group(compare_prediction(prediction, output))


def test_a_wrong_line_is_described_with_both_values():
    group = group_of("4\n8\n", "4\n16\n")
    assert group.description == "`8` instead of `16` on line 2"
    assert group.answer == "4\n8"


def test_missing_and_extra_lines_are_named():
    assert group_of("4\n", "4\n16\n").description == "Leaves out line 2, `16`"
    assert "Adds `hi`" in group_of("hi\n4\n", "4\n").description


def test_swapped_lines_are_described_as_put_in_another_place():
    group = group_of("16\n4\n", "4\n16\n")
    assert group.description == "Puts line 2, `16`, in another place"
    assert group.answer == "16\n4"


def test_different_mistakes_are_different_groups():
    assert group_of("4\n8\n", "4\n16\n").key != group_of("4\n9\n", "4\n16\n").key
    assert group_of("8\n4\n", "4\n16\n").key != group_of("4\n8\n", "4\n16\n").key


@given(
    lines,
    lines,
    st.lists(st.sampled_from([" ", "  ", "\t"]), min_size=5, max_size=5),
    st.booleans(),
)
def test_trailing_whitespace_never_splits_a_group(predicted, output, spaces, windows):
    plain = "\n".join(predicted)
    padded = "\n".join(line + pad for line, pad in zip(predicted, spaces * 2, strict=False))
    if windows:
        padded = padded.replace("\n", "\r\n")
    padded += "\n\n"
    out = "\n".join(output)
    assert group_of(plain, out).key == group_of(padded, out).key


@given(lines, lines, lines)
def test_equal_keys_mean_equal_normalised_predictions(first, second, output):
    out = "\n".join(output)
    a, b = group_of("\n".join(first), out), group_of("\n".join(second), out)
    if a.key == b.key:
        assert a.answer == b.answer
    assert (a.answer == b.answer) <= (a.key == b.key)


TEXTS = {
    "a": "total = 0",
    "b": "for n in nums:",
    "c": "    total += n",
    "d": "return total",
    "x": "print(n)",
}
CORRECT = ["a", "b", "c", "d"]


def test_a_line_out_of_place_is_named_with_the_line_it_comes_before():
    group = arrangement_group(["a", "d", "b", "c"], CORRECT, TEXTS)
    assert group.description == "Line `return total` placed before `for n in nums:`"


def test_left_out_and_extra_lines_are_named():
    group = arrangement_group(["a", "b", "x", "d"], CORRECT, TEXTS)
    assert group.description.startswith("Leaves out `total += n`")
    assert "uses `print(n)`, which does not belong" in group.description


@given(st.permutations(CORRECT), st.booleans())
def test_lines_that_read_the_same_are_interchangeable(order, padded):
    texts = {**TEXTS, "c2": TEXTS["c"] + ("   " if padded else "")}
    swapped = ["c2" if key == "c" else key for key in order]
    assert (
        arrangement_group(order, CORRECT, TEXTS).key
        == arrangement_group(swapped, CORRECT, texts).key
    )


def result(name, passed, kind=None):
    return {"name": name, "passed": passed, "kind": kind}


def test_submissions_group_by_failing_tests_and_kind():
    one = submission_group(
        {"results": [result("empty list", False, "wrong_value"), result("one", True)]}
    )
    two = submission_group(
        {"results": [result("one", True), result("empty list", False, "wrong_value")]}
    )
    other = submission_group(
        {"results": [result("empty list", False, "exception"), result("one", True)]}
    )
    assert one.key == two.key != other.key
    assert one.description == "Fails “empty list” (wrong value: a check's assert failed)"


@pytest.mark.parametrize("names", [["a"], ["a", "b"]])
def test_a_syntax_error_is_one_group_whatever_the_tests(names):
    group = submission_group(
        {"kind": "syntax_error", "results": [result(n, False, "syntax_error") for n in names]}
    )
    assert group.key == submission_group({"kind": "syntax_error", "results": []}).key
    assert "syntax error" in group.description


@given(
    st.permutations(["a", "b", "c", "d"]),
    st.sets(st.sampled_from(["a", "b", "c", "d"]), min_size=1),
)
def test_the_order_of_test_results_never_splits_a_group(names, failing):
    results = [
        result(name, name not in failing, None if name not in failing else "wrong_output")
        for name in names
    ]
    ordered = sorted(results, key=lambda r: r["name"])
    assert submission_group({"results": results}).key == submission_group({"results": ordered}).key
