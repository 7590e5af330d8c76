from hypothesis import assume, given
from hypothesis import strategies as st

from tutor.feedback import RaisedException
from tutor.grading import (
    LineComparison,
    assemble_program,
    compare_prediction,
    grade_dependencies,
    grade_exact,
    output_lines,
    outputs_match,
)

lines = st.lists(st.text(alphabet="ab 1", max_size=3), max_size=5)

SEED_OUTPUT = (
    "\nOptimising speed and memory\n"
    "llama.cpp on NVIDIA: 2.00s\nllama.cpp on CPU: 2.00s\n"
    "vllm on NVIDIA: 1.00s\nvllm on CPU: 3.00s\n"
)


def test_an_exact_prediction_is_right():
    comparison = compare_prediction(SEED_OUTPUT, SEED_OUTPUT)
    assert comparison.is_right
    assert comparison.verdict.startswith("Spot on")
    assert comparison.slips == []


def test_trailing_spaces_and_trailing_blank_lines_do_not_count():
    prediction = SEED_OUTPUT.replace("2.00s\n", "2.00s   \n") + "\n\n"
    assert compare_prediction(prediction, SEED_OUTPUT).is_right


def test_missing_the_leading_empty_line_is_named():
    comparison = compare_prediction(SEED_OUTPUT.lstrip("\n"), SEED_OUTPUT)
    assert not comparison.is_right
    assert comparison.lines[0].kind == "missing"
    assert comparison.lines[0].expected == ""
    assert any("starts with an empty line" in slip for slip in comparison.slips)


def test_wrong_lines_show_expected_and_predicted():
    prediction = SEED_OUTPUT.replace("vllm on CPU: 3.00s", "vllm on CPU: 1.00s")
    comparison = compare_prediction(prediction, SEED_OUTPUT)
    wrong = [line for line in comparison.lines if line.kind == "wrong"]
    assert [(w.number, w.expected, w.predicted) for w in wrong] == [
        (6, "vllm on CPU: 3.00s", "vllm on CPU: 1.00s")
    ]
    assert comparison.verdict == "Not quite: 5 of 6 lines right, 1 different."


def test_extra_and_missing_lines_are_counted():
    comparison = compare_prediction("a\nb\nextra\n", "a\nb\nc\nd\n")
    assert comparison.counts == {"match": 2, "wrong": 1, "moved": 0, "missing": 1, "extra": 0}
    comparison = compare_prediction("a\nb\nc\n", "a\nb\n")
    assert comparison.counts["extra"] == 1
    assert "1 extra" in comparison.verdict


def test_number_formatting_slip_quotes_what_was_printed_and_what_was_typed():
    comparison = compare_prediction("x: 2.0s\n", "x: 2.00s\n")
    assert comparison.slips == [
        "Check how numbers are formatted: it prints `2.00` where you wrote `2.0`"
        " — a format such as `%.2f` always prints 2 decimals."
    ]
    comparison = compare_prediction("x: 2.0\n", "x: 2\n")
    assert comparison.slips == [
        "Check how numbers are formatted: it prints `2` where you wrote `2.0`."
    ]


def test_a_different_number_is_not_called_a_formatting_slip():
    assert compare_prediction("x: 2.0 and 3\n", "x: 2.00 and 4\n").slips == []


@given(
    whole=st.integers(-(10**6), 10**6),
    digits=st.text("0123456789", max_size=3).map(lambda text: text.rstrip("0")),
    printed_zeros=st.integers(0, 3),
    said_zeros=st.integers(0, 3),
)
def test_a_formatting_slip_names_the_numbers_as_they_were_written(
    whole, digits, printed_zeros, said_zeros
):
    def written(zeros: int) -> str:  # the same number, with `zeros` more zeros after the point
        decimals = digits + "0" * zeros
        return f"{whole}.{decimals}" if decimals else str(whole)

    printed, said = written(printed_zeros), written(said_zeros)
    assume(printed != said)
    slips = compare_prediction(f"total: {said}\n", f"total: {printed}\n").slips
    assert len(slips) == 1
    assert f"it prints `{printed}` where you wrote `{said}`" in slips[0]


def test_case_and_spacing_and_order_slips_are_named():
    assert any("upper or lower case" in s for s in compare_prediction("Hello\n", "hello\n").slips)
    assert any("spacing" in s for s in compare_prediction("a  b\n", "a b\n").slips)


