"""Read a content folder into checked, plain data; every problem is reported with its line.

YAML is composed into a node tree first (not loaded straight to Python) so that each
mapping remembers the line of every field, and duplicate fields can be caught.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from course.content_files.errors import ContentError, ContentErrors, did_you_mean
from course.markup import TERM_LINK
from course.models import (
    RUN_LIMITS,
    Block,
    Course,
    GlossaryTerm,
    Lesson,
    OrderingExercise,
    Snippet,
)

SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
SLUG_MAX_LENGTH = 50
LINK_LIKE = re.compile(r"\[\[(.*?)\]\]")

KINDS = [kind.value for kind in Block.Kind]
GRADINGS = [grading.value for grading in OrderingExercise.Grading]
COMMON_BLOCK_FIELDS = ("kind", "key", "title", "body")
BLOCK_FIELDS = {
    Block.Kind.PROSE: COMMON_BLOCK_FIELDS,
    Block.Kind.TRY_IT: COMMON_BLOCK_FIELDS,
    Block.Kind.SNIPPET: (
        *COMMON_BLOCK_FIELDS, "caption", "language", "code", "output", "limits"
    ),
    Block.Kind.ORDERING: (
        *COMMON_BLOCK_FIELDS,
        "intro",
        "grading",
        "lines",
        "distractors",
        "expected_output",
    ),
    Block.Kind.DATA_FLOW: (*COMMON_BLOCK_FIELDS, "steps"),
    Block.Kind.EXPLANATIONS: (*COMMON_BLOCK_FIELDS, "items"),
    Block.Kind.EXAMPLES: (*COMMON_BLOCK_FIELDS, "items"),
}
ITEM_FIELDS = {
    Block.Kind.EXPLANATIONS: ("title", "body"),
    Block.Kind.EXAMPLES: ("title", "lines", "body"),
}
COURSE_FIELDS = ("title", "summary", "order", "limits", "lessons")
LESSON_FIELDS = ("title", "level", "summary", "what_you_will_see", "terms", "blocks")
TERM_FIELDS = ("slug", "term", "definition", "see_also")
LINE_FIELDS = ("key", "text", "depends_on")
DISTRACTOR_FIELDS = ("key", "text")
KINDS_WITH_REQUIRED_KEY = {Block.Kind.SNIPPET, Block.Kind.ORDERING}


def max_length(model, name: str) -> int:
    return model._meta.get_field(name).max_length


def generated_block_key(kind: str, ordinal: int) -> str:
    """The key of a block written without one: its kind and its place among that kind."""
    return f"{kind.replace('_', '-')}-{ordinal}"


# --- The checked content ------------------------------------------------------------------


@dataclass
class SnippetData:
    caption: str
    language: str
    code: str
    expected_output: str
    run_limits: dict = field(default_factory=dict)


@dataclass
class LineData:
    key: str
    text: str
    depends_on: list[str] = field(default_factory=list)
    depends_on_lines: dict[str, int] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class ExerciseData:
    intro: str
    grading: str
    expected_output: str
    lines: list[LineData]
    distractors: list[LineData]


@dataclass
class BlockData:
    key: str
    kind: str
    title: str
    body: str
    items: list
    snippet: SnippetData | None = None
    exercise: ExerciseData | None = None


@dataclass
class LessonData:
    slug: str
    path: str
    title: str
    level: str
    summary: str
    what_you_will_see: str
    terms: list[str]
    blocks: list[BlockData]


@dataclass
class CourseData:
    slug: str
    path: str
    title: str
    summary: str
    position: int
    lessons: list[LessonData]
    run_limits: dict = field(default_factory=dict)


@dataclass
class TermData:
    slug: str
    term: str
    definition: str
    see_also: list[str]


@dataclass
class Content:
    root: str
    glossary_path: str
    courses: list[CourseData]
    terms: list[TermData]


# --- YAML with lines -----------------------------------------------------------------------


class YamlMap(dict):
    """A YAML mapping that knows its own line and the line of each field (1-based)."""

    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.key_lines: dict[str, int] = {}
        self.nodes: dict[str, yaml.Node] = {}

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class YamlList(list):
    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.lines: list[int] = []


def describe(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "a set of fields"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return "text"
    return type(value).__name__


# --- The reader -----------------------------------------------------------------------------


class _Reader:
    def __init__(self, root: Path):
        self.root = root
        self.errors: list[ContentError] = []
        # (path, node, line, text) of every Markdown field, checked once the glossary is known.
        self.markdown: list[tuple[str, yaml.Node | None, int, str]] = []
        # (path, line, slug, what) of every glossary slug a lesson lists in its terms.
        self.term_refs: list[tuple[str, int, str, str]] = []
        self._constructor = yaml.SafeLoader("")

    def error(self, path: str, line: int | None, message: str) -> None:
        self.errors.append(ContentError(path, line, message))

    def shown(self, path: Path) -> str:
        return str(path)

    # -- files

    def load(self, path: Path) -> YamlMap | None:
        shown = self.shown(path)
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = path.read_bytes()[: exc.start].count(b"\n") + 1
            self.error(shown, line, "not UTF-8 text; save the file as UTF-8")
            return None
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            detail = exc.problem or ""
            if exc.context:
                detail = f"{exc.context}, {detail}" if detail else exc.context
            self.error(shown, mark.line + 1 if mark else None, f"YAML syntax error: {detail}")
            return None
        except yaml.YAMLError as exc:
            self.error(shown, None, f"YAML syntax error: {exc}")
            return None
        if node is None:
            self.error(shown, 1, "the file is empty")
            return None
        if not isinstance(node, yaml.MappingNode):
            self.error(shown, node.start_mark.line + 1, "the file must hold fields (name: value)")
            return None
        return self.to_python(shown, node)

    def to_python(self, path: str, node: yaml.Node):
        if isinstance(node, yaml.MappingNode):
            mapping = YamlMap(node.start_mark.line + 1)
            for key_node, value_node in node.value:
                line = key_node.start_mark.line + 1
                if (
                    not isinstance(key_node, yaml.ScalarNode)
                    or key_node.tag != "tag:yaml.org,2002:str"
                ):
                    self.error(path, line, f"a field name must be a word, not {key_node.value!r}")
                    continue
                key = key_node.value
                if key in mapping:
                    self.error(
                        path,
                        line,
                        f"field '{key}' appears twice (first on line {mapping.key_lines[key]})",
                    )
                    continue
                mapping[key] = self.to_python(path, value_node)
                mapping.key_lines[key] = line
                mapping.nodes[key] = value_node
            return mapping
        if isinstance(node, yaml.SequenceNode):
            sequence = YamlList(node.start_mark.line + 1)
            for item in node.value:
                sequence.append(self.to_python(path, item))
                sequence.lines.append(item.start_mark.line + 1)
            return sequence
        return self._constructor.construct_object(node, deep=True)

    # -- field helpers

    def check_fields(
        self, path: str, mapping: YamlMap, allowed: tuple[str, ...], what: str
    ) -> None:
        for key in mapping:
            if key in allowed:
                continue
            hint = did_you_mean(key, allowed) or f" (its fields: {', '.join(allowed)})"
            self.error(path, mapping.line_of(key), f"unknown field '{key}' in {what}{hint}")

    def text(
        self,
        path: str,
        mapping: YamlMap,
        name: str,
        what: str,
        *,
        required: bool = False,
        limit: int | None = None,
        markdown: bool = False,
    ) -> str:
        value = mapping.get(name)
        line = mapping.line_of(name)
        if value is None:
            if required:
                self.error(path, line, f"{what} needs '{name}'")
            return ""
        if not isinstance(value, str):
            hint = "; put it in quotes" if isinstance(value, int | float) else ""
            self.error(path, line, f"'{name}' must be text, not {describe(value)}{hint}")
            return ""
        if required and not value.strip():
            self.error(path, line, f"'{name}' must not be empty")
        if limit and len(value) > limit:
            self.error(path, line, f"'{name}' is {len(value)} characters long; at most {limit}")
        if markdown:
            self.markdown.append((path, mapping.nodes.get(name), line, value))
        return value

    def run_limits(self, path: str, mapping: YamlMap) -> dict:
        """`limits:` — sandbox limits by name (see course.models.RUN_LIMITS), positive numbers."""
        value = mapping.get("limits")
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.error(
                path,
                mapping.line_of("limits"),
                f"'limits' must be names with numbers (like wall_seconds: 20), not {describe(value)}",
            )
            return {}
        limits = {}
        for name, number in value.items():
            line = value.line_of(name) if isinstance(value, YamlMap) else mapping.line_of("limits")
            if name not in RUN_LIMITS:
                hint = did_you_mean(name, RUN_LIMITS) or f" (limits: {', '.join(RUN_LIMITS)})"
                self.error(path, line, f"unknown limit '{name}'{hint}")
            elif isinstance(number, bool) or not isinstance(number, int | float) or number <= 0:
                self.error(path, line, f"limit '{name}' must be a positive number, not {describe(number)}")
            else:
                limits[name] = number
        return limits

    def slug(self, path: str, line: int, value, what: str) -> str | None:
        if not isinstance(value, str):
            self.error(path, line, f"{what} must be a slug, not {describe(value)}")
            return None
        if not SLUG.fullmatch(value) or len(value) > SLUG_MAX_LENGTH:
            self.error(
                path,
                line,
                f"{what} '{value}' is not a slug: use lower-case letters, digits and hyphens "
                f"(at most {SLUG_MAX_LENGTH})",
            )
            return None
        return value

    def list_of(
        self, path: str, mapping: YamlMap, name: str, *, required: bool = False, what: str = ""
    ):
        value = mapping.get(name)
        if value is None:
            if required:
                self.error(path, mapping.line_of(name), f"{what} needs '{name}'")
            return YamlList(mapping.line_of(name))
        if not isinstance(value, list):
            self.error(
                path, mapping.line_of(name), f"'{name}' must be a list, not {describe(value)}"
            )
            return YamlList(mapping.line_of(name))
        if required and not value:
            self.error(path, mapping.line_of(name), f"'{name}' must not be empty")
        return value

    def slug_list(
        self,
        path: str,
        mapping: YamlMap,
        name: str,
        item: str,
        *,
        required: bool = False,
        what: str = "",
    ) -> list[tuple[str, int]]:
        """The slugs listed in a field, with their lines; duplicates are reported."""
        items = self.list_of(path, mapping, name, required=required, what=what)
        seen: dict[str, int] = {}
        slugs = []
        for value, line in zip(items, items.lines, strict=True):
            slug = self.slug(path, line, value, item)
            if slug is None:
                continue
            if slug in seen:
                self.error(
                    path, line, f"'{slug}' is listed twice in '{name}' (first on line {seen[slug]})"
                )
                continue
            seen[slug] = line
            slugs.append((slug, line))
        return slugs

    def mapping_items(self, path: str, items: YamlList, what: str):
        for value, line in zip(items, items.lines, strict=True):
            if not isinstance(value, YamlMap):
                self.error(
                    path, line, f"each {what} must be a set of fields, not {describe(value)}"
                )
                continue
            yield value

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
            elif entry.suffix in {".yaml", ".yml"} and entry.name != "glossary.yaml":
                self.error(
                    self.shown(entry),
                    None,
                    "unexpected file: the content folder holds glossary.yaml and one folder per "
                    f"course{did_you_mean(entry.name, ['glossary.yaml'])}",
                )
        if terms is None:
            # Without a readable glossary every reference would look wrong: say nothing yet.
            terms = []
        else:
            self.check_references({term.slug for term in terms})
        return Content(
            root=self.shown(self.root),
            glossary_path=self.shown(self.root / "glossary.yaml"),
            courses=courses,
            terms=terms,
        )

    def check_references(self, glossary: set[str]) -> None:
        for path, line, slug, what in self.term_refs:
            if slug not in glossary:
                self.error(
                    path,
                    line,
                    f"{what} '{slug}' is not in the glossary{did_you_mean(slug, glossary)}",
                )
        for path, node, line, text in self.markdown:
            for match in LINK_LIKE.finditer(text):
                where = self.line_in_text(node, line, text, match.start())
                link = TERM_LINK.fullmatch(match.group(0))
                if link is None:
                    self.error(
                        path,
                        where,
                        f"bad glossary link '{match.group(0)}': write [[slug]] or [[slug|shown text]] "
                        "with the term's lower-case slug",
                    )
                elif link.group(1) not in glossary:
                    self.error(
                        path,
                        where,
                        f"glossary link '{match.group(0)}' points at no term"
                        f"{did_you_mean(link.group(1), glossary)}",
                    )

    @staticmethod
    def line_in_text(node: yaml.Node | None, line: int, text: str, offset: int) -> int:
        """The file line of a character of a literal block (`|`); the field's line otherwise."""
        if node is None or getattr(node, "style", None) != "|":
            return line
        return node.start_mark.line + 2 + text.count("\n", 0, offset)

    # -- glossary

    def read_glossary(self, path: Path) -> list[TermData] | None:
        shown = self.shown(path)
        if not path.is_file():
            self.error(
                shown,
                None,
                "missing: the content folder needs a glossary.yaml (`terms: []` if empty)",
            )
            return None
        root = self.load(path)
        if root is None:
            return None
        self.check_fields(shown, root, ("terms",), "the glossary")
        terms: list[TermData] = []
        seen: dict[str, int] = {}
        see_also_lines: list[tuple[TermData, list[tuple[str, int]]]] = []
        for entry in self.mapping_items(
            shown, self.list_of(shown, root, "terms", required=False), "term"
        ):
            self.check_fields(shown, entry, TERM_FIELDS, "a glossary term")
            slug = entry.get("slug")
            if slug is None:
                self.error(shown, entry.line, "a glossary term needs 'slug'")
                continue
            slug = self.slug(shown, entry.line_of("slug"), slug, "slug")
            if slug is None:
                continue
            if slug in seen:
                self.error(
                    shown,
                    entry.line_of("slug"),
                    f"term '{slug}' is defined twice (first on line {seen[slug]})",
                )
                continue
            seen[slug] = entry.line_of("slug")
            what = f"term '{slug}'"
            term = TermData(
                slug=slug,
                term=self.text(
                    shown,
                    entry,
                    "term",
                    what,
                    required=True,
                    limit=max_length(GlossaryTerm, "term"),
                ),
                definition=self.text(
                    shown, entry, "definition", what, required=True, markdown=True
                ),
                see_also=[],
            )
            see_also_lines.append(
                (term, self.slug_list(shown, entry, "see_also", "see_also entry"))
            )
            terms.append(term)
        for term, see_also in see_also_lines:
            for other, line in see_also:
                if other == term.slug:
                    self.error(shown, line, f"term '{other}' cannot point at itself")
                elif other not in seen:
                    self.error(
                        shown,
                        line,
                        f"see_also '{other}' is not in the glossary{did_you_mean(other, seen)}",
                    )
            linked = [
                slug
                for slug in dict.fromkeys(m.group(1) for m in TERM_LINK.finditer(term.definition))
            ]
            term.see_also = [
                slug
                for slug in dict.fromkeys([*linked, *(s for s, _ in see_also)])
                if slug != term.slug
            ]
        return terms

    # -- courses and lessons

    def read_course(self, folder: Path) -> CourseData | None:
        path = folder / "course.yaml"
        shown = self.shown(path)
        if not path.is_file():
            self.error(shown, None, "missing: every course folder needs a course.yaml")
            return None
        slug = self.slug(shown, None, folder.name, "course folder name")
        root = self.load(path)
        lesson_files = {}
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") or entry.name == "course.yaml":
                continue
            if entry.suffix == ".yml":
                self.error(self.shown(entry), None, "lesson files end in .yaml, not .yml")
            elif entry.suffix == ".yaml":
                lesson_files[entry.stem] = entry
        lessons = {stem: self.read_lesson(file) for stem, file in lesson_files.items()}
        if root is None or slug is None:
            return None
        self.check_fields(shown, root, COURSE_FIELDS, "course.yaml")
        what = "course.yaml"
        title = self.text(
            shown, root, "title", what, required=True, limit=max_length(Course, "title")
        )
        summary = self.text(shown, root, "summary", what, markdown=True)
        position = root.get("order", 0)
        if isinstance(position, bool) or not isinstance(position, int) or position < 0:
            self.error(
                shown,
                root.line_of("order"),
                f"'order' must be a whole number, not {describe(position)}",
            )
            position = 0
        listed = self.slug_list(shown, root, "lessons", "lesson", required=True, what=what)
        ordered = []
        for lesson_slug, line in listed:
            if lesson_slug not in lesson_files:
                self.error(
                    shown,
                    line,
                    f"lesson '{lesson_slug}' is listed but there is no {lesson_slug}.yaml in "
                    f"{folder.name}/{did_you_mean(lesson_slug, lesson_files)}",
                )
            elif lessons[lesson_slug] is not None:
                ordered.append(lessons[lesson_slug])
        listed_slugs = {lesson_slug for lesson_slug, _ in listed}
        for stem in lesson_files:
            if stem not in listed_slugs:
                self.error(
                    shown,
                    root.line_of("lessons"),
                    f"{stem}.yaml is not listed in 'lessons': add '{stem}' where it belongs in the "
                    "order, or remove the file",
                )
        return CourseData(
            slug=slug,
            path=shown,
            title=title,
            summary=summary,
            position=position,
            lessons=ordered,
            run_limits=self.run_limits(shown, root),
        )

    def read_lesson(self, path: Path) -> LessonData | None:
        shown = self.shown(path)
        slug = self.slug(shown, None, path.stem, "lesson file name")
        root = self.load(path)
        if root is None or slug is None:
            return None
        what = "the lesson"
        self.check_fields(shown, root, LESSON_FIELDS, what)
        terms = self.slug_list(shown, root, "terms", "term")
        for term, line in terms:
            self.term_refs.append((shown, line, term, "term"))
        lesson = LessonData(
            slug=slug,
            path=shown,
            title=self.text(
                shown, root, "title", what, required=True, limit=max_length(Lesson, "title")
            ),
            level=self.text(shown, root, "level", what, limit=max_length(Lesson, "level")),
            summary=self.text(shown, root, "summary", what, markdown=True),
            what_you_will_see=self.text(shown, root, "what_you_will_see", what),
            terms=[term for term, _ in terms],
            blocks=[],
        )
        keys: dict[str, int] = {}
        ordinals: dict[str, int] = {}
        for entry in self.mapping_items(shown, self.list_of(shown, root, "blocks"), "block"):
            block = self.read_block(shown, entry, ordinals)
            if block is None:
                continue
            line = entry.line_of("key")
            if block.key in keys:
                made = "" if "key" in entry else " (made from its kind and position)"
                self.error(
                    shown,
                    line,
                    f"block key '{block.key}'{made} is already used by the block on line "
                    f"{keys[block.key]}: keys must be unique in a lesson",
                )
                continue
            keys[block.key] = line
            lesson.blocks.append(block)
        return lesson

    def read_block(self, path: str, entry: YamlMap, ordinals: dict[str, int]) -> BlockData | None:
        kind = entry.get("kind")
        if kind is None:
            self.error(path, entry.line, f"a block needs 'kind' (one of: {', '.join(KINDS)})")
            return None
        if kind not in KINDS:
            hint = did_you_mean(kind, KINDS) or f" (kinds: {', '.join(KINDS)})"
            self.error(path, entry.line_of("kind"), f"unknown block kind '{kind}'{hint}")
            return None
        what = f"a {kind} block"
        self.check_fields(path, entry, BLOCK_FIELDS[kind], what)
        ordinals[kind] = ordinals.get(kind, 0) + 1
        if "key" in entry:
            key = self.slug(path, entry.line_of("key"), entry["key"], "key") or ""
        elif kind in KINDS_WITH_REQUIRED_KEY:
            self.error(
                path, entry.line, f"{what} needs 'key': learners' work points at it by its key"
            )
            key = ""
        else:
            key = generated_block_key(kind, ordinals[kind])
        block = BlockData(
            key=key,
            kind=kind,
            title=self.text(path, entry, "title", what, limit=max_length(Block, "title")),
            body=self.text(path, entry, "body", what, markdown=True),
            items=[],
        )
        if kind == Block.Kind.SNIPPET:
            block.snippet = SnippetData(
                caption=self.text(
                    path, entry, "caption", what, limit=max_length(Snippet, "caption")
                ),
                language=self.text(
                    path, entry, "language", what, limit=max_length(Snippet, "language")
                )
                or "python",
                code=self.text(path, entry, "code", what, required=True),
                expected_output=self.text(path, entry, "output", what),
                run_limits=self.run_limits(path, entry),
            )
        elif kind == Block.Kind.ORDERING:
            block.exercise = self.read_exercise(path, entry, what)
        elif kind == Block.Kind.DATA_FLOW:
            steps = self.list_of(path, entry, "steps", required=True, what=what)
            for step, line in zip(steps, steps.lines, strict=True):
                if not isinstance(step, str) or not step.strip():
                    self.error(path, line, f"each step must be text, not {describe(step)}")
                else:
                    block.items.append(step)
        elif kind in ITEM_FIELDS:
            fields = ITEM_FIELDS[kind]
            items = self.list_of(path, entry, "items", required=True, what=what)
            for item in self.mapping_items(path, items, "item"):
                self.check_fields(path, item, fields, f"an item of {what}")
                block.items.append(
                    {
                        name: self.text(
                            path,
                            item,
                            name,
                            "an item",
                            required=name == "title",
                            markdown=name == "body",
                        )
                        for name in fields
                    }
                )
        if not key:
            return None
        return block

    def read_exercise(self, path: str, entry: YamlMap, what: str) -> ExerciseData:
        grading = entry.get("grading", OrderingExercise.Grading.EXACT)
        if grading not in GRADINGS:
            hint = did_you_mean(str(grading), GRADINGS) or f" (one of: {', '.join(GRADINGS)})"
            self.error(path, entry.line_of("grading"), f"unknown grading '{grading}'{hint}")
        lines = self.read_lines(
            path, self.list_of(path, entry, "lines", required=True, what=what), LINE_FIELDS
        )
        distractors = self.read_lines(
            path, self.list_of(path, entry, "distractors"), DISTRACTOR_FIELDS
        )
        keys: dict[str, int] = {}
        for line_data, line in [*lines, *distractors]:
            if line_data.key in keys:
                self.error(
                    path,
                    line,
                    f"line key '{line_data.key}' is already used on line {keys[line_data.key]}: "
                    "keys must be unique in an exercise",
                )
            else:
                keys.setdefault(line_data.key, line)
        self.check_dependencies(path, lines, {d.key for d, _ in distractors})
        return ExerciseData(
            intro=self.text(path, entry, "intro", what, markdown=True),
            grading=grading if grading in GRADINGS else OrderingExercise.Grading.EXACT,
            expected_output=self.text(path, entry, "expected_output", what),
            lines=[line_data for line_data, _ in lines],
            distractors=[line_data for line_data, _ in distractors],
        )

    def read_lines(
        self, path: str, items: YamlList, fields: tuple[str, ...]
    ) -> list[tuple[LineData, int]]:
        what = "a line" if "depends_on" in fields else "a distractor"
        result = []
        for item in self.mapping_items(path, items, "line"):
            self.check_fields(path, item, fields, what)
            if "key" not in item:
                self.error(path, item.line, f"{what} needs 'key'")
                continue
            key = self.slug(path, item.line_of("key"), item["key"], "line key")
            text = self.text(path, item, "text", what, required=True)
            depends_on = (
                self.slug_list(path, item, "depends_on", "depends_on entry")
                if "depends_on" in fields
                else []
            )
            if key is None:
                continue
            line_data = LineData(
                key=key,
                text=text,
                depends_on=[slug for slug, _ in depends_on],
                depends_on_lines=dict(depends_on),
            )
            result.append((line_data, item.line_of("key")))
        return result

    def check_dependencies(
        self, path: str, lines: list[tuple[LineData, int]], distractors: set[str]
    ) -> None:
        position = {line_data.key: n for n, (line_data, _) in enumerate(lines)}
        graph: dict[str, list[str]] = {}
        for line_data, _ in lines:
            graph[line_data.key] = []
            for other, line in line_data.depends_on_lines.items():
                if other == line_data.key:
                    self.error(path, line, f"line '{other}' cannot depend on itself")
                elif other in distractors:
                    self.error(path, line, f"'{other}' is a distractor: no line can depend on it")
                elif other not in position:
                    self.error(
                        path,
                        line,
                        f"depends_on '{other}' is not a line of this exercise{did_you_mean(other, position)}",
                    )
                else:
                    graph[line_data.key].append(other)
        cycle = find_cycle(graph)
        if cycle:
            first = min(cycle, key=position.__getitem__)
            start = cycle.index(first)
            loop = [*cycle[start:], *cycle[:start], first]
            line = next(lines_ for data, lines_ in lines if data.key == first)
            self.error(
                path, line, f"depends_on cycle: {' -> '.join(loop)}; no order could satisfy it"
            )
            return
        for line_data, _ in lines:
            for other in graph[line_data.key]:
                if position[other] > position[line_data.key]:
                    self.error(
                        path,
                        line_data.depends_on_lines[other],
                        f"line '{line_data.key}' depends on '{other}', which comes after it: "
                        "list the lines in an order that works",
                    )


def find_cycle(graph: dict[str, list[str]]) -> list[str]:
    """One cycle of the graph, as a list of nodes, or [] when there is none."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for other in graph.get(node, []):
            if state.get(other) == 1:
                return path[path.index(other) :]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in graph:
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def read_content(directory: str | Path) -> Content:
    """Read and check every file under `directory`; raise ContentErrors listing all problems."""
    reader = _Reader(Path(directory))
    content = reader.read()
    if reader.errors:
        raise ContentErrors(reader.errors)
    return content
