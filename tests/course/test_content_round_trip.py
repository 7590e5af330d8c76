"""Property: any content that imports also exports, and re-imports identically.

Every text field of every block kind (asked of the registry, so a new kind is covered
the day it is declared), of lessons, courses and glossary terms gets arbitrary Unicode
text: empty lines at either end, trailing spaces, tabs, carriage returns, no final line
break, lines that look like YAML, very long lines. The files are written as the exporter
writes them; importing them must keep every value exactly, exporting again must give the
same bytes, and importing that export must give the same database.
"""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course import kinds
from course.content_files.exporter import export_content, written
from course.content_files.importer import import_content
from course.content_files.reader import (
    COURSE_FIELDS,
    LESSON_FIELDS,
    TERM_FIELDS,
    read_content,
)
from course.content_files.yaml_writing import Spaced, dump
from course.kinds.fields import (
    Boolean,
    Choice,
    Field,
    Items,
    Limits,
    Name,
    Number,
    Slug,
    SlugList,
    Text,
    TextList,
    WholeNumber,
)
from course.kinds.questions import MAX_TOPICS, TOPIC_LENGTH, Topics, Values
from course.models import Course, GlossaryTerm, Lesson, linked_in_order

pytestmark = pytest.mark.django_db

YAML_LOOKALIKES = [
    "key: value",
    "- item",
    "---",
    "...",
    "# not a comment",
    "|",
    "|+",
    ">-",
    "'quoted'",
    '"double"',
    "&anchor *alias",
    "!!python/object",
    "%YAML 1.2",
    "? complex",
    "[a, b]",
    "{a: b}",
    "@at `tick`",
    "yes",
    "null",
    "~",
    "0x1F",
    "1e3",
    "2024-01-01",
]

characters = st.characters(
    blacklist_categories=("Cs",),  # lone surrogates are not text
    blacklist_characters="\x00",  # no database keeps a NUL in text (the reader refuses one)
)
line = st.one_of(
    st.text(characters, max_size=30),
    st.sampled_from(YAML_LOOKALIKES),
    st.sampled_from(
        ["", " ", "  ", "\t", "\tindented", "    indented", "trailing  ", "\r", "a\rb"]
    ),
    st.text(characters, min_size=1, max_size=3).map(lambda s: s * 400),  # a very long line
)
any_text = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(line, max_size=6),
    st.sampled_from(["", "\n", "\n\n", "\n\n\n", " ", "\r\n"]),
)


def text_for(field: Text) -> st.SearchStrategy[str]:
    strategy = any_text
    if field.markdown:
        # `[[...]]` is a glossary link, which must name a term: checked elsewhere.
        strategy = strategy.map(lambda text: text.replace("[[", "[ ["))
    limit = field.model_field.max_length if field.model_field is not None else None
    if limit:
        strategy = strategy.map(lambda text: text[:limit])
    if field.required:
        strategy = strategy.filter(lambda text: text.strip())
    if field.fallback:
        # An absent field means the fallback, so a file never says "" for it.
        strategy = strategy.filter(lambda text: text != "")
    return strategy


slug = st.from_regex(r"[a-z0-9][a-z0-9-]{0,15}", fullmatch=True)


def strategy_for(field: Field) -> st.SearchStrategy:
    """Values for any declared field, as its declaration allows."""
    if isinstance(field, Text):
        return text_for(field)
    if isinstance(field, Choice):
        return st.sampled_from(field.choices)
    if isinstance(field, Name):
        return st.one_of(
            st.just(""),
            st.from_regex(field.pattern, fullmatch=True).filter(
                lambda name: field.model_field is None or len(name) <= field.model_field.max_length
            ),
            st.sampled_from(["ZeroDivisionError", "json.decoder.JSONDecodeError", "null", "True"]),
        )
    if isinstance(field, WholeNumber):
        return st.integers(0, 10_000)
    if isinstance(field, Boolean):
        return st.booleans()
    if isinstance(field, Values):
        return st.lists(st.one_of(st.integers(-100, 100), slug), max_size=3)
    if isinstance(field, Number):
        low = field.minimum if field.minimum is not None else -1e6
        # -0.0 + 0.0 is 0.0: a database may not keep the sign of a zero.
        return st.one_of(
            st.integers(int(low), 10**6), st.floats(low, 1e6, allow_nan=False).map(lambda x: x + 0.0)
        )
    if isinstance(field, Slug):
        return slug
    if isinstance(field, SlugList):
        return st.lists(slug, max_size=3, unique=True)
    if isinstance(field, Topics):  # as the reader normalises them: one space between words
        topic = st.lists(slug, min_size=1, max_size=3).map(" ".join).filter(lambda t: len(t) <= TOPIC_LENGTH)
        return st.lists(topic, max_size=MAX_TOPICS, unique_by=str.casefold)
    if isinstance(field, TextList):
        size = 1 if field.required else 0
        return st.lists(any_text.filter(lambda text: text.strip()), min_size=size, max_size=4)
    if isinstance(field, Items):
        item = st.fixed_dictionaries({sub.name: strategy_for(sub) for sub in field.fields})
        return st.lists(item, min_size=1 if field.required else 0, max_size=4)
    if isinstance(field, Limits):
        number = st.one_of(
            st.integers(1, 10**6), st.floats(0.001, 1e6, allow_nan=False, allow_infinity=False)
        )
        return st.dictionaries(st.sampled_from(sorted(field.names)), number, max_size=3)
    raise AssertionError(f"no strategy for {type(field).__name__}: add one")