def test_two_swapped_lines_are_right_lines_in_the_wrong_order():
    comparison = compare_prediction("b\na\n", "a\nb\n")
    assert (
        comparison.verdict
        == "Not quite: right lines, wrong order — 1 line is in a different place."
    )
    assert [(line.kind, line.expected, line.predicted) for line in comparison.lines] == [
        ("match", "a", "a"),
        ("moved", "b", "b"),
    ]


def test_a_moved_line_beside_a_wrong_one_is_named_apart():
    comparison = compare_prediction("2\n1\n3\n4\n", "1\n2\n3\n5\n")
    assert (
        comparison.verdict == "Not quite: 2 of 4 lines right, 1 different, 1 in a different place."
    )
    assert comparison.counts == {"match": 2, "wrong": 1, "moved": 1, "missing": 0, "extra": 0}


@given(st.permutations(["a", "b", "c", "d", "e"]))
def test_any_reordering_of_the_right_lines_is_only_moved_lines(order):
    comparison = compare_prediction("\n".join(order), "a\nb\nc\nd\ne\n")
    kinds = {line.kind for line in comparison.lines}
    assert kinds <= {"match", "moved"}
    assert comparison.is_right == (list(order) == ["a", "b", "c", "d", "e"])
    assert [line.expected for line in comparison.lines] == ["a", "b", "c", "d", "e"]
    if not comparison.is_right:
        assert comparison.verdict.startswith("Not quite: right lines, wrong order")


@given(lines, lines)
def test_every_output_line_is_shown_once_and_every_predicted_line_once(predicted, output):
    comparison = compare_prediction("\n".join(predicted), "\n".join(output))
    shown_expected = [line.expected for line in comparison.lines if line.kind != "extra"]
    shown_predicted = sorted(
        line.predicted for line in comparison.lines if line.predicted is not None
    )
    assert shown_expected == output_lines("\n".join(output))
    assert shown_predicted == sorted(output_lines("\n".join(predicted)))


def test_an_empty_prediction_misses_every_line():
    comparison = compare_prediction("", "a\nb\n")
    assert comparison.counts["missing"] == 2


TEXTS = {"a": "first", "b": "second", "c": "third", "x": "distractor"}


def test_exact_grading_counts_lines_in_order_with_each_other_and_points_at_the_one_to_move():
    result = grade_exact(["a", "c", "b"], ["a", "b", "c"], TEXTS)
    assert not result.solved
    assert result.in_order == ["a", "b"]
    assert result.first_wrong == "c"
    assert "Move “third” next" in result.message
    assert grade_exact(["a", "b", "c"], ["a", "b", "c"], TEXTS).solved


def test_a_line_misplaced_at_the_top_leaves_the_others_in_place():
    """Positions would say "0 of 3"; a learner sees two lines in order and one to move."""
    result = grade_exact(["c", "a", "b"], ["a", "b", "c"], TEXTS)
    assert (result.in_order, result.first_wrong) == (["a", "b"], "c")


def test_exact_grading_refuses_a_distractor_left_in():
    result = grade_exact(["a", "b", "c", "x"], ["a", "b", "c"], TEXTS)
    assert not result.solved
    assert result.in_order == ["a", "b", "c"]
    assert result.first_wrong == "x"
    assert result.message == "“distractor” doesn't belong in this program."


def test_a_line_left_out_is_missing_without_naming_it():
    result = grade_exact(["a", "c"], ["a", "b", "c"], TEXTS)
    assert (result.in_order, result.first_wrong) == (["a", "c"], None)
    assert result.message == "Some lines are still missing from your answer."


ORDERS = st.permutations(["a", "b", "c", "d", "e", "f", "x", "y"]).flatmap(
    lambda keys: st.integers(min_value=0, max_value=len(keys)).map(lambda n: keys[:n])
)
SOLUTION = ["a", "b", "c", "d", "e", "f"]
MANY = {key: key for key in [*SOLUTION, "x", "y"]}


@given(ORDERS)
def test_the_count_is_the_lines_in_order_with_the_solution(submitted):
    result = grade_exact(submitted, SOLUTION, MANY)
    kept = result.in_order
    # In the answer's order, and in the solution's.
    assert kept == [key for key in submitted if key in kept]
    assert kept == [key for key in SOLUTION if key in kept]
    assert result.solved == (submitted == SOLUTION)
    # The line to move is in the answer and not counted; none only when a line is missing.
    if not result.solved:
        assert result.first_wrong is None or (
            result.first_wrong in submitted and result.first_wrong not in kept
        )
        assert result.first_wrong is not None or len(kept) == len(submitted) < len(SOLUTION)


