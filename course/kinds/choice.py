"""Multiple choice (`choice`: one right option) and checkboxes (`checkboxes`: every right
option, with partial credit by the question's `scoring`). The learner's side is in
tutor/practice/questions/.

Each option has a key (answers name it by key, so its text may be edited), its text, whether
it is right, and the feedback a learner reads once they chose it. Options are shown in each
learner's own order (`shuffle`), the same on every visit. Everything lives on the Block
row: the options in Block.items, `shuffle`, `tries` and `scoring` in Block.values.

With variants: the question declares `parameters` (as a number question does) and a
`program` instead of marking options `right`. The body and each option's text and feedback
may use a parameter as {{name}}, shown with the learner's variant's value; the program, run
in the sandbox once per variant with each parameter a variable, prints on its last line the
key of the right option (checkboxes: the keys of every right option, separated by spaces).
"""

from django.utils.translation import gettext_lazy

from course.kinds import register
from course.kinds.fields import Boolean, Choice, Items, Slug, Text
from course.kinds.questions import (
    Lines,
    QuestionKind,
    check_parameters,
    question_body,
    question_hints,
    question_title,
    question_topics,
    tries_field,
    unique_keys,
    variant_fields,
    with_parameters,
)

SCORING = ("right-minus-wrong", "all-or-nothing", "each-option")

OPTIONS = Items(
    "options",
    required=True,
    item="option",
    fields=(
        Slug("key", required=True, label="option key"),
        Text("text", required=True, markdown=True),
        Boolean("right"),
        Text("feedback", markdown=True),
    ),
    help_text='In JSON: a list of options, each with "key" (a slug), "text", "right" '
    '(true or false) and "feedback" (what a learner who chose it reads).',
)


def _common(reading, values, lines: Lines) -> list:
    options = values["options"]
    if len(options) < 2 and options:
        reading.error(lines("options"), "a question needs at least two options")
    unique_keys(reading, options, "option")
    texts = tuple(
        (f"option '{option.get('key')}'", option.get(field) or "", option.line_of(field))
        for option in options for field in ("text", "feedback")
    )
    check_parameters(reading, values, lines, texts=texts, placeholders=False)
    if computes(values):
        for option in options:
            if option.get("right"):
                reading.error(
                    option.line_of("right"),
                    f"option '{option['key']}' is marked right, but the question's 'program' "
                    "prints which options are: remove 'right: true'",
                )
    return options


def computes(values) -> bool:
    return bool((values.get("program") or "").strip())


def _for_variant(values, chosen, computed):
    """The body and options with the variant's values; right the options the program printed."""
    values = {**values, "body": with_parameters(values.get("body") or "", chosen)}
    values["options"] = [
        {
            **option,
            "text": with_parameters(option.get("text") or "", chosen),
            "feedback": with_parameters(option.get("feedback") or "", chosen),
            **({"right": option["key"] in computed} if computed is not None else {}),
        }
        for option in values["options"]
    ]
    return values


def _right_options(values) -> list[tuple[str, str]]:
    return [
        (f"the right option's text '{option['text']}'", option["text"])
        for option in values["options"] if option.get("right")
    ]