def consistent(values: dict) -> dict:
    """Keys unique across a block's lists of items, each `depends_on` naming only items
    listed before it in the same list, and each test of a code exercise a check or an I/O
    case, not both (what the reader accepts)."""
    for name, items in values.items():
        if not (isinstance(items, list) and items and isinstance(items[0], dict)):
            continue
        keys = []
        for n, item in enumerate(items):
            if "key" in item:
                item["key"] = f"{name[:4]}-{n}"
                if "depends_on" in item:  # as many earlier items as were drawn
                    item["depends_on"] = keys[: len(item["depends_on"])]
                keys.append(item["key"])
            if "check" in item:  # a code exercise's test: a check, or an I/O case
                if item["check"].strip():
                    item.update(stdin="", args=[], stdout="")
                else:
                    item.update(check="", stdout=item["stdout"] or "expected\n")
    return values


def with_variants(values: dict) -> dict:
    """A question that computes its answer: a program, and at most two parameters."""
    values.update(program="print(n)\n", variants=None)
    values["parameters"] = [
        {"name": f"p{n}", "values": parameter["values"] or [n], "from": None, "to": None, "step": None}
        for n, parameter in enumerate(values["parameters"][:2])
    ]
    values["body"] = values["body"].replace("{{", "{ {")
    return values


def question(kind: str, values: dict) -> dict:
    """A question as its kind's check accepts it: at least two options, the right ones
    as the kind wants them, tries within bounds; mistakes far from a number's answer; each
    blank once in the text."""
    if "tries" in values:
        values["tries"] = 1 + values["tries"] % 3
    computed = kind in ("choice", "checkboxes", "blanks") and bool(values["program"].strip())
    if kind in ("choice", "checkboxes", "blanks"):  # with variants when a program was drawn
        with_variants(values) if computed else values.update(parameters=[], program="", variants=None)
    if kind in ("choice", "checkboxes"):
        options = values["options"]
        if len(options) < 2:
            options.append({**options[0], "key": "second"})
        for n, option in enumerate(options):
            option["right"] = not computed and (n == 0 or (kind == "checkboxes" and option["right"]))
            if computed:
                option["text"] = option["text"].replace("{{", "{ {")
                option["feedback"] = option["feedback"].replace("{{", "{ {")
        if kind == "choice":
            values["tries"] = 1
    if kind == "number":
        if values["answer"] is None or values["program"].strip():  # a program: its parameters
            values.update(answer=None, program="print(n)\n", variants=None)
            values["parameters"] = [
                {"name": f"p{n}", "values": parameter["values"] or [n], "from": None, "to": None, "step": None}
                for n, parameter in enumerate(values["parameters"][:2])
            ]
            values["mistakes"] = []
            values["body"] = values["body"].replace("{{", "{ {")
            return values
        values.update(parameters=[], program="", variants=None)
        values["tolerance"] = min(values["tolerance"], 1)
        values["relative_tolerance"] = min(values["relative_tolerance"], 0.5)
        for n, mistake in enumerate(values["mistakes"]):
            mistake["answer"] = values["answer"] + (n + 1) * (2 * abs(values["answer"]) + 10)
    if kind == "blanks":
        text = values["text"].replace("{{", "{ {")
        values["text"] = text + "".join(f" {{{{{blank['key']}}}}}" for blank in values["blanks"])
        for blank in values["blanks"]:
            blank["pattern"] = ""
            if computed:
                blank["answers"] = []
            elif not blank["answers"]:
                blank["answers"] = ["x"]
        if computed:  # no blank named as a parameter
            values["blanks"] = [{**blank, "key": f"b-{blank['key']}"} for blank in values["blanks"]]
            values["text"] = text + "".join(f" {{{{{blank['key']}}}}}" for blank in values["blanks"])
    if kind == "code_blanks":  # each blank once in the code; fills of one line, not too long
        code = values["code"].replace("{{", "{ {")
        values["code"] = code + "".join(f" {{{{{blank['key']}}}}}" for blank in values["blanks"])

        def one_line(text: str) -> str:
            return " ".join(text.replace("\r", " ").split("\n"))[:200]

        for blank in values["blanks"]:
            blank["solution"] = one_line(blank["solution"]) if one_line(blank["solution"]).strip() else "x"
            blank["answers"] = [one_line(answer) for answer in blank["answers"] if one_line(answer).strip()]
        # graded by its expected output or by its tests, not both
        if values["tests"]:
            values["expected_output"] = ""
        elif not values["expected_output"].strip():
            values["expected_output"] = "printed\n"
    return values


