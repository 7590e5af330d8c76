"""Fill in the blanks in code: a program with blanks marked `{{name}}` (as the text blanks
of blanks.py are), the output the filled program must print (`expected_output`) or the
tests it must pass (`tests`, written as a code exercise's: code_exercise.py), and for
each blank the author's `solution` (and optionally more `answers` graded at once, without
running anything). A learner's fills are read like text blanks (one line, NFC, at most
MAX_ANSWER_CHARS), put into the program, and the program is run in the sandbox by the
worker: it is right when it prints the expected output (compared as ordering exercises
compare theirs), or passes every test (graded as a code exercise's submission).
`manage.py check_content` runs the solution and refuses a question whose solution prints
something else or fails a test. The learner's side is in tutor/practice/questions/.
"""

from django.utils.translation import gettext_lazy

from course.kinds import register
from course.kinds.blanks import BLANK, MAX_ANSWER_CHARS, blank_names
from course.kinds.code_exercise import check_tests, tests_field
from course.kinds.fields import Items, Slug, Text, TextList
from course.kinds.questions import (
    Lines,
    QuestionKind,
    question_hints,
    question_title,
    question_topics,
    tries_field,
    unique_keys,
)


def filled(code: str, fills: dict[str, str]) -> str:
    """The program with each blank replaced by its fill (an empty fill for one not given)."""
    return BLANK.sub(lambda match: fills.get(match.group(1), ""), code)


def solution_fills(values: dict) -> dict[str, str]:
    return {blank["key"]: blank.get("solution", "") for blank in values["blanks"]}


def accepted(blank: dict) -> list[str]:
    """What a blank takes without running the program: its solution and its answers."""
    return [blank.get("solution", ""), *blank.get("answers", [])]


class CodeBlanksKind(QuestionKind):
    def give_aways(self, values) -> list[tuple[str, str]]:
        away = [("the program with its blanks filled", filled(values["code"], solution_fills(values)))]
        for blank in values["blanks"]:
            for answer in accepted(blank):
                if len(answer.strip()) > 2:
                    away.append((f"the fill '{answer}'", answer))
        return away

    def check(self, reading, values, lines: Lines = lambda name: None) -> None:
        super().check(reading, values, lines)
        tests = values.get("tests") or []
        check_tests(reading, tests)
        if tests and values.get("expected_output"):
            reading.error(
                lines("tests"),
                "give 'expected_output' or 'tests', not both: the filled program is graded by one of them",
            )
        elif not tests and not (values.get("expected_output") or "").strip():
            reading.error(
                lines("expected_output"),
                "the question needs 'expected_output' (what the filled program prints) or 'tests' "
                "(what it must pass)",
            )
        blanks = values["blanks"]
        unique_keys(reading, blanks, "blank")
        named = blank_names(values["code"])
        declared = {blank["key"] for blank in blanks if blank.get("key")}
        for name in dict.fromkeys(named):
            if name not in declared:
                reading.error(lines("code"), f"the code's blank '{{{{{name}}}}}' is not one of 'blanks': add it there")
        if len(named) != len(set(named)):
            reading.error(lines("code"), "a blank appears twice in the code: give each a name of its own")
        if values["code"] and not named:
            reading.error(lines("code"), "the code has no blank: mark one as {{name}}")
        for blank in blanks:
            if blank.get("key") and blank["key"] not in named:
                reading.error(
                    blank.line_of("key"), f"blank '{blank['key']}' is not in the code: add {{{{{blank['key']}}}}} there"
                )
            for answer in accepted(blank):
                if "\n" in answer or "\r" in answer:
                    reading.error(blank.line_of("solution"), f"blank '{blank.get('key')}': a fill is one line")
                elif len(answer) > MAX_ANSWER_CHARS:
                    reading.error(
                        blank.line_of("solution"),
                        f"blank '{blank.get('key')}': a fill is at most {MAX_ANSWER_CHARS} characters",
                    )


CODE_BLANKS = register(
    CodeBlanksKind(
        name="code_blanks",
        label=gettext_lazy("Fill in the blanks in code"),
        template="course/blocks/question.html",
        fields=(
            question_title(),
            Text("body", markdown=True, help_text="Markdown: what to do, above the program."),
            Text(
                "code", required=True, quoted=False,
                help_text="The program with its blanks, each written {{name}} where the learner "
                "types one line's worth of code.",
            ),
            Text(
                "expected_output", quoted=False,
                help_text="What the filled program must print (shown to the learner: it is the task). "
                "Leave it empty when the question has tests instead.",
            ),
            tests_field(
                required=False,
                help_text='In JSON, as a code exercise\'s tests: a list, each with "key", "name", "shown" '
                '("visible" or "hidden"), and either "check" (asserts run after the filled program) or '
                '"stdout" (with "stdin" and "args" if it needs them). The filled program is right when '
                "it passes every test; instead of 'expected_output'.",
            ),
            Items(
                "blanks",
                required=True,
                item="blank",
                fields=(
                    Slug("key", required=True, label="blank name"),
                    Text("solution", required=True, help_text="The author's fill; never shown before earned."),
                    TextList("answers", item="answer"),
                ),
                help_text='In JSON: a list of blanks, each with "key" (its name in the code), '
                '"solution" (the fill that prints the expected output) and optionally "answers" '
                "(more fills marked right at once, without running the program).",
            ),
            tries_field(3),
            question_hints(),
            question_topics(),
        ),
        items_field="blanks",
        needs_key=True,
        noun="question",
        example={
            "code": "sizes = {'7b': 7, '13b': 13}\nprint(sizes[{{key}}] * 2)",
            "expected_output": "26\n",
            "blanks": [{"key": "key", "solution": "'13b'", "answers": ['"13b"']}],
        },
        wrong_examples=(
            (
                {"code": "print({{value}})"},
                "the code's blank '{{value}}' is not one of 'blanks': add it there",
            ),
            ({"code": "print(26)"}, "the code has no blank: mark one as {{name}}"),
            (
                {"tests": [{"key": "twice", "name": "gives twice", "check": "assert 2 + 2 == 4"}]},
                "give 'expected_output' or 'tests', not both",
            ),
            ({"expected_output": ""}, "the question needs 'expected_output' (what the filled program prints) or 'tests'"),
        ),
    )
)