class ChoiceKind(QuestionKind):
    def for_variant(self, values, chosen, computed):
        return _for_variant(values, chosen, computed)

    def give_aways(self, values) -> list[tuple[str, str]]:
        return _right_options(values)

    def check(self, reading, values, lines: Lines = lambda name: None) -> None:
        super().check(reading, values, lines)
        options = _common(reading, values, lines)
        right = [option for option in options if option.get("right")]
        if options and not right and not computes(values):
            reading.error(lines("options"), "no option is right: mark one with 'right: true'")
        elif len(right) > 1:
            keys = " and ".join(f"'{option['key']}'" for option in right[:2])
            reading.error(
                right[1].line_of("right"),
                f"options {keys} are both right: a choice has one right answer "
                "(kind: checkboxes takes several)",
            )
        most = max(1, len(options) // 2)
        if values["tries"] > most:
            reading.error(
                lines("tries"),
                f"'tries' is {values['tries']} with {len(options)} options: trying them in turn "
                f"would find the right one too often; at most {most}",
            )


class CheckboxesKind(QuestionKind):
    def for_variant(self, values, chosen, computed):
        return _for_variant(values, chosen, computed)

    def give_aways(self, values) -> list[tuple[str, str]]:
        return _right_options(values)

    def check(self, reading, values, lines: Lines = lambda name: None) -> None:
        super().check(reading, values, lines)
        options = _common(reading, values, lines)
        if options and not computes(values) and not any(option.get("right") for option in options):
            reading.error(
                lines("options"), "no option is right: mark at least one with 'right: true'"
            )


_example_options = [
    {"key": "cpu", "text": "llama.cpp", "right": True, "feedback": "Built for CPUs."},
    {"key": "gpu", "text": "vLLM", "feedback": "Fast on NVIDIA GPUs, not on a CPU."},
    {"key": "neither", "text": "Neither runs on a CPU"},
]

CHOICE = register(
    ChoiceKind(
        name="choice",
        label=gettext_lazy("Multiple choice"),
        template="course/blocks/question.html",
        fields=(
            question_title(),
            question_body(),
            OPTIONS,
            Boolean("shuffle", fallback=True, help_text="Each learner sees the options in an order of their own."),
            *variant_fields("on its last line the key of the right option (instead of marking it right)"),
            tries_field(1),
            question_hints(),
            question_topics(),
        ),
        items_field="options",
        needs_key=True,
        noun="question",
        example={"body": "Which runs well on a CPU?", "options": _example_options},
        wrong_examples=(
            (
                {"options": [{**option, "right": True} for option in _example_options]},
                "options 'cpu' and 'gpu' are both right: a choice has one right answer",
            ),
            ({"tries": 2}, "'tries' is 2 with 3 options: trying them in turn would find the right one"),
            (
                {"program": "print('cpu')"},
                "option 'cpu' is marked right, but the question's 'program' prints which options are",
            ),
            (
                {"body": "Which runs on {{device}}?", "program": "print('cpu')",
                 "options": [{**option, "right": False} for option in _example_options]},
                "'{{device}}' in the body is not a parameter of the question",
            ),
            (
                {"hints": ["Which is written in C++?", "It is llama.cpp."]},
                "gives the answer away: it contains the right option's text 'llama.cpp'",
            ),
            (
                {"options": [{**option, "key": "same"} for option in _example_options[:2]]},
                "option key 'same' is already used on line",
            ),
        ),
    )
)

CHECKBOXES = register(
    CheckboxesKind(
        name="checkboxes",
        label=gettext_lazy("Checkboxes"),
        template="course/blocks/question.html",
        fields=(
            question_title(),
            question_body(),
            OPTIONS,
            Choice(
                "scoring",
                options=SCORING,
                help_text="right-minus-wrong: each right option ticked earns its share of the "
                "right ones, each wrong one ticked takes away its share of the wrong ones "
                "(ticking every option scores 0; never below 0); all-or-nothing: full "
                "marks only for exactly the right options; each-option: the share of options "
                "ticked or left as they should be.",
            ),
            Boolean("shuffle", fallback=True, help_text="Each learner sees the options in an order of their own."),
            *variant_fields(
                "on its last line the keys of the right options, separated by spaces "
                "(instead of marking them right)"
            ),
            tries_field(2),
            question_hints(),
            question_topics(),
        ),
        items_field="options",
        needs_key=True,
        noun="question",
        example={
            "body": "Which of these run on a CPU?",
            "options": [
                {"key": "llama", "text": "llama.cpp", "right": True},
                {"key": "ollama", "text": "Ollama", "right": True},
                {"key": "vllm", "text": "vLLM", "feedback": "It needs a GPU."},
            ],
        },
        wrong_examples=(
            (
                {"options": [{"key": "a", "text": "A"}, {"key": "b", "text": "B"}]},
                "no option is right: mark at least one with 'right: true'",
            ),
            ({"scoring": "half"}, "unknown scoring 'half'"),
        ),
    )
)
