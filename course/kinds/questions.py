"""What the question kinds share: a question is a block whose body asks it, whose values
live on the Block row (no rows of its own), and which a learner answers a stated number
of `tries` (counted on the server, tutor/practice/questions/). Each kind is declared in its
own module: `choice.py` (one answer, and `checkboxes`), `number.py`, `blanks.py`.

A question kind checks itself once (`QuestionKind.check`), with the line of the field a
problem is in, for the files and the admin alike.
"""

import itertools
import keyword
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from course.content_files.yaml_writing import Flow
from course.kinds import BlockKind, common_fields, hints_field
from course.kinds.fields import (
    Field,
    Items,
    Name,
    Number,
    Text,
    TextList,
    WholeNumber,
    describe,
    read_list,
)
from course.kinds.fields import Lines as LinesField

Lines = Callable[[str], int | None]


def question_title() -> Text:
    """A title names the question for teachers (item analysis, timelines) and heads it."""
    return common_fields()[0]


def question_body() -> Text:
    return Text(
        "body",
        markdown=True,
        required=True,
        help_text=_("Markdown: the question itself."),
        verbose_name=_("Body"),
        translatable=True,
    )


def question_hints() -> Field:
    """A question's hint ladder: its last rung shows the right answer and finishes it."""
    return hints_field()


MAX_TOPICS = 5
TOPIC_LENGTH = 40


class TopicLines(LinesField):
    """The admin's box of topics, one a line, normalised as the files' reader does."""

    def to_python(self, value) -> list[str]:
        return [" ".join(line.split()) for line in super().to_python(value)]


@dataclass(frozen=True)
class Topics(TextList):
    """What a question is about, as short names ("memory", "kv cache"): a teacher draws a
    quiz's questions from a course's by topic. Spaces inside a name are normalised (runs of
    them are one space, none at the ends); the same name twice (in any case) is refused."""

    item: str = "topic"

    def form_field(self, stored: Any = None) -> forms.Field:
        help_text = self.help_text or _(
            "One topic a line, e.g. memory (at most %(topics)s, each at most %(length)s "
            "characters): teachers draw quiz questions from the course's by topic."
        ) % {"topics": MAX_TOPICS, "length": TOPIC_LENGTH}
        return TopicLines(required=False, label=self.form_label, help_text=help_text)

    def read_value(self, reading, mapping, what: str) -> list[str]:
        items = read_list(reading, mapping, self.name)
        topics: list[str] = []
        seen: dict[str, int | None] = {}
        for value, line in zip(items, items.lines, strict=True):
            if not isinstance(value, str) or not value.strip():
                reading.error(line, f"each topic must be text, e.g. memory, not {describe(value)}")
                continue
            topic = " ".join(value.split())
            if len(topic) > TOPIC_LENGTH:
                reading.error(
                    line,
                    f"topic '{topic[:20]}…' is {len(topic)} characters long; at most {TOPIC_LENGTH}",
                )
            elif topic.casefold() in seen:
                reading.error(
                    line,
                    f"topic '{topic}' is listed twice (first on line {seen[topic.casefold()]})",
                )
            else:
                seen[topic.casefold()] = line
                topics.append(topic)
        if len(topics) > MAX_TOPICS:
            reading.error(
                mapping.line_of(self.name),
                f"a question has at most {MAX_TOPICS} topics, not {len(topics)}",
            )
        return topics

    def write(self, value: list[str]) -> list | None:
        return Flow(value) if value else None


def question_topics() -> Topics:
    return Topics("topics", verbose_name=_("Topics"))


def tries_field(fallback: int) -> WholeNumber:
    return WholeNumber(
        "tries",
        fallback=fallback,
        help_text=_("How many answers a learner may give before the right one is shown."),
        verbose_name=_("Tries"),
    )


class QuestionKind(BlockKind):
    """A kind of question: read like any block, then checked with each field's line."""

    def read(self, reading, mapping, what: str) -> dict[str, Any]:
        values = {field.name: field.read(reading, mapping, what) for field in self.fields}
        self.check(reading, values, lines=mapping.line_of)
        self.check_hints(reading, values, mapping)
        return values

    def check(self, reading, values: dict[str, Any], lines: Lines = lambda name: None) -> None:
        if values.get("tries", 1) < 1:
            reading.error(lines("tries"), "'tries' must be at least 1")

    def for_variant(self, values: dict[str, Any], chosen: dict, computed) -> dict[str, Any]:
        """The values as one variant asks the question: each {{name}} in its texts given the
        variant's value, and the right answer(s) its program printed (`computed`, as
        tutor/practice/questions/variants.py reads it; None while not known)."""
        values = {**values, "body": with_parameters(values.get("body") or "", chosen)}
        if computed is not None:
            values["answer"] = computed
        return values

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


# Parameters of a question with variants -------------------------------------------------

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
MAX_RANGE = 10_000  # values one parameter's range may give
MAX_VARIANTS = 100  # variants without a stated sample (`variants`)


@dataclass(frozen=True)
class Values(Field):
    """A short list of numbers or texts, written on one line: a parameter's values."""

    @property
    def default(self) -> list:
        return []

    def read_value(self, reading, mapping, what: str) -> list:
        items = read_list(reading, mapping, self.name)
        values = []
        for value, line in zip(items, items.lines, strict=True):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float | str)
                or value != value
            ):
                reading.error(
                    line, f"each of '{self.name}' must be a number or text, not {describe(value)}"
                )
            else:
                values.append(str(value) if isinstance(value, str) else value)
        return values

    def write(self, value: list) -> list | None:
        return Flow(value) if value else None


