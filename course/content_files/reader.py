"""Read a content folder into checked, plain data; every problem is reported with its line.

The fields of each file are declared once (course.kinds.fields): a block's by its kind
(course.kinds), a course's, lesson's and glossary term's below. YAML is read with the
line of every field (yaml_lines), so each problem says where it is.
"""

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course import kinds, translations
from course.content_files.errors import ContentError, ContentErrors, did_you_mean
from course.content_files.yaml_lines import YamlList, YamlMap, YamlSyntaxError, load
from course.kinds.fields import (
    Choice,
    Field,
    Items,
    Limits,
    Lined,
    Slug,
    SlugList,
    Text,
    WholeNumber,
    check_fields,
    describe,
    plain,
    read_list,
    read_slug,
)
from course.markup import TERM_LINK, linked_term_slugs
from course.models import RUN_LIMITS, Course, GlossaryTerm, Lesson

LINK_LIKE = re.compile(r"\[\[(.*?)\]\]")
# A translation file: `<lesson>.<language>.yaml` beside the lesson, `glossary.<language>.yaml`.
LANGUAGE_CODE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,8})?")


def _model_field(model, name: str):
    return model._meta.get_field(name)


COURSE_FIELDS: tuple[Field, ...] = (
    Text("title", required=True, model_field=_model_field(Course, "title"), translatable=True),
    Choice("status", model_field=_model_field(Course, "status"), optional=True),
    Text("summary", markdown=True, translatable=True),
    WholeNumber("order"),
    Limits("limits", names=RUN_LIMITS),
    SlugList("lessons", required=True, item="lesson"),
)
LESSON_FIELDS: tuple[Field, ...] = (
    Text("title", required=True, model_field=_model_field(Lesson, "title"), translatable=True),
    Choice("status", model_field=_model_field(Lesson, "status"), optional=True),
    Text("level", model_field=_model_field(Lesson, "level"), translatable=True),
    Text("summary", markdown=True, translatable=True),
    Text("what_you_will_see"),
    SlugList("terms", item="term"),
)
LESSON_FILE_FIELDS = (*(f.name for f in LESSON_FIELDS), "blocks")
TERM_FIELDS: tuple[Field, ...] = (
    Slug("slug", required=True, label="slug"),
    Text("term", required=True, model_field=_model_field(GlossaryTerm, "term"), translatable=True),
    Text("definition", required=True, markdown=True, translatable=True),
    SlugList("see_also", item="see_also entry", flow=True),
)
GLOSSARY_FIELDS = (Items("terms", fields=TERM_FIELDS, item="glossary term"),)


def glossary_link_problems(text: str, glossary: Collection[str]) -> list[tuple[int, str]]:
    """(offset, message) for each [[...]] in a Markdown text that is no link to a term of
    `glossary`: the files' rule, which the admin applies too."""
    problems = []
    for match in LINK_LIKE.finditer(text):
        link = TERM_LINK.fullmatch(match.group(0))
        if link is None:
            message = (
                f"bad glossary link '{match.group(0)}': write [[slug]] or [[slug|shown text]] "
                "with the term's lower-case slug"
            )
        elif link.group(1) not in glossary:
            message = (
                f"glossary link '{match.group(0)}' points at no term"
                f"{did_you_mean(link.group(1), glossary)}"
            )
        else:
            continue
        problems.append((match.start(), message))
    return problems


def points_at(slug: str, definition: str, see_also: list[str]) -> list[str]:
    """The terms a glossary term points at: those its definition links to, first, then its
    see_also; each once, never itself. The same whether the term comes from the files or
    the admin."""
    return [
        str(other)
        for other in dict.fromkeys([*linked_term_slugs(definition), *see_also])
        if other != slug
    ]


def generated_block_key(kind: str, ordinal: int) -> str:
    """The key of a block written without one: its kind and its place among that kind."""
    return f"{kind.replace('_', '-')}-{ordinal}"


# --- The checked content ------------------------------------------------------------------


@dataclass
class BlockData:
    key: str
    kind: str
    values: dict[str, Any]  # by content-file field name, as the kind declares them


