"""Fill in the blanks: a text with blanks marked `{{name}}`, each blank with the answers it
accepts (and, optionally, a regular expression any right answer matches). Case and spaces
count as the question says. The learner's side is in tutor/practice/questions/; every value
lives on the Block row (`blanks` in Block.items, the rest in Block.values).

With variants: the question declares `parameters` (as a number question does) and a
`program` instead of each blank's `answers`. The body and the text may use a parameter as
{{name}} (shown with the learner's variant's value; every other {{name}} in the text is a
blank), and the program, run in the sandbox once per variant with each parameter a
variable, prints on its last line a JSON object giving each blank its answer or a list of
the answers it accepts: `print(json.dumps({"size": str(params * bits / 8)}))`. A blank's
`pattern`, `case_sensitive` and the question's `spaces` still apply.
"""

import re

from django.utils.translation import gettext_lazy

from course.kinds import register
from course.kinds.fields import Boolean, Choice, Items, Slug, Text, TextList
from course.kinds.questions import (
    Lines,
    QuestionKind,
    check_parameters,
    question_hints,
    question_title,
    question_topics,
    tries_field,
    unique_keys,
    variant_fields,
    with_parameters,
)

BLANK = re.compile(r"\{\{\s*([^{}\s]*)\s*\}\}")
SPACES = ("collapse", "ignore", "exact")
MAX_ANSWER_CHARS = 200  # what a learner may type in one blank


def blank_names(text: str, *, parameters: tuple[str, ...] | set[str] = ()) -> list[str]:
    """The blanks' names in the text, in order; a {{name}} of a parameter is not a blank."""
    return [match.group(1) for match in BLANK.finditer(text) if match.group(1) not in parameters]


def parameter_names(values: dict) -> set[str]:
    return {parameter.get("name") for parameter in values.get("parameters") or []}


def pieces(text: str) -> list[tuple[str, str]]:
    """The text as ("text", words) and ("blank", name) pieces, in order."""
    found, at = [], 0
    for match in BLANK.finditer(text):
        if match.start() > at:
            found.append(("text", text[at : match.start()]))
        found.append(("blank", match.group(1)))
        at = match.end()
    if at < len(text):
        found.append(("text", text[at:]))
    return found


def normalised(answer: str, *, spaces: str, case_sensitive: bool) -> str:
    """An answer as it is compared: its spaces and case as the question says they count."""
    if spaces == "ignore":
        answer = "".join(answer.split())
    elif spaces == "collapse":
        answer = " ".join(answer.split())
    if not case_sensitive:
        answer = answer.casefold()
    return answer


def accepts(blank: dict, answer: str, *, spaces: str) -> bool:
    """Whether one blank takes `answer` (already normalised where it came in): one of its
    answers, or a full match of its pattern, compared as the question says."""
    case_sensitive = bool(blank.get("case_sensitive"))
    given = normalised(answer, spaces=spaces, case_sensitive=case_sensitive)
    if any(
        given == normalised(right, spaces=spaces, case_sensitive=case_sensitive)
        for right in blank.get("answers", [])
    ):
        return True
    pattern = blank.get("pattern")
    if pattern:
        flags = 0 if case_sensitive else re.IGNORECASE
        stripped = answer.strip() if spaces != "exact" else answer
        return re.fullmatch(pattern, stripped, flags) is not None
    return False


