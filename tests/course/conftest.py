"""A kind made for the tests: one with named values kept on the Block row."""

import pytest

from course import kinds


class _OneRightOption(kinds.BlockKind):
    def check(self, reading, values):
        right = [option for option in values["options"] if option["right"]]
        if len(right) != 1:
            reading.error(None, f"exactly one option must be right, not {len(right)}")


@pytest.fixture
def quiz_kind():
    """A kind with named values (a boolean, a choice) and a rule across fields, kept on
    the Block row with no code of its own for storing them."""
    from course.kinds.fields import Boolean, Choice, Items, Text

    kind = _OneRightOption(
        name="quiz",
        label="Quiz",
        template="course/blocks/prose.html",
        fields=(
            *kinds.common_fields(),
            Items(
                "options",
                required=True,
                item="option",
                fields=(Text("text", required=True), Boolean("right")),
            ),
            Boolean(
                "shuffle",
                fallback=True,
                verbose_name="Shuffle the options",
                help_text="Each learner sees them in an order of their own.",
            ),
            Choice("layout", options=("list", "grid"), help_text="How the options are laid out."),
        ),
        example={"options": [{"text": "Yes", "right": True}, {"text": "No"}], "layout": "grid"},
        wrong_examples=(
            (
                {"options": [{"text": "Yes", "right": True}, {"text": "No", "right": True}]},
                "exactly one option must be right, not 2",
            ),
            ({"layout": "table"}, "unknown layout 'table' (one of: list, grid)"),
            ({"shuffle": "yes"}, "'shuffle' must be true or false, not text"),
        ),
    )
    kinds.register(kind)
    yield kind
    del kinds._kinds["quiz"]