@dataclass
class LessonData:
    slug: str
    path: str
    values: dict[str, Any]
    blocks: list[BlockData]
    translations: dict[str, dict] = field(default_factory=dict)  # language -> its file's document


@dataclass
class CourseData:
    slug: str
    path: str
    values: dict[str, Any]
    lessons: list[LessonData] = field(default_factory=list)
    translations: dict[str, dict] = field(default_factory=dict)  # language -> title, summary


@dataclass
class TermData:
    slug: str
    term: str
    definition: str
    see_also: list[str]
    translations: dict[str, dict] = field(default_factory=dict)  # language -> term, definition


@dataclass
class Content:
    root: str
    glossary_path: str
    courses: list[CourseData]
    terms: list[TermData]


# --- The reader -----------------------------------------------------------------------------


class _FileReading:
    """One file's part of the reading: fields report their problems here."""

    def __init__(self, reader: "_Reader", path: str):
        self.reader = reader
        self.path = path

    def error(self, line: int | None, message: str) -> None:
        self.reader.errors.append(ContentError(self.path, line, message))

    def markdown(self, mapping: YamlMap, name: str, text: str) -> None:
        self.reader.markdown.append((self.path, mapping, name, text))

    def read(self, fields: tuple[Field, ...], mapping: YamlMap, what: str) -> dict[str, Any]:
        return {f.name: f.read(self, mapping, what) for f in fields}


