"""Number: the learner types a number, right within an absolute or relative tolerance, in
the question's units if it has any. Common wrong numbers (`mistakes`) have feedback of their
own. The learner's side is in tutor/practice/questions/; every value lives on the Block row
(`mistakes` in Block.items, the rest in Block.values).

The answer is written in the file (`answer`), or computed by a `program` from the question's
`parameters`: each learner gets a variant (a value for each parameter, shown in the body
where it says {{name}}), and the program, run in the sandbox with those values, prints the
answer. So the number in the question can never disagree with the program.
"""

from django.utils.translation import gettext_lazy

from course.kinds import register
from course.kinds.fields import Items, Number, Text
from course.kinds.questions import (
    Lines,
    QuestionKind,
    check_parameters,
    question_body,
    question_hints,
    question_title,
    question_topics,
    tries_field,
    variant_fields,
)


def within(given: float, expected: float, *, tolerance: float, relative: float) -> bool:
    """Whether `given` is `expected` within either tolerance (both 0: exactly, give or take
    the last digits a float keeps)."""
    margin = max(tolerance, abs(expected) * relative, abs(expected) * 1e-12)
    return abs(given - expected) <= margin


class NumberKind(QuestionKind):
    def give_aways(self, values) -> list[tuple[str, str]]:
        answer = values.get("answer")
        if answer is None:  # computed per variant: no one number to give away
            return []
        return [(f"the answer {answer:g}", f"{answer:g}")]

    def check(self, reading, values, lines: Lines = lambda name: None) -> None:
        super().check(reading, values, lines)
        check_parameters(reading, values, lines)
        program = (values.get("program") or "").strip()
        answer = values.get("answer")
        if program and answer is not None:
            reading.error(lines("answer"), "give 'answer' or a 'program' that computes it, not both")
        elif not program and answer is None:
            reading.error(lines("answer"), "a number question needs 'answer', or a 'program' that prints it")
        if answer is None:
            return
        for mistake in values["mistakes"]:
            if mistake.get("answer") is not None and within(
                mistake["answer"], answer,
                tolerance=values["tolerance"], relative=values["relative_tolerance"],
            ):
                reading.error(
                    mistake.line_of("answer"),
                    f"the mistake {mistake['answer']:g} is within the tolerance of the answer "
                    f"{answer:g}: it would be marked right",
                )


NUMBER = register(
    NumberKind(
        name="number",
        label=gettext_lazy("Number"),
        template="course/blocks/question.html",
        fields=(
            question_title(),
            question_body(),
            Number("answer", help_text="The right number (or give a program that prints it)."),
            *variant_fields("the answer"),
            Number(
                "tolerance", fallback=0, minimum=0,
                help_text="Absolute: an answer this far from the right one is right too.",
            ),
            Number(
                "relative_tolerance", fallback=0, minimum=0,
                help_text="Relative, as a fraction of the answer: 0.01 accepts within 1%.",
            ),
            Text("units", help_text="Shown beside the box, e.g. GB; a learner may type them."),
            Items(
                "mistakes",
                item="mistake",
                fields=(Number("answer", required=True), Text("feedback", required=True, markdown=True)),
                help_text='In JSON: a list of common wrong numbers, each with "answer" and the '
                '"feedback" a learner who gives it reads.',
            ),
            tries_field(3),
            question_hints(),
            question_topics(),
        ),
        items_field="mistakes",
        needs_key=True,
        noun="question",
        example={
            "body": "How many GB does an 8 GB model need at 4 bits instead of 8?",
            "answer": 4,
            "relative_tolerance": 0.05,
            "units": "GB",
            "mistakes": [{"answer": 16, "feedback": "Fewer bits need less memory, not more."}],
        },
        wrong_examples=(
            ({"answer": "four"}, "'answer' must be a number, not text"),
            (
                {"answer": None, "program": "print(bits / 2)",
                 "parameters": [{"name": "bits", "values": [4, 8]}, {"name": "bits", "values": [16]}]},
                "parameter 'bits' is given twice",
            ),
            ({"program": "print(4)"}, "give 'answer' or a 'program' that computes it, not both"),
            ({"tolerance": -1}, "'tolerance' must be at least 0"),
            (
                {"hints": ["Half the bits, half the memory: 4 GB."]},
                "gives the answer away: it contains the answer 4",
            ),
            (
                {"mistakes": [{"answer": 4.1, "feedback": "Close."}]},
                "the mistake 4.1 is within the tolerance of the answer 4: it would be marked right",
            ),
        ),
    )
)
