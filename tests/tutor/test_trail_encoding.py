"""The trail's encoding: replaying what was recorded rebuilds every text the learner had."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutor.trail import encoding
from tutor.trail.encoding import Step

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)


@given(old=texts, new=texts)
def test_the_splice_between_two_texts_turns_one_into_the_other(old, new):
    pos, delete, insert = encoding.splice_between(old, new)
    assert Step(0, encoding.EDIT, pos, delete, insert).apply(old) == new


@given(
    start=texts,
    drafts=st.lists(texts, max_size=12),
    kinds=st.lists(st.sampled_from(encoding.CHANGES), max_size=12),
)
def test_replaying_the_recorded_steps_rebuilds_each_draft_exactly(start, drafts, kinds):
    steps, text = [], start
    for n, draft in enumerate(drafts):
        kind = kinds[n] if n < len(kinds) else encoding.EDIT
        steps.append(Step(n * 100, kind, *encoding.splice_between(text, draft)))
        steps.append(Step(n * 100 + 1, encoding.RUN))  # moments change nothing
        text = draft
    kept = encoding.decode(encoding.encode(steps))
    assert kept == steps
    rebuilt = start
    for n, draft in enumerate(drafts):
        rebuilt = encoding.replay(rebuilt, kept[2 * n : 2 * n + 2])
        assert rebuilt == draft


def test_an_edit_outside_the_text_is_refused():
    with pytest.raises(encoding.BadSteps):
        Step(0, encoding.EDIT, 5, 0, "x").apply("abc")
    with pytest.raises(encoding.BadSteps):
        Step(0, encoding.EDIT, 1, 3, "").apply("abc")


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "{",
        "{}",
        "[[1]]",
        '[[1,"x",0,0,""]]',
        '[[-1,"e",0,0,""]]',
        '[[1,"e",-2,0,""]]',
        '[[1,"e",0,0,3]]',
        '[[true,"e",0,0,""]]',
    ],
)
def test_a_batch_not_of_the_right_shape_is_refused(raw):
    with pytest.raises(encoding.BadSteps):
        encoding.parse_batch(raw)


def test_a_paste_is_marked_from_more_than_a_line():
    from tutor.trail import pastes

    def marked(kind, insert):
        marks = []
        step = Step(0, kind, 0, 0, insert)
        pastes.judge([pastes.Insertion.of(1, 0, step, None)], recent=[], marks=marks)
        return bool(marks)

    assert not marked(encoding.PASTE, "x = 1")
    assert marked(encoding.PASTE, "x = 1\ny = 2\n")
    assert marked(encoding.PASTE, "x" * encoding.PASTE_MIN_CHARS)
    assert not marked(encoding.EDIT, "x = 1\ny = 2\n")