class _Reader:
    def __init__(self, root: Path):
        self.root = root
        self.errors: list[ContentError] = []
        # (path, mapping, field, text) of every Markdown field, checked once the glossary is known.
        self.markdown: list[tuple[str, YamlMap, str, str]] = []
        # (path, line, slug) of every glossary slug a lesson lists in its terms.
        self.term_refs: list[tuple[str, int | None, str]] = []
        self.glossary_translations: list[Path] = []

    def shown(self, path: Path) -> str:
        return str(path)

    def load(self, path: Path) -> YamlMap | None:
        reading = _FileReading(self, self.shown(path))
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = path.read_bytes()[: exc.start].count(b"\n") + 1
            reading.error(line, "not UTF-8 text; save the file as UTF-8")
            return None
        try:
            root = load(text, reading.error)
        except YamlSyntaxError as exc:
            reading.error(exc.line, f"YAML syntax error: {exc.message}")
            return None
        if root is None:
            reading.error(1, "the file is empty")
            return None
        if not isinstance(root, YamlMap):
            line = root.line if isinstance(root, YamlList) else 1
            reading.error(line, "the file must hold fields (name: value)")
            return None
        return root

    # -- the content root

    def read(self) -> Content:
        if not self.root.is_dir():
            raise ContentErrors([ContentError(self.shown(self.root), None, "no such folder")])
        terms = self.read_glossary(self.root / "glossary.yaml")
        courses = []
        for entry in sorted(self.root.iterdir()):
            if entry.name.startswith((".", "_")):
                continue
            if entry.is_dir():
                course = self.read_course(entry)
                if course is not None:
                    courses.append(course)
            elif entry.name.startswith("glossary.") and entry.name.count(".") == 2:
                self.glossary_translations.append(entry)
            elif entry.suffix in {".yaml", ".yml"} and entry.name != "glossary.yaml":
                self.errors.append(
                    ContentError(
                        self.shown(entry),
                        None,
                        "unexpected file: the content folder holds glossary.yaml and one folder "
                        f"per course{did_you_mean(entry.name, ['glossary.yaml'])}",
                    )
                )
        if terms is None:
            # Without a readable glossary every reference would look wrong: say nothing yet.
            terms = []
        else:
            for path in self.glossary_translations:
                self.read_glossary_translation(path, terms)
            self.check_references({term.slug for term in terms})
        return Content(
            root=self.shown(self.root),
            glossary_path=self.shown(self.root / "glossary.yaml"),
            courses=courses,
            terms=terms,
        )

    def check_references(self, glossary: set[str]) -> None:
        for path, line, slug in self.term_refs:
            if slug not in glossary:
                self.errors.append(
                    ContentError(
                        path, line, f"term '{slug}' is not in the glossary{did_you_mean(slug, glossary)}"
                    )
                )
        for path, mapping, name, text in self.markdown:
            for offset, message in glossary_link_problems(text, glossary):
                self.errors.append(ContentError(path, mapping.text_line(name, offset), message))

    # -- glossary

    def read_glossary(self, path: Path) -> list[TermData] | None:
        shown = self.shown(path)
        reading = _FileReading(self, shown)
        if not path.is_file():
            reading.error(None, "missing: the content folder needs a glossary.yaml (`terms: []` if empty)")
            return None
        root = self.load(path)
        if root is None:
            return None
        check_fields(reading, root, [f.name for f in GLOSSARY_FIELDS], "the glossary")
        entries = reading.read(GLOSSARY_FIELDS, root, "the glossary")["terms"]
        terms: list[TermData] = []
        seen: dict[str, int | None] = {}
        for entry in entries:
            slug = entry["slug"]
            if not slug:
                continue
            if slug in seen:
                reading.error(
                    entry.line_of("slug"), f"term '{slug}' is defined twice (first on line {seen[slug]})"
                )
                continue
            seen[slug] = entry.line_of("slug")
            terms.append(TermData(str(slug), str(entry["term"]), str(entry["definition"]), entry["see_also"]))
        for term in terms:
            for other in term.see_also:
                if other == term.slug:
                    reading.error(other.line, f"term '{other}' cannot point at itself")
                elif other not in seen:
                    reading.error(
                        other.line, f"see_also '{other}' is not in the glossary{did_you_mean(other, seen)}"
                    )
            term.see_also = points_at(term.slug, term.definition, term.see_also)
        return terms

    def language_of(self, path: Path, language: str) -> str | None:
        """The language a translation file is in, if the site speaks it."""
        known = translations.languages()
        if language in known:
            return language
        reading = _FileReading(self, self.shown(path))
        if not LANGUAGE_CODE.fullmatch(language):
            reading.error(None, f"'{language}' is not a language code: name a translation <name>.<code>.yaml, e.g. .es.yaml")
        else:
            reading.error(
                None,
                f"the site speaks no '{language}'{did_you_mean(language, known)}: add it to LANGUAGES "
                "in config/settings.py first (docs/translating.md)",
            )
        return None

    def read_glossary_translation(self, path: Path, terms: list[TermData]) -> None:
        language = self.language_of(path, path.name.split(".")[1])
        root = self.load(path) if language else None
        if root is None:
            return
        reading = _FileReading(self, self.shown(path))
        check_fields(reading, root, ["terms"], "a glossary translation")
        entries = root.get("terms")
        if entries is None:
            return
        if not isinstance(entries, YamlMap):
            reading.error(root.line_of("terms"), f"'terms' must be terms by their slugs, not {describe(entries)}")
            return
        by_slug = {term.slug: term for term in terms}
        for slug, entry in entries.items():
            if slug not in by_slug:
                reading.error(entries.line_of(slug), f"term '{slug}' is not in the glossary{did_you_mean(str(slug), by_slug)}")
            elif not isinstance(entry, YamlMap):
                reading.error(entries.line_of(slug), f"term '{slug}' must be a set of fields, not {describe(entry)}")
            else:
                term = by_slug[slug]
                english = {"term": term.term, "definition": term.definition}
                values = translations.read_fields(reading, entry, TERM_FIELDS, english, "a glossary term")
                if values:
                    term.translations[language] = values

    def read_lesson_translation(self, path: Path, lesson: LessonData, language: str) -> None:
        root = self.load(path)
        if root is None:
            return
        reading = _FileReading(self, self.shown(path))
        blocks = {block.key: (block.kind, block.values) for block in lesson.blocks}
        document = translations.read_lesson(reading, root, LESSON_FIELDS, lesson.values, blocks)
        if document:
            lesson.translations[language] = document

    def read_course_translation(self, path: Path, course: CourseData, language: str) -> None:
        root = self.load(path)
        if root is None:
            return
        reading = _FileReading(self, self.shown(path))
        values = translations.read_fields(reading, root, COURSE_FIELDS, course.values, "the course")
        if values:
            course.translations[language] = values

    # -- courses and lessons

    def read_course(self, folder: Path) -> CourseData | None:
        path = folder / "course.yaml"
        shown = self.shown(path)
        reading = _FileReading(self, shown)
        if not path.is_file():
            reading.error(None, "missing: every course folder needs a course.yaml")
            return None
        slug = read_slug(reading, None, folder.name, "course folder name")
        root = self.load(path)
        lesson_files = {}
        translation_files = []
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") or entry.name == "course.yaml":
                continue
            if entry.suffix == ".yml":
                self.errors.append(
                    ContentError(self.shown(entry), None, "lesson files end in .yaml, not .yml")
                )
            elif entry.suffix == ".yaml" and "." in entry.stem:
                translation_files.append(entry)
            elif entry.suffix == ".yaml":
                lesson_files[entry.stem] = entry
        lessons = {stem: self.read_lesson(file) for stem, file in lesson_files.items()}
        course_translations = []
        for entry in translation_files:
            stem, language = entry.stem.split(".", 1)
            if stem == "course":
                if self.language_of(entry, language):
                    course_translations.append((entry, language))
            elif stem not in lesson_files:
                self.errors.append(
                    ContentError(
                        self.shown(entry),
                        None,
                        f"a translation of no lesson: there is no {stem}.yaml in {folder.name}/"
                        f"{did_you_mean(stem, lesson_files)}",
                    )
                )
            elif self.language_of(entry, language) and lessons[stem] is not None:
                self.read_lesson_translation(entry, lessons[stem], language)
        if root is None or slug is None:
            return None
        check_fields(reading, root, [f.name for f in COURSE_FIELDS], "course.yaml")
        values = reading.read(COURSE_FIELDS, root, "course.yaml")
        course = CourseData(slug=slug, path=shown, values=plain(values))
        for entry, language in course_translations:
            self.read_course_translation(entry, course, language)
        for lesson_slug in values["lessons"]:
            if lesson_slug not in lesson_files:
                reading.error(
                    lesson_slug.line,
                    f"lesson '{lesson_slug}' is listed but there is no {lesson_slug}.yaml in "
                    f"{folder.name}/{did_you_mean(lesson_slug, lesson_files)}",
                )
            elif lessons[lesson_slug] is not None:
                course.lessons.append(lessons[lesson_slug])
        for stem in lesson_files:
            if stem not in values["lessons"]:
                reading.error(
                    root.line_of("lessons"),
                    f"{stem}.yaml is not listed in 'lessons': add '{stem}' where it belongs in the "
                    "order, or remove the file",
                )
        return course

    def read_lesson(self, path: Path) -> LessonData | None:
        shown = self.shown(path)
        reading = _FileReading(self, shown)
        slug = read_slug(reading, None, path.stem, "lesson file name")
        root = self.load(path)
        if root is None or slug is None:
            return None
        check_fields(reading, root, LESSON_FILE_FIELDS, "the lesson")
        values = reading.read(LESSON_FIELDS, root, "the lesson")
        self.term_refs += [(shown, term.line, term) for term in values["terms"]]
        lesson = LessonData(slug=slug, path=shown, values=plain(values), blocks=[])
        keys: dict[str, int | None] = {}
        ordinals: dict[str, int] = {}
        entries = read_list(reading, root, "blocks") if "blocks" in root else YamlList(0)
        for entry, line in zip(entries, entries.lines, strict=True):
            if not isinstance(entry, YamlMap):
                reading.error(line, f"each block must be a set of fields, not {describe(entry)}")
                continue
            block = self.read_block(reading, entry, ordinals)
            if block is None:
                continue
            line = entry.line_of("key")
            if block.key in keys:
                made = "" if "key" in entry else " (made from its kind and position)"
                reading.error(
                    line,
                    f"block key '{block.key}'{made} is already used by the block on line "
                    f"{keys[block.key]}: keys must be unique in a lesson",
                )
                continue
            keys[block.key] = line
            lesson.blocks.append(block)
        return lesson

    def read_block(
        self, reading: _FileReading, entry: YamlMap, ordinals: dict[str, int]
    ) -> BlockData | None:
        name = entry.get("kind")
        known = kinds.names()
        if name is None:
            reading.error(entry.line, f"a block needs 'kind' (one of: {', '.join(known)})")
            return None
        if name not in known:
            hint = did_you_mean(str(name), known) or f" (kinds: {', '.join(known)})"
            reading.error(entry.line_of("kind"), f"unknown block kind '{name}'{hint}")
            return None
        kind = kinds.get(name)
        what = f"a {name} block"
        check_fields(reading, entry, kind.field_names, what)
        ordinals[name] = ordinals.get(name, 0) + 1
        if "key" in entry:
            key = read_slug(reading, entry.line_of("key"), entry["key"], "key") or ""
        elif kind.needs_key:
            reading.error(entry.line, f"{what} needs 'key': learners' work points at it by its key")
            key = ""
        else:
            key = generated_block_key(name, ordinals[name])
        values = kind.read(reading, entry, what)
        if not key:
            return None
        return BlockData(key=key, kind=name, values=plain(values))