@given(ORDERS)
def test_taking_out_a_line_that_does_not_belong_never_lowers_the_count(submitted):
    before = len(grade_exact(submitted, SOLUTION, MANY).in_order)
    for distractor in ("x", "y"):
        without = [key for key in submitted if key != distractor]
        assert len(grade_exact(without, SOLUTION, MANY).in_order) == before


@given(ORDERS)
def test_moving_the_line_pointed_at_to_where_it_belongs_raises_the_count(submitted):
    result = grade_exact(submitted, SOLUTION, MANY)
    assume(result.first_wrong in SOLUTION)
    line = result.first_wrong
    rest = [key for key in submitted if key != line]
    # Where it belongs: just after the last counted line that comes before it in the solution.
    before = [key for key in result.in_order if SOLUTION.index(key) < SOLUTION.index(line)]
    at = rest.index(before[-1]) + 1 if before else 0
    moved = rest[:at] + [line] + rest[at:]
    assert len(grade_exact(moved, SOLUTION, MANY).in_order) == len(result.in_order) + 1


def test_dependency_grading_accepts_every_order_that_respects_dependencies():
    depends_on = {"c": ["a", "b"]}
    assert grade_dependencies(["a", "b", "c"], ["a", "b", "c"], depends_on, TEXTS).solved
    assert grade_dependencies(["b", "a", "c"], ["a", "b", "c"], depends_on, TEXTS).solved
    result = grade_dependencies(["a", "c", "b"], ["a", "b", "c"], depends_on, TEXTS)
    assert not result.solved
    assert result.first_wrong == "c"
    assert result.in_order == ["a", "b"]  # b needs nothing: it is in order wherever it is


def test_dependency_grading_refuses_distractors_and_missing_lines():
    assert not grade_dependencies(["a", "b", "x", "c"], ["a", "b", "c"], {}, TEXTS).solved
    assert not grade_dependencies(["a", "b"], ["a", "b", "c"], {}, TEXTS).solved


def test_assembled_program_and_output_match():
    texts = {"p": "print('hi')", "q": "print('there')"}
    assert assemble_program(["q", "p"], texts) == "print('there')\nprint('hi')\n"
    assert outputs_match("hi\nthere  \n\n", "hi\nthere\n")
    assert not outputs_match("\nhi\n", "hi\n")


# --- A program that fails on purpose -------------------------------------------------------

ZERO = RaisedException(name="ZeroDivisionError", line="ZeroDivisionError: division by zero")


def test_a_prediction_ending_with_the_errors_name_is_right():
    for last in (
        "ZeroDivisionError",
        "ZeroDivisionError: division by zero",
        "ZeroDivisionError: oops",
    ):
        comparison = compare_prediction(f"1\n2\n\n{last}\n", "1\n2\n", error=ZERO)
        assert comparison.is_right, last
        assert comparison.lines[-1] == LineComparison("match", 3, ZERO.line, ZERO.line, error=True)


def test_a_prediction_without_the_error_misses_it_and_is_told_why():
    comparison = compare_prediction("1\n2\n", "1\n2\n", error=ZERO)
    assert not comparison.is_right
    assert comparison.lines[-1] == LineComparison("missing", 3, ZERO.line, None, error=True)
    assert comparison.slips == [
        "It stops with an error: end your prediction with the error's name "
        "(`ZeroDivisionError`), on a line of its own."
    ]


def test_the_wrong_error_is_a_wrong_line():
    comparison = compare_prediction("1\nValueError\n", "1\n", error=ZERO)
    assert not comparison.is_right
    assert comparison.lines[-1] == LineComparison("wrong", 2, ZERO.line, "ValueError", error=True)


def test_predicting_an_error_for_a_program_that_finishes_is_told():
    comparison = compare_prediction("1\nZeroDivisionError\n", "1\n")
    assert not comparison.is_right
    assert "It doesn't stop with an error: it runs to the end." in comparison.slips


exception_names = st.from_regex(r"[A-Z][A-Za-z]{0,12}(Error|Exception)", fullmatch=True)
printed = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=20), max_size=6)


# The traceback's last line: one line (tutor.feedback reads nothing else as the error).
one_line = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=20
)


@given(lines=printed, name=exception_names, message=one_line, with_message=st.booleans())
def test_any_output_then_the_errors_name_is_right(lines, name, message, with_message):
    output = "".join(line.replace("\n", " ").replace("\r", " ") + "\n" for line in lines)
    error = RaisedException(
        name=name, line=f"{name}: {message}".rstrip() if message.strip() else name
    )
    last = error.line if with_message else name
    assert compare_prediction(output + last + "\n", output, error=error).is_right
    assert not compare_prediction(output, output, error=error).is_right
