"""What the question kinds share: a question is a block whose body asks it, whose values
live on the Block row (no rows of its own), and which a learner answers a stated number
of `tries` (counted on the server, tutor/practice/questions/). Each kind is declared in its
own module: `choice.py` (one answer, and `checkboxes`), `number.py`, `blanks.py`.

A question kind checks itself once (`QuestionKind.check`), with the line of the field a
problem is in, for the files and the admin alike.
"""

from collections.abc import Callable
from typing import Any

from course.kinds import BlockKind, common_fields
from course.kinds.fields import Text, WholeNumber

Lines = Callable[[str], int | None]


def question_title() -> Text:
    """A title names the question for teachers (item analysis, timelines) and heads it."""
    return common_fields()[0]


def question_body() -> Text:
    return Text("body", markdown=True, required=True, help_text="Markdown: the question itself.")


def tries_field(fallback: int) -> WholeNumber:
    return WholeNumber(
        "tries",
        fallback=fallback,
        help_text="How many answers a learner may give before the right one is shown.",
    )


class QuestionKind(BlockKind):
    """A kind of question: read like any block, then checked with each field's line."""

    def read(self, reading, mapping, what: str) -> dict[str, Any]:
        values = {field.name: field.read(reading, mapping, what) for field in self.fields}
        self.check(reading, values, lines=mapping.line_of)
        return values

    def check(self, reading, values: dict[str, Any], lines: Lines = lambda name: None) -> None:
        if values.get("tries", 1) < 1:
            reading.error(lines("tries"), "'tries' must be at least 1")

    def reading_texts(self, block) -> list[str]:
        texts = [block.title, block.body]
        for item in block.items:
            if isinstance(item, dict):
                texts.append(str(item.get("text", "")))
        return texts


def unique_keys(reading, items: list, noun: str) -> None:
    """Each item's key once in the question (answers name items by key)."""
    seen: dict[str, int | None] = {}
    for item in items:
        key = item.get("key")
        if not key:
            continue
        if key in seen:
            reading.error(
                item.line_of("key"),
                f"{noun} key '{key}' is already used on line {seen[key]}: "
                "keys must be unique in a question",
            )
        else:
            seen[key] = item.line_of("key")
