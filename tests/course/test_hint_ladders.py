"""A hint ladder in the content files: read, kept on the block, written back; a hint that
gives the whole answer away is refused with the file, the line, the block and the hint."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course import kinds
from course.content_files.errors import ContentErrors
from course.content_files.exporter import export_content
from course.content_files.importer import import_content
from course.content_files.reader import read_content
from course.models import Block

pytestmark = pytest.mark.django_db

LESSON = """\
title: Lesson
blocks:
{blocks}
"""

CODE = """\
  - kind: code_exercise
    key: halves
    body: Write half(n).
    solution: |
      def half(n):
          return n // 2
    tests:
      - key: four
        name: halves 4
        check: assert half(4) == 2
    hints:
      - Start with `def half(n):`.
      - {hint}
"""

ORDERING = """\
  - kind: ordering
    key: order-me
    lines:
      - key: a
        text: x = 1
      - key: b
        text: print(x)
    hints:
      - {hint}
"""

CHOICE = """\
  - kind: choice
    key: which
    body: Which runs well on a CPU?
    options:
      - key: cpp
        text: llama.cpp
        right: true
      - key: vllm
        text: vLLM
    hints:
      - {hint}
"""

NUMBER = """\
  - kind: number
    key: memory
    body: How many GB at 4 bits?
    answer: 4
    hints:
      - {hint}
"""

BLANKS = """\
  - kind: blanks
    key: fill
    text: "Quantising to {{{{bits}}}} bits"
    blanks:
      - key: bits
        answers: ["8", eight]
    hints:
      - {hint}
"""


def write(root: Path, blocks: str) -> Path:
    (root / "one").mkdir(parents=True)
    (root / "glossary.yaml").write_text("terms: []\n")
    (root / "one" / "course.yaml").write_text("title: One\nlessons: [lesson]\n")
    (root / "one" / "lesson.yaml").write_text(LESSON.format(blocks=blocks))
    return root


def errors(tmp_path, blocks: str) -> list[str]:
    with pytest.raises(ContentErrors) as refused:
        read_content(write(tmp_path, blocks))
    return [str(error) for error in refused.value.errors]


def test_hints_are_read_kept_on_the_block_and_written_back(tmp_path):
    import_content(read_content(write(tmp_path / "in", CODE.format(hint="Halve with `//`."))))
    block = Block.objects.get(key="halves")
    assert block.values["hints"] == ["Start with `def half(n):`.", "Halve with `//`."]
    assert kinds.get("code_exercise").values_of(block)["hints"] == block.values["hints"]
    export_content(tmp_path / "out")
    written = (tmp_path / "out" / "one" / "lesson.yaml").read_text()
    assert "hints:\n" in written and "Halve with `//`." in written
    import_content(read_content(tmp_path / "out"))
    assert Block.objects.get(key="halves").values["hints"] == block.values["hints"]


@pytest.mark.parametrize(("template", "hint", "said"), [
    (CODE, "Here it is - def half(n): return n // 2", "hint 2 of exercise 'halves' gives the answer away: it contains the solution"),
    (ORDERING, "Like this: `x = 1` `print(x)`", "hint 1 of ordering exercise 'order-me' gives the answer away: it contains every line of the solution, in order"),
    (CHOICE, "It is llama.cpp, of course", "hint 1 of question 'which' gives the answer away: it contains the right option's text 'llama.cpp'"),
    (NUMBER, "Half of 8 is 4", "hint 1 of question 'memory' gives the answer away: it contains the answer 4"),
    (BLANKS, "Write eight", "hint 1 of question 'fill' gives the answer away: it contains the answer 'eight'"),
])
def test_a_hint_that_gives_the_answer_away_is_refused_naming_file_block_and_hint(tmp_path, template, hint, said):
    [message] = errors(tmp_path, template.format(hint=json.dumps(hint)))
    assert message.startswith(str(tmp_path / "one" / "lesson.yaml"))
    assert said in message
    line = int(message.split(":")[1])
    assert json.dumps(hint) in (tmp_path / "one" / "lesson.yaml").read_text().splitlines()[line - 1]


@pytest.mark.parametrize(("template", "hint"), [
    (CODE, "Use `//`, and `return` what it gives."),
    (ORDERING, "Print comes after `x = 1`."),
    (CHOICE, "Which one is written in C++ for CPUs?"),
    (NUMBER, "Between 2 and 42: fewer bits, less memory."),
    (NUMBER, "At 4.5 bits it would be more."),
    (BLANKS, "Count the bits in a byte."),
])
def test_a_hint_that_points_at_the_answer_is_accepted(tmp_path, template, hint):
    read_content(write(tmp_path, template.format(hint=json.dumps(hint))))


@given(st.text(max_size=40), st.text(max_size=40))
def test_a_hint_holding_the_answer_with_words_around_it_always_gives_it_away(before, after):
    answer = "def half(n):\n    return n // 2"
    assert kinds.gives_away(f"{before} {answer} {after}", answer)


def test_a_hint_that_is_not_text_is_refused(tmp_path):
    messages = errors(tmp_path, CODE.format(hint="[1, 2]").replace("- [1, 2]", "- 12"))
    assert any("each hint must be text, not a number" in message for message in messages)