class BlanksKind(QuestionKind):
    def give_aways(self, values) -> list[tuple[str, str]]:
        """The text with every blank filled; a single blank's answers on their own too
        (none for a question whose program prints them: each variant has its own)."""
        if (values.get("program") or "").strip():
            return []
        blanks = {blank["key"]: blank.get("answers") or [""] for blank in values["blanks"]}
        filled = "".join(
            text if what == "text" else blanks.get(text, [""])[0] for what, text in pieces(values["text"])
        )
        away = [("the text with its blanks filled", filled)]
        if len(blanks) == 1:
            away += [(f"the answer '{answer}'", answer) for answer in next(iter(blanks.values())) if answer]
        return away

    def check(self, reading, values, lines: Lines = lambda name: None) -> None:
        super().check(reading, values, lines)
        check_parameters(reading, values, lines, placeholders=False)
        blanks = values["blanks"]
        unique_keys(reading, blanks, "blank")
        parameters = parameter_names(values)
        named = blank_names(values["text"], parameters=parameters)
        program = bool((values.get("program") or "").strip())
        declared = {blank["key"] for blank in blanks if blank.get("key")}
        for name in dict.fromkeys(named):
            if name not in declared:
                reading.error(
                    lines("text"),
                    f"the text's blank '{{{{{name}}}}}' is not one of 'blanks': add it there",
                )
        if len(named) != len(set(named)):
            reading.error(lines("text"), "a blank appears twice in the text: give each a name of its own")
        if values["text"] and not named:
            reading.error(lines("text"), "the text has no blank: mark one as {{name}}")
        for blank in blanks:
            if blank.get("key") in parameters:
                reading.error(
                    blank.line_of("key"),
                    f"blank '{blank['key']}' has the name of a parameter: rename one of them",
                )
                continue
            if program and blank.get("answers"):
                reading.error(
                    blank.line_of("answers"),
                    f"blank '{blank['key']}' has 'answers' and the question a 'program' that "
                    "prints them: give one (remove 'answers', or the program)",
                )
            elif not program and not blank.get("answers"):
                reading.error(
                    blank.line_of("key"),
                    f"blank '{blank['key']}' needs 'answers', or the question a 'program' that prints them",
                )
            if blank.get("key") and blank["key"] not in named:
                reading.error(
                    blank.line_of("key"), f"blank '{blank['key']}' is not in the text: add {{{{{blank['key']}}}}} there"
                )
            pattern = blank.get("pattern")
            if not pattern:
                continue
            try:
                re.compile(pattern)
            except re.error as error:
                reading.error(blank.line_of("pattern"), f"'pattern' is not a regular expression: {error}")
                continue
            for answer in blank.get("answers", []):
                if not accepts({**blank, "answers": []}, answer, spaces=values["spaces"]):
                    reading.error(
                        blank.line_of("pattern"),
                        f"the pattern of blank '{blank['key']}' does not match its answer '{answer}'",
                    )

    def for_variant(self, values, chosen, computed):
        """The body and text with the variant's values; each blank's answers the program's."""
        values = super().for_variant(values, chosen, None)
        values["text"] = with_parameters(values["text"], chosen)
        if computed is not None:
            values["blanks"] = [{**blank, "answers": computed.get(blank["key"], [])} for blank in values["blanks"]]
        return values


BLANKS = register(
    BlanksKind(
        name="blanks",
        label=gettext_lazy("Fill in the blanks"),
        template="course/blocks/question.html",
        fields=(
            question_title(),
            Text("body", markdown=True, help_text="Markdown: what to do, above the text."),
            Text(
                "text", required=True, quoted=False,
                help_text="The text with its blanks, each written {{name}}. Shown as written "
                "(a parameter's {{name}} with the learner's variant's value).",
            ),
            Items(
                "blanks",
                required=True,
                item="blank",
                fields=(
                    Slug("key", required=True, label="blank name"),
                    TextList("answers", item="answer"),
                    Text("pattern"),
                    Boolean("case_sensitive"),
                ),
                help_text='In JSON: a list of blanks, each with "key" (its name in the text), '
                '"answers" (a list, unless the program prints them), and optionally "pattern" (a regular expression) and '
                '"case_sensitive" (true or false).',
            ),
            Choice(
                "spaces",
                options=SPACES,
                help_text="collapse: runs of spaces count as one, none at the ends; ignore: "
                "spaces never count; exact: every space counts.",
            ),
            *variant_fields(
                'on its last line a JSON object giving each blank its answer or a list of '
                'answers, e.g. {"size": "4"}'
            ),
            tries_field(3),
            question_hints(),
            question_topics(),
        ),
        items_field="blanks",
        needs_key=True,
        noun="question",
        example={
            "text": "A model of {{params}} billion parameters at 8 bits needs about 7 GB.",
            "blanks": [{"key": "params", "answers": ["7", "seven"]}],
        },
        wrong_examples=(
            (
                {"blanks": [{"key": "params", "answers": ["7"]}], "program": "print('{}')"},
                "blank 'params' has 'answers' and the question a 'program' that prints them",
            ),
            (
                {"blanks": [{"key": "params"}]},
                "blank 'params' needs 'answers', or the question a 'program' that prints them",
            ),
            (
                {"text": "{{bits}} bits: {{params}}.", "blanks": [{"key": "params"}],
                 "parameters": [{"name": "bits", "values": [4, 8]}]},
                "parameters need a 'program' that computes the answer from them",
            ),
            (
                {"text": "It needs {{size}} GB."},
                "the text's blank '{{size}}' is not one of 'blanks': add it there",
            ),
            (
                {"blanks": [{"key": "params", "answers": ["7"], "pattern": "[0-9"}]},
                "'pattern' is not a regular expression",
            ),
            (
                {"blanks": [{"key": "params", "answers": ["seven"], "pattern": "[0-9]+"}]},
                "the pattern of blank 'params' does not match its answer 'seven'",
            ),
        ),
    )
)
