"""Grading questions, for all inputs (Hypothesis): pure functions, no database."""

from hypothesis import given
from hypothesis import strategies as st

from course.kinds.blanks import accepts
from tutor.practice.questions.answers import read_number
from tutor.practice.questions.grading import checkbox_score, grade_checkboxes, grade_number

RULES = ["right-minus-wrong", "all-or-nothing", "each-option"]
keys = st.lists(st.sampled_from("abcdefgh"), min_size=2, max_size=8, unique=True)


@st.composite
def checkboxes(draw):
    options = draw(keys)
    right = draw(st.lists(st.sampled_from(options), min_size=1, unique=True))
    ticked = draw(st.lists(st.sampled_from(options), unique=True))
    values = {
        "options": [{"key": key, "text": key, "right": key in right} for key in options],
        "scoring": draw(st.sampled_from(RULES)),
    }
    return values, set(right), ticked


@given(checkboxes())
def test_a_checkbox_score_is_between_0_and_1_and_full_only_for_exactly_the_right_options(case):
    values, right, ticked = case
    graded = grade_checkboxes(values, ticked)
    assert 0 <= graded.score <= 1
    assert graded.right == (set(ticked) == right)
    if graded.right:
        assert graded.score == 1


@given(checkboxes())
def test_ticking_every_option_earns_nothing_by_right_minus_wrong_when_one_is_wrong(case):
    values, right, _ = case
    every = {option["key"] for option in values["options"]}
    wrong = every - right
    if wrong:
        assert checkbox_score("right-minus-wrong", right=right, wrong=wrong, ticked=every) == 0


@given(
    st.floats(-1e9, 1e9, allow_nan=False),
    st.floats(0, 100, allow_nan=False),
    st.floats(0, 0.5, allow_nan=False),
)
def test_the_answer_itself_is_always_right_and_far_numbers_never(answer, tolerance, relative):
    values = {"answer": answer, "tolerance": tolerance, "relative_tolerance": relative, "mistakes": []}
    assert grade_number(values, {"text": "", "value": answer}).right
    far = answer + 2 * max(tolerance, abs(answer) * relative) + 1
    assert not grade_number(values, {"text": "", "value": far}).right


@given(st.floats(-1e12, 1e12, allow_nan=False))
def test_a_number_as_python_writes_it_reads_back_exactly(number):
    assert read_number(repr(number)) == number
    assert read_number(f"{number} GB", units="GB") == number


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=20))
def test_a_blank_accepts_its_own_answers_however_spaced_and_cased(answer):
    if not answer.strip():
        return
    blank = {"answers": [answer]}
    assert accepts(blank, f"  {answer.upper()}  ", spaces="collapse") == (
        " ".join(answer.upper().split()).casefold() == " ".join(answer.split()).casefold()
    )
    assert accepts(blank, answer, spaces="exact")
