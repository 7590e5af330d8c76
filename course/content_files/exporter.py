"""Write the database back as content files, in the layout and style an author writes.

The YAML is written by hand rather than by yaml.dump so that it reads like the shipped
files: literal blocks (`|`) for multi-line text, even text that starts with an empty
line, fields in a human order, and an empty line between blocks and between terms.
"""

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from course.content_files.reader import generated_block_key
from course.markup import linked_term_slugs
from course.models import Block, Course, GlossaryTerm, Lesson, OrderingExercise

WIDTH = 1_000_000  # never fold a long line


class Literal(str):
    """Text written as a literal block (`|`) when it has line breaks."""


class Quoted(str):
    """Text written in single quotes (ordering lines: their indentation must show)."""


class Flow(list):
    """A short list of slugs written on one line: [a, b]."""


class Spaced(list):
    """A list written with an empty line between its items."""


# --- YAML writing ---------------------------------------------------------------------------


def _inline(value) -> str:
    """One scalar on one line, as PyYAML would quote it (or single-quoted for Quoted)."""
    if isinstance(value, bool | int):
        return yaml.safe_dump(value).removesuffix("\n...\n").strip()
    style = None
    if "\n" in value or "\r" in value:
        style = '"'
    elif isinstance(value, Quoted):
        style = "'"
    scalar = yaml.ScalarNode("tag:yaml.org,2002:str", str(value), style=style)
    mapping = yaml.MappingNode(
        "tag:yaml.org,2002:map", [(yaml.ScalarNode("tag:yaml.org,2002:str", "k"), scalar)]
    )
    text = yaml.serialize(mapping, Dumper=yaml.SafeDumper, width=WIDTH, allow_unicode=True)
    return text.removeprefix("k: ").removesuffix("\n")