def parameter_values(parameter: dict) -> list:
    """A parameter's values: its list, or its range from `from` to `to` (included) by `step`."""
    if parameter.get("values"):
        return list(parameter["values"])
    start, stop, step = parameter.get("from"), parameter.get("to"), parameter.get("step") or 1
    if start is None or stop is None or step <= 0:
        return []
    count = int((stop - start) / step + 1e-9) + 1
    whole = all(isinstance(n, int) for n in (start, stop, step))
    return [
        start + n * step if whole else round(start + n * step, 12)
        for n in range(max(0, min(count, MAX_RANGE + 1)))
    ]


def variant_count(parameters: list[dict]) -> int:
    count = 1
    for parameter in parameters:
        count *= len(parameter_values(parameter))
    return count


def variants(values: dict, *, key: str) -> list[dict]:
    """Every variant a question gives (each a dict of parameter values, in declared order),
    or a sample of `variants` of them, the same for as long as the file says the same."""
    parameters = values.get("parameters") or []
    if not parameters:
        return [{}]
    names = [parameter["name"] for parameter in parameters]
    lists = [parameter_values(parameter) for parameter in parameters]
    total = variant_count(parameters)
    wanted = values.get("variants") or 0
    if wanted and wanted < total:
        chosen = sorted(random.Random(f"variants:{key}").sample(range(total), wanted))
        product = list(itertools.product(*lists)) if total <= 200_000 else None
        if product is not None:
            return [dict(zip(names, product[n], strict=True)) for n in chosen]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*lists)]


def variant_fields(prints: str) -> tuple[Field, ...]:
    """The fields of a question with variants: `parameters`, the `program` that prints
    `prints` for each variant, and the sample of `variants` to use."""
    return (
        Items(
            "parameters",
            item="parameter",
            fields=(
                Name("name", pattern=IDENTIFIER, meaning="a Python name, e.g. bits"),
                Values("values"),
                Number("from"),
                Number("to"),
                Number("step"),
            ),
            help_text=_(
                'In JSON: a list of parameters, each with "name" and either "values" '
                '(a list) or "from", "to" and optionally "step" (a range, both ends included).'
            ),
            verbose_name=_("Parameters"),
        ),
        Text(
            "program",
            quoted=False,
            help_text=format_lazy(
                _(
                    "Python that prints {prints}; each parameter is a variable of the "
                    "learner's variant. Run in the sandbox, once per variant."
                ),
                prints=prints,
            ),
            verbose_name=_("Program"),
        ),
        Number(
            "variants",
            minimum=1,
            help_text=_("Use a sample of this many variants (empty: every one)."),
            verbose_name=_("Variants"),
        ),
    )


def check_parameters(
    reading,
    values: dict,
    lines: Lines,
    *,
    texts: tuple[tuple[str, str, int | None], ...] = (),
    placeholders: bool = True,
) -> None:
    """The parameters' names and values, and each {{name}} in the body (and in `texts`:
    (what, text, line) of the kind's other texts) one of them; `placeholders` False: only
    in a question with parameters or a program."""
    parameters = values.get("parameters") or []
    seen: set[str] = set()
    for parameter in parameters:
        name = parameter.get("name") or ""
        line = parameter.line_of("name")
        if not IDENTIFIER.fullmatch(name) or keyword.iskeyword(name):
            reading.error(
                line, f"parameter name '{name}' must be a Python name, e.g. bits or model_gb"
            )
        elif name in seen:
            reading.error(line, f"parameter '{name}' is given twice")
        seen.add(name)
        ranged = any(parameter.get(field) is not None for field in ("from", "to", "step"))
        if parameter.get("values") and ranged:
            reading.error(line, f"parameter '{name}' has both 'values' and a range: give one")
        elif not parameter.get("values"):
            if parameter.get("from") is None or parameter.get("to") is None:
                reading.error(line, f"parameter '{name}' needs 'values', or 'from' and 'to'")
            elif parameter.get("step") is not None and parameter["step"] <= 0:
                reading.error(line, f"parameter '{name}': 'step' must be more than 0")
            elif parameter["to"] < parameter["from"]:
                reading.error(line, f"parameter '{name}': 'to' is less than 'from'")
            elif len(parameter_values(parameter)) > MAX_RANGE:
                reading.error(line, f"parameter '{name}' gives more than {MAX_RANGE:,} values")
    wanted = values.get("variants")
    if wanted is not None and (not isinstance(wanted, int) or not parameters):
        reading.error(
            lines("variants"), "'variants' must be a whole number, for a question with parameters"
        )
    total = variant_count(parameters) if parameters else 1
    if parameters and total > MAX_VARIANTS and not values.get("variants"):
        reading.error(
            lines("parameters"),
            f"the parameters make {total:,} variants: give 'variants: N' to use a sample of N "
            f"(at most {MAX_VARIANTS} without one)",
        )
    if not placeholders and not parameters and not (values.get("program") or "").strip():
        return  # a question without variants: its texts may say {{ as they like
    for what, text, line in (("the body", values.get("body") or "", lines("body")), *texts):
        for name in PLACEHOLDER.findall(text):
            if name not in seen:
                reading.error(
                    line, f"'{{{{{name}}}}}' in {what} is not a parameter of the question"
                )
    program = (values.get("program") or "").strip()
    if parameters and not program:
        reading.error(
            lines("parameters"), "parameters need a 'program' that computes the answer from them"
        )


def with_parameters(text: str, chosen: dict) -> str:
    """The text with each {{name}} replaced by the variant's value."""
    return PLACEHOLDER.sub(lambda match: _shown(chosen.get(match.group(1), match.group(0))), text)


def _shown(value) -> str:
    if isinstance(value, float):
        return f"{value:.12g}"
    return str(value)