def read_content(directory: str | Path) -> Content:
    """Read and check every file under `directory`; raise ContentErrors listing all problems."""
    reader = _Reader(Path(directory))
    content = reader.read()
    if reader.errors:
        raise ContentErrors(reader.errors)
    return content


__all__ = [
    "BlockData", "Content", "CourseData", "LessonData", "Lined", "TermData", "check_block", "check_values",
    "glossary_link_problems", "points_at", "read_content",
]


# --- The same checks for content that comes from elsewhere (the admin) ----------------------


class _ValuesReading:
    """Reads values a form holds through the files' fields; problems by field name.

    The values are given as if read from a file whose line N holds the Nth field
    (`_as_read`), so a problem's line names its field, whoever reports it."""

    path = ""

    def __init__(self, glossary: Collection[str], names: list[str]):
        self.glossary = glossary
        self.names = names
        self.problems: dict[str, list[str]] = {}

    def error(self, line: int | None, message: str) -> None:
        field = self.names[line - 1] if line and line <= len(self.names) else ""
        self.problems.setdefault(field, []).append(message)

    def markdown(self, mapping: YamlMap, name: str, text: str) -> None:
        for _, message in glossary_link_problems(text, self.glossary):
            self.error(mapping.line_of(name), message)


def _as_read(value: Any, line: int) -> Any:
    """A plain value as the YAML reader gives it (mappings and lists that know a line)."""
    if isinstance(value, dict):
        mapping = YamlMap(line)
        for key, item in value.items():
            mapping[key] = _as_read(item, line)
        return mapping
    if isinstance(value, list):
        sequence = YamlList(line)
        for item in value:
            sequence.append(_as_read(item, line))
            sequence.lines.append(line)
        return sequence
    return value


