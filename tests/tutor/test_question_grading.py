"""Grading questions, for all inputs (Hypothesis): pure functions, no database."""

import pytest
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from course.kinds.blanks import accepts
from tutor.practice.questions.answers import Malformed, read_number
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
    values = {
        "answer": answer,
        "tolerance": tolerance,
        "relative_tolerance": relative,
        "mistakes": [],
    }
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


@pytest.mark.parametrize("language", ["de", "es"])
@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("3,5", 3.5),
        ("3.5", 3.5),
        ("-0,25 GB", -0.25),
        ("1500", 1500.0),
        ("1 500", 1500.0),
        ("1,500", 1.5),
    ],
)
def test_where_decimals_take_a_comma_a_decimal_comma_or_point_reads(language, typed, read):
    with translation.override(language):
        assert read_number(typed, units="GB") == read


TWO_WAYS = "“{typed}” reads two ways: write 1500 for fifteen hundred, 1,5 for one and a half."
NO_SEPARATOR = "Write the number without a thousands separator, e.g. 1500 or 3,5."


@pytest.mark.parametrize("language", ["de", "es"])
@pytest.mark.parametrize(
    ("typed", "says"), [("1.500", TWO_WAYS), ("1.234,5", NO_SEPARATOR), ("1,2,3", NO_SEPARATOR)]
)
def test_where_decimals_take_a_comma_a_thousands_separator_is_refused_not_guessed(
    language, typed, says
):
    with translation.override(language):
        with pytest.raises(Malformed) as refused:
            read_number(typed)
        english = says.replace("{typed}", "%(number)s")
        assert str(refused.value) == translation.gettext(english) % {"number": typed}
        assert str(refused.value) != english % {"number": typed}  # in the page's language


def test_in_english_a_comma_separates_thousands_as_before():
    with translation.override("en"):
        assert read_number("1,500") == 1500.0
        with pytest.raises(Malformed):
            read_number("3,5")


@given(st.floats(-1e12, 1e12, allow_nan=False), st.sampled_from(["de", "es"]))
def test_a_number_with_a_decimal_comma_reads_back_exactly(number, language):
    written = repr(number).replace(".", ",")
    with translation.override(language):
        assert read_number(written) == number