def keeping_the_answer(kind: kinds.BlockKind, values: dict) -> dict:
    """Hints that do not give the answer away (the reader refuses one that does)."""
    if values.get("hints"):
        away = kind.give_aways(values)
        values["hints"] = [
            hint for hint in values["hints"] if not any(kinds.gives_away(hint, text) for _, text in away)
        ]
    return values


def block_strategy(kind: kinds.BlockKind):
    return st.tuples(
        st.just(kind.name),
        st.fixed_dictionaries({field.name: strategy_for(field) for field in kind.fields})
        .map(consistent)
        .map(lambda values: question(kind.name, values))
        .map(lambda values: keeping_the_answer(kind, values)),
    )


any_block = st.one_of([block_strategy(kind) for kind in kinds.every()])
lesson_values = st.fixed_dictionaries(
    {f.name: strategy_for(f) for f in LESSON_FIELDS if f.name != "terms"}
)
course_values = st.fixed_dictionaries(
    {f.name: strategy_for(f) for f in COURSE_FIELDS if f.name not in ("lessons",)}
)
term_values = st.fixed_dictionaries(
    {f.name: strategy_for(f) for f in TERM_FIELDS if f.name not in ("slug", "see_also")}
)


def write_folder(root: Path, course: dict, lesson: dict, blocks: list, terms: list) -> None:
    """Files as the exporter writes them, from the generated values."""
    slugs = [f"term-{n}" for n in range(len(terms))]
    glossary = [
        written(TERM_FIELDS, {**values, "slug": slugs[n], "see_also": slugs[:n][:2]})
        for n, values in enumerate(terms)
    ]
    (root / "course-a").mkdir(parents=True)
    (root / "glossary.yaml").write_text(dump({"terms": Spaced(glossary)}), encoding="utf-8")
    course_file = written(COURSE_FIELDS, {**course, "lessons": ["lesson-a"]})
    (root / "course-a" / "course.yaml").write_text(dump(course_file), encoding="utf-8")
    document = written(LESSON_FIELDS, {**lesson, "terms": slugs[:1]})
    document["blocks"] = Spaced(
        [
            {"kind": name, "key": f"block-{n}", **written(kinds.get(name).fields, values)}
            for n, (name, values) in enumerate(blocks)
        ]
    )
    (root / "course-a" / "lesson-a.yaml").write_text(dump(document), encoding="utf-8")


def database() -> dict:
    """Everything the files describe, as the kinds and models read it back."""
    lessons = {}
    for lesson in Lesson.objects.select_related("course"):
        lessons[lesson.slug] = {
            "course": [
                lesson.course.title,
                lesson.course.summary,
                lesson.course.position,
                lesson.course.run_limits,
            ],
            "lesson": [
                lesson.title,
                lesson.level,
                lesson.summary,
                lesson.what_you_will_see,
                [term.slug for term in linked_in_order(lesson.terms)],
            ],
            "blocks": [
                (block.key, block.kind, block.kind_spec.values_of(block))
                for block in lesson.blocks.order_by("position")
            ],
        }
    terms = [
        (term.slug, term.term, term.definition, [t.slug for t in linked_in_order(term.see_also)])
        for term in GlossaryTerm.objects.order_by("slug")
    ]
    return {"lessons": lessons, "terms": terms}


def files(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*.yaml"))}


def wipe() -> None:
    Course.objects.all().delete()
    GlossaryTerm.objects.all().delete()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    course=course_values,
    lesson=lesson_values,
    blocks=st.lists(any_block, min_size=1, max_size=4),
    terms=st.lists(term_values, min_size=1, max_size=3),
)
def test_any_content_survives_import_export_import(tmp_path_factory, course, lesson, blocks, terms):
    wipe()
    first = tmp_path_factory.mktemp("written")
    write_folder(first, course, lesson, blocks, terms)

    import_content(read_content(first))
    imported = database()
    # The database holds exactly what the files said, field by field.
    assert [
        (name, values) for _, name, values in imported["lessons"]["lesson-a"]["blocks"]
    ] == blocks
    assert imported["lessons"]["lesson-a"]["lesson"][:4] == [
        lesson["title"],
        lesson["level"],
        lesson["summary"],
        lesson["what_you_will_see"],
    ]
    assert [term[1:3] for term in imported["terms"]] == [
        (values["term"], values["definition"]) for values in terms
    ]

    exported = tmp_path_factory.mktemp("exported")
    export_content(exported)
    again = tmp_path_factory.mktemp("again")
    export_content(again)
    assert files(exported) == files(again), "export is not deterministic"
    assert files(exported) == files(first), "export differs from the files that were imported"

    wipe()
    import_content(read_content(exported))
    assert database() == imported