def _as_file(values: dict[str, Any]) -> tuple[YamlMap, list[str]]:
    names = list(values)
    mapping = YamlMap(0)
    for line, name in enumerate(names, start=1):
        mapping[name] = _as_read(values[name], line)
        mapping.key_lines[name] = line
    return mapping, names


def check_values(
    fields: tuple[Field, ...], values: dict[str, Any], what: str, glossary: Collection[str]
) -> dict[str, list[str]]:
    """Check `values` (by content-file field name) with the rules the files are read by:
    each field's own checks and its glossary links. The problems, by field name."""
    mapping, names = _as_file(values)
    reading = _ValuesReading(glossary, names)
    for declared in fields:
        if declared.name in values:
            declared.read(reading, mapping, what)
    return reading.problems


def check_block(kind, values: dict[str, Any], glossary: Collection[str]) -> dict[str, list[str]]:
    """Check a block's values (by content-file field name) exactly as the files' reader
    checks a file's block: through `BlockKind.read`, each field then the kind's checks
    across fields. The problems by field name ('' for those no one field holds). A value
    that is its optional field's default is left out, as the exporter leaves it out."""
    defaults = {field.name: field.default for field in kind.fields if not field.required}
    values = {
        name: value for name, value in values.items()
        if name not in defaults or value != defaults[name]
    }
    mapping, names = _as_file(values)
    reading = _ValuesReading(glossary, names)
    kind.read(reading, mapping, f"a {kind.name} block")
    return reading.problems