def _literal_block(text: str, indent: int) -> list[str] | None:
    """`|` and the text's lines indented by `indent`, or None when a literal cannot hold it."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
        chomping = "+" if text.endswith("\n\n") else ""
    else:
        chomping = "-"
    first = next((line for line in lines if line), None)
    if first is None or first.strip() == "":
        return None
    # The indentation is guessed from the first line with text, unless it is given.
    indicator = "2" if first[0] in " \t" else ""
    header = f"|{indicator}{chomping}"
    # Check that YAML reads back exactly this text (trailing spaces, tabs, control characters...).
    probe = "\n".join(["k: " + header, *(f"  {line}" if line else "" for line in lines)]) + "\n"
    try:
        if yaml.safe_load(probe) != {"k": text}:
            return None
    except yaml.YAMLError:
        return None
    pad = " " * indent
    return [header, *(pad + line if line else "" for line in lines)]


def _field(lead: str, key: str, value, indent: int) -> list[str]:
    """`key: value` whose key starts at column `indent`; `lead` is what precedes the key."""
    prefix = f"{lead}{key}:"
    if isinstance(value, dict):
        return [prefix, *_mapping(value, indent + 2)]
    if isinstance(value, Flow):
        return [f"{prefix} [{', '.join(_inline(item) for item in value)}]"]
    if isinstance(value, list):
        lines = [prefix]
        for n, item in enumerate(value):
            if n and isinstance(value, Spaced):
                lines.append("")
            if isinstance(item, dict):
                lines += _mapping(item, indent + 4, dash=True)
            else:
                lines.append(f"{' ' * (indent + 2)}- {_inline(item)}")
        return lines
    if isinstance(value, Literal) and "\n" in value:
        block = _literal_block(value, indent + 2)
        if block is not None:
            return [f"{prefix} {block[0]}", *block[1:]]
    return [f"{prefix} {_inline(value)}"]


def _mapping(mapping: dict, indent: int, *, dash: bool = False) -> list[str]:
    lines = []
    for n, (key, value) in enumerate(mapping.items()):
        lead = " " * (indent - 2) + "- " if dash and n == 0 else " " * indent
        lines += _field(lead, key, value, indent)
    return lines


def to_yaml(document: dict) -> str:
    text = "\n".join(_mapping(document, 0)) + "\n"
    # The writer is hand-made: make sure it says exactly what the database holds.
    if yaml.safe_load(text) != _plain(document):
        raise AssertionError("the exported YAML does not read back as the database content")
    return text


def _plain(value):
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return str(value)
    return value


# --- Documents -----------------------------------------------------------------------------


def _text(value: str) -> Literal:
    return Literal(value)


def _ordered_targets(row, manager) -> list:
    """A many-to-many relation in the order the files gave (the through rows' order)."""
    through = manager.through
    source, target = manager.source_field_name, manager.target_field_name
    ids = list(
        through.objects.filter(**{source: row})
        .order_by("pk")
        .values_list(f"{target}_id", flat=True)
    )
    by_id = manager.model.objects.in_bulk(ids)
    return [by_id[pk] for pk in ids]


def glossary_document() -> dict:
    terms = []
    for term in sorted(GlossaryTerm.objects.all(), key=lambda t: t.slug):
        linked = set(linked_term_slugs(term.definition))
        see_also = [t.slug for t in _ordered_targets(term, term.see_also) if t.slug not in linked]
        entry = {"slug": term.slug, "term": term.term, "definition": _text(term.definition)}
        if see_also:
            entry["see_also"] = Flow(see_also)
        terms.append(entry)
    return {"terms": Spaced(terms)}


def course_document(course: Course) -> dict:
    document = {"title": course.title}
    if course.summary:
        document["summary"] = _text(course.summary)
    document["order"] = course.position
    if course.run_limits:
        document["limits"] = dict(course.run_limits)
    document["lessons"] = [lesson.slug for lesson in course.lessons.order_by("position", "pk")]
    return document


def lesson_document(lesson: Lesson) -> dict:
    document = {"title": lesson.title}
    if lesson.level:
        document["level"] = lesson.level
    if lesson.summary:
        document["summary"] = _text(lesson.summary)
    if lesson.what_you_will_see:
        document["what_you_will_see"] = _text(lesson.what_you_will_see)
    terms = [term.slug for term in _ordered_targets(lesson, lesson.terms)]
    if terms:
        document["terms"] = terms
    blocks = []
    ordinals: dict[str, int] = {}
    for block in lesson.blocks.select_related("snippet", "exercise").order_by("position", "pk"):
        ordinals[block.kind] = ordinals.get(block.kind, 0) + 1
        blocks.append(block_document(block, generated_block_key(block.kind, ordinals[block.kind])))
    if blocks:
        document["blocks"] = Spaced(blocks)
    return document


def block_document(block: Block, generated_key: str) -> dict:
    document = {"kind": block.kind}
    if block.key != generated_key or block.kind in {Block.Kind.SNIPPET, Block.Kind.ORDERING}:
        document["key"] = block.key
    if block.title:
        document["title"] = block.title
    if block.body:
        document["body"] = _text(block.body)
    if block.kind == Block.Kind.SNIPPET:
        snippet = block.snippet
        if snippet.caption:
            document["caption"] = snippet.caption
        document["language"] = snippet.language
        document["code"] = _text(snippet.code)
        if snippet.expected_output:
            document["output"] = _text(snippet.expected_output)
        if snippet.run_limits:
            document["limits"] = dict(snippet.run_limits)
    elif block.kind == Block.Kind.ORDERING:
        document.update(exercise_fields(block.exercise))
    elif block.kind == Block.Kind.DATA_FLOW:
        document["steps"] = list(block.items)
    elif block.kind in {Block.Kind.EXPLANATIONS, Block.Kind.EXAMPLES}:
        names = (
            ("title", "lines", "body") if block.kind == Block.Kind.EXAMPLES else ("title", "body")
        )
        document["items"] = [
            {name: _text(item[name]) for name in names if item.get(name)} for item in block.items
        ]
    return document


def exercise_fields(exercise: OrderingExercise) -> dict:
    document = {}
    if exercise.intro:
        document["intro"] = _text(exercise.intro)
    document["grading"] = exercise.grading
    lines, distractors = [], []
    for line in exercise.lines.all():
        entry = {"key": line.key, "text": Quoted(line.text)}
        if line.is_distractor:
            distractors.append(entry)
            continue
        depends_on = [other.key for other in _ordered_targets(line, line.depends_on)]
        if depends_on:
            entry["depends_on"] = Flow(depends_on)
        lines.append(entry)
    document["lines"] = lines
    if distractors:
        document["distractors"] = distractors
    if exercise.expected_output:
        document["expected_output"] = _text(exercise.expected_output)
    return document


# --- Files ---------------------------------------------------------------------------------


@dataclass
class ExportSummary:
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def export_content(directory: str | Path) -> ExportSummary:
    """Write glossary.yaml and a folder per course under `directory`.

    Lesson files of a course folder that no longer match a lesson are removed, so that the
    folder imports back to the same database; other files are left alone.
    """
    root = Path(directory)
    summary = ExportSummary()
    files = {root / "glossary.yaml": to_yaml(glossary_document())}
    for course in Course.objects.order_by("position", "slug"):
        folder = root / course.slug
        files[folder / "course.yaml"] = to_yaml(course_document(course))
        for lesson in course.lessons.order_by("position", "pk"):
            files[folder / f"{lesson.slug}.yaml"] = to_yaml(lesson_document(lesson))
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            summary.unchanged.append(path)
        else:
            path.write_text(text, encoding="utf-8")
            summary.written.append(path)
    if root.is_dir():
        for folder in root.iterdir():
            if not (folder / "course.yaml").is_file():
                continue
            for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
                if path not in files:
                    path.unlink()
                    summary.removed.append(path)
            if not any(folder.iterdir()):
                folder.rmdir()
    return summary
