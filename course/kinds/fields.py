"""The fields of the content files, each declared once: how it is read (and checked, with
the line of every problem) and how it is written back.

A block kind lists its fields; so do courses, lessons and glossary terms. The reader calls
`read`, the exporter calls `write`; what a field holds in between is plain Python (text,
lists, dicts), the same value the database keeps. Values read from a file carry the line
they came from (`Lined`), which checks across fields use to point at the right line.

A field also says how the admin edits it, when it is one a block keeps on its row
(`form_field`, as Wagtail's FieldBlock gives its form field): a checkbox for a Boolean, a
select for a Choice, a text box for Text, one line per entry for a TextList, JSON for the
rest. What the form field gives is checked by `read`, as a file's value is.
"""

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from django import forms
from django.db import models
from django.utils.translation import gettext

from course.content_files.errors import did_you_mean
from course.content_files.yaml_lines import YamlList, YamlMap
from course.content_files.yaml_writing import Flow, Literal, Quoted

SLUG_MAX_LENGTH = 50
_SLUG_CHARACTERS = set("abcdefghijklmnopqrstuvwxyz0123456789-")


class Reading(Protocol):
    """What a field needs from the reader: where it is, and where to say what is wrong."""

    path: str

    def error(self, line: int | None, message: str) -> None: ...

    def markdown(self, mapping: YamlMap, name: str, text: str) -> None: ...


class Lined(str):
    """Text as read from a file, remembering its line (it is still just text)."""

    line: int | None = None

    @classmethod
    def at(cls, value: str, line: int | None) -> "Lined":
        lined = cls(value)
        lined.line = line
        return lined


class LinedDict(dict):
    """An item of a list of fields, remembering the line of each of its fields."""

    line: int | None = None
    lines: dict[str, int]

    def line_of(self, name: str) -> int | None:
        return self.lines.get(name, self.line)


_LINE_BREAK = re.compile(r"\r\n?")


class ExactText(forms.CharField):
    """Text kept as typed: no stripping; a textarea's CRLF (and CR) is a line break."""

    def __init__(self, *, strip: bool = False, **kwargs):
        super().__init__(strip=strip, **kwargs)

    @property
    def multiline(self) -> bool:
        return isinstance(self.widget, forms.Textarea)

    def to_python(self, value):
        value = super().to_python(value)
        if isinstance(value, str) and self.multiline:
            value = _LINE_BREAK.sub("\n", value)
        return value

    def as_sent(self, value: str) -> str:
        """`value` as a browser sends it back from this field, read by `to_python`: a
        textarea turns every CR into a line break, a one-line input drops line breaks."""
        if self.multiline:
            return _LINE_BREAK.sub("\n", value)
        return value.replace("\r", "").replace("\n", "")

    def has_changed(self, initial, data) -> bool:
        if self.disabled:
            return False
        return self.as_sent(initial or "") != (self.to_python(data) or "")


class Lines(ExactText):
    """A list of texts, one a line; blank lines hold nothing and are left out."""

    widget = forms.Textarea

    def prepare_value(self, value):
        if isinstance(value, list):
            return "\n".join(str(entry) for entry in value)
        return value

    def to_python(self, value) -> list[str]:
        text = super().to_python(value) or ""
        return [line for line in text.split("\n") if line.strip()]

    def has_changed(self, initial, data) -> bool:
        return self.to_python(self.prepare_value(initial) or "") != self.to_python(data)


class Json(forms.JSONField):
    """JSON, laid out on several lines to be edited, in a box as wide as a body's."""

    widget = forms.Textarea(attrs={"class": "vLargeTextField"})

    def prepare_value(self, value):
        if isinstance(value, forms.fields.InvalidJSONInput):
            return value
        return json.dumps(value, ensure_ascii=False, indent=2)


class NumberText(forms.CharField):
    """A number typed in a box: read as the files read it (a whole number stays whole);
    what is not a number is kept as text, for the field's `read` to refuse in its words."""

    def to_python(self, value):
        text = (super().to_python(value) or "").strip()
        if not text:
            return None
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                continue
        return text


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


def is_slug(value: str) -> bool:
    return 0 < len(value) <= SLUG_MAX_LENGTH and value[0] != "-" and set(value) <= _SLUG_CHARACTERS


def check_fields(reading: Reading, mapping: YamlMap, allowed: Sequence[str], what: str) -> None:
    """Report every field of `mapping` that is not one of `allowed`, with a suggestion."""
    for key in mapping:
        if key in allowed:
            continue
        hint = did_you_mean(key, allowed) or f" (its fields: {', '.join(allowed)})"
        reading.error(mapping.line_of(key), f"unknown field '{key}' in {what}{hint}")


@dataclass(frozen=True)
class Field(ABC):
    name: str
    required: bool = False
    verbose_name: str = ""  # how the admin labels it; from the name if not given
    help_text: str = ""  # what the admin says under it; a default for its type if not given
    # Prose a translator translates (course/translations.py); code, outputs, keys and
    # settings are shared by every language.
    translatable: bool = False
    # Kept in Block.values even by a kind with rows of its own (a ladder of hints), so the
    # block form edits it and the importer and exporter keep it with no code of the kind's.
    kept_on_block: ClassVar[bool] = False

    @property
    def default(self) -> Any:
        return None

    # -- how the admin edits it (a block's field kept on its row)

    @property
    def form_label(self) -> str:
        return self.verbose_name or self.name.replace("_", " ").capitalize()

    @property
    def form_help(self) -> str:
        return gettext("In JSON, as the content files write it in YAML.")

    def form_field(self, stored: Any = None) -> forms.Field:
        """The admin's form field for it; `stored` is the value the block keeps (a choice
        no longer among the options is still offered, so an unchanged Save keeps it and
        the check says what is wrong). What it gives is checked by `read`, not by it."""
        return Json(
            required=False, label=self.form_label, help_text=self.help_text or self.form_help
        )

    @property
    def how_to_clear(self) -> str:
        """What the admin does to give it its default: "empty it", "untick it"."""
        return "empty it"

    def read(self, reading: Reading, mapping: YamlMap, what: str) -> Any:
        if self.name not in mapping:
            if self.required:
                reading.error(mapping.line_of(self.name), f"{what} needs '{self.name}'")
            return self.default
        return self.read_value(reading, mapping, what)

    @abstractmethod
    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> Any:
        """The field's value, present in `mapping`, checked (problems go to `reading`)."""

    def write(self, value: Any) -> Any:
        """What the file says for `value`, or None to leave the field out."""
        return value if value != self.default else None


@dataclass(frozen=True)
class Text(Field):
    """Text kept exactly. `model_field` gives its maximum length; `markdown` text is
    checked for glossary links; `quoted` text is written in quotes (code lines)."""

    model_field: models.Field | None = None
    markdown: bool = False
    quoted: bool = False
    fallback: str = ""  # the value when the field is absent (and then not written)
    always: bool = False  # written even when it is the fallback

    @property
    def default(self) -> str:
        return self.fallback

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> str:
        value, line = mapping[self.name], mapping.line_of(self.name)
        if not isinstance(value, str):
            hint = "; put it in quotes" if isinstance(value, int | float) else ""
            reading.error(line, f"'{self.name}' must be text, not {describe(value)}{hint}")
            return self.fallback
        if self.required and not value.strip():
            reading.error(line, f"'{self.name}' must not be empty")
        if "\x00" in value:
            reading.error(
                line, f"'{self.name}' holds a NUL character (\\0), which no text may hold"
            )
        limit = self.model_field.max_length if self.model_field is not None else None
        if limit and len(value) > limit:
            reading.error(line, f"'{self.name}' is {len(value)} characters long; at most {limit}")
        if self.markdown:
            reading.markdown(mapping, self.name, value)
        return Lined.at(value, line)

    def form_field(self, stored: Any = None) -> forms.Field:
        widget = forms.Textarea if self.markdown or self.quoted else forms.TextInput
        help_text = self.help_text or (gettext("Markdown.") if self.markdown else "")
        return ExactText(required=False, widget=widget, label=self.form_label, help_text=help_text)

    def write(self, value: str) -> str | None:
        if value == self.fallback and not self.always:
            return None
        return Quoted(value) if self.quoted else Literal(value)


@dataclass(frozen=True)
class Name(Field):
    """A one-line name that must match `pattern` (an exception's name), written plain."""

    pattern: re.Pattern | None = None
    meaning: str = "a name"  # what an error says it must be: "an exception's name, e.g. ..."
    model_field: models.Field | None = None  # gives its maximum length

    @property
    def default(self) -> str:
        return ""

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> str:
        value, line = mapping[self.name], mapping.line_of(self.name)
        if not isinstance(value, str) or not self.pattern.fullmatch(value):
            shown = f"'{value}'" if isinstance(value, str) else describe(value)
            reading.error(line, f"'{self.name}' must be {self.meaning}, not {shown}")
            return ""
        limit = self.model_field.max_length if self.model_field is not None else None
        if limit and len(value) > limit:
            reading.error(line, f"'{self.name}' is {len(value)} characters long; at most {limit}")
        return Lined.at(value, line)

    def write(self, value: str) -> str | None:
        return value or None


@dataclass(frozen=True)
class Choice(Field):
    """One of the model field's choices, or of `options` for a value kept on the Block row
    (`Block.values`; the first option is then the default). An `optional` choice is left
    out of the file when it is the default (`status: published` need not be written in
    every file)."""

    model_field: models.Field | None = None
    optional: bool = False
    options: tuple[str, ...] = ()

    @property
    def choices(self) -> list[str]:
        if self.model_field is None:
            return list(self.options)
        return [value for value, _ in self.model_field.choices]

    @property
    def default(self) -> str:
        if self.model_field is None:
            return self.options[0] if self.options else ""
        return self.model_field.default

    def form_field(self, stored: Any = None) -> forms.Field:
        options = [(choice, choice) for choice in self.choices]
        if stored is not None and stored not in self.choices:
            options.append((stored, f"{stored} (not one of its options)"))
        return forms.CharField(
            required=False,
            strip=False,
            widget=forms.Select(choices=options),
            label=self.form_label,
            help_text=self.help_text,
        )

    @property
    def how_to_clear(self) -> str:
        return f"choose '{self.default}'"

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> str:
        value = mapping[self.name]
        if value in self.choices:
            return value
        hint = did_you_mean(str(value), self.choices) or f" (one of: {', '.join(self.choices)})"
        reading.error(mapping.line_of(self.name), f"unknown {self.name} '{value}'{hint}")
        return self.default

    def write(self, value: str) -> str | None:
        if self.optional and value == self.default:
            return None
        return value


@dataclass(frozen=True)
class WholeNumber(Field):
    fallback: int = 0

    @property
    def default(self) -> int:
        return self.fallback

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> int:
        value = mapping[self.name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            reading.error(
                mapping.line_of(self.name),
                f"'{self.name}' must be a whole number, not {describe(value)}",
            )
            return self.fallback
        return value

    def write(self, value: int) -> int:
        return value


@dataclass(frozen=True)
class Number(Field):
    """A number, whole or with a fraction (a question's answer, a tolerance); `minimum`
    refuses less. Absent, it is `fallback` (None: no number, and left out of the file)."""

    fallback: float | int | None = None
    minimum: float | None = None

    @property
    def default(self) -> float | int | None:
        return self.fallback

    def form_field(self, stored: Any = None) -> forms.Field:
        return NumberText(required=False, label=self.form_label, help_text=self.help_text)

    def read(self, reading: Reading, mapping: YamlMap, what: str) -> float | int | None:
        # Written with nothing after it (`step:`), or null in the admin's JSON: not given.
        if self.name in mapping and mapping[self.name] is None and not self.required:
            return self.fallback
        return super().read(reading, mapping, what)

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> float | int | None:
        value = mapping[self.name]
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            hint = "; write it without quotes" if isinstance(value, str) else ""
            reading.error(
                mapping.line_of(self.name),
                f"'{self.name}' must be a number, not {describe(value)}{hint}",
            )
            return self.fallback
        if value in (float("inf"), float("-inf")):
            reading.error(mapping.line_of(self.name), f"'{self.name}' must be a finite number")
            return self.fallback
        if self.minimum is not None and value < self.minimum:
            reading.error(
                mapping.line_of(self.name), f"'{self.name}' must be at least {self.minimum:g}"
            )
            return self.fallback
        return value

    def write(self, value) -> float | int | None:
        return None if value == self.fallback else value


@dataclass(frozen=True)
class Boolean(Field):
    """true or false; left out of the file when it is the fallback."""

    fallback: bool = False

    @property
    def default(self) -> bool:
        return self.fallback

    def form_field(self, stored: Any = None) -> forms.Field:
        return forms.BooleanField(required=False, label=self.form_label, help_text=self.help_text)

    @property
    def how_to_clear(self) -> str:
        return "tick it" if self.fallback else "untick it"

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> bool:
        value = mapping[self.name]
        if not isinstance(value, bool):
            reading.error(
                mapping.line_of(self.name),
                f"'{self.name}' must be true or false, not {describe(value)}",
            )
            return self.fallback
        return value

    def write(self, value: bool) -> bool | None:
        return None if value == self.fallback else bool(value)


def read_slug(reading: Reading, line: int | None, value, what: str) -> Lined | None:
    if not isinstance(value, str):
        reading.error(line, f"{what} must be a slug, not {describe(value)}")
        return None
    if not is_slug(value):
        reading.error(
            line,
            f"{what} '{value}' is not a slug: use lower-case letters, digits and hyphens "
            f"(at most {SLUG_MAX_LENGTH})",
        )
        return None
    return Lined.at(value, line)


@dataclass(frozen=True)
class Slug(Field):
    label: str = ""  # how an error names it, e.g. "line key"

    @property
    def default(self) -> str:
        return ""

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> str:
        slug = read_slug(reading, mapping.line_of(self.name), mapping[self.name], self.label)
        return slug or ""

    def write(self, value: str) -> str:
        return value


def read_list(reading: Reading, mapping: YamlMap, name: str) -> YamlList:
    value = mapping[name]
    if not isinstance(value, list):
        reading.error(mapping.line_of(name), f"'{name}' must be a list, not {describe(value)}")
        return YamlList(mapping.line_of(name))
    return value


@dataclass(frozen=True)
class SlugList(Field):
    """Slugs, each once, in the file's order; `flow` lists are written on one line."""

    item: str = "slug"  # how an error names one entry
    flow: bool = False

    @property
    def default(self) -> list:
        return []

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> list[Lined]:
        items = read_list(reading, mapping, self.name)
        if self.required and not items and isinstance(mapping[self.name], list):
            reading.error(mapping.line_of(self.name), f"'{self.name}' must not be empty")
        seen: dict[str, int] = {}
        slugs = []
        for value, line in zip(items, items.lines, strict=True):
            slug = read_slug(reading, line, value, self.item)
            if slug is None:
                continue
            if slug in seen:
                reading.error(
                    line, f"'{slug}' is listed twice in '{self.name}' (first on line {seen[slug]})"
                )
                continue
            seen[slug] = line
            slugs.append(slug)
        return slugs

    def write(self, value: list[str]) -> list | None:
        if not value:
            return None
        return Flow(value) if self.flow else list(value)


@dataclass(frozen=True)
class TextList(Field):
    """A list of short texts, none empty (a data flow's steps)."""

    item: str = "entry"

    @property
    def default(self) -> list:
        return []

    def form_field(self, stored: Any = None) -> forms.Field:
        help_text = self.help_text or f"One {self.item} a line, in order."
        return Lines(required=False, label=self.form_label, help_text=help_text)

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> list[str]:
        items = read_list(reading, mapping, self.name)
        if self.required and not items and isinstance(mapping[self.name], list):
            reading.error(mapping.line_of(self.name), f"'{self.name}' must not be empty")
        texts = []
        for value, line in zip(items, items.lines, strict=True):
            if not isinstance(value, str) or not value.strip():
                reading.error(line, f"each {self.item} must be text, not {describe(value)}")
            elif "\x00" in value:
                reading.error(line, f"each {self.item} must be text without a NUL character")
            else:
                texts.append(value)
        return texts

    def write(self, value: list[str]) -> list | None:
        return [Literal(text) for text in value] if value else None


@dataclass(frozen=True)
class Hints(TextList):
    """A hint ladder: short Markdown texts a learner asks for one at a time, before the
    solution is shown piece by piece (tutor/practice/hints/). Each hint remembers its line,
    so a hint that gives the answer away is pointed at (`BlockKind.give_aways`)."""

    item: str = "hint"
    translatable: bool = True
    kept_on_block: ClassVar[bool] = True

    def form_field(self, stored: Any = None) -> forms.Field:
        help_text = self.help_text or gettext(
            "One hint a line (Markdown), shown one at a time on request, the gentlest first; "
            "after the last, the solution is shown a piece at a time."
        )
        if any("\n" in hint for hint in stored or ()):  # a hint of several lines: as JSON
            return Json(required=False, label=self.form_label, help_text=help_text)
        return Lines(required=False, label=self.form_label, help_text=help_text)

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> list[str]:
        items = read_list(reading, mapping, self.name)
        hints = []
        for value, line in zip(items, items.lines, strict=True):
            if not isinstance(value, str) or not value.strip():
                reading.error(line, f"each hint must be text, not {describe(value)}")
            elif "\x00" in value:
                reading.error(line, "each hint must be text without a NUL character")
            else:
                hints.append(Lined.at(value, line))
        return hints


@dataclass(frozen=True)
class Items(Field):
    """A list of items, each a set of fields of its own (cards, explanations, lines)."""

    fields: tuple[Field, ...] = ()
    item: str = "item"  # how errors name one item: "an item", "a line"

    @property
    def default(self) -> list:
        return []

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def translated_fields(self) -> tuple[Field, ...]:
        return tuple(sub for sub in self.fields if sub.translatable)

    @property
    def keyed(self) -> bool:
        """Whether each item has a stable `key` (a translation names it by its key, not its place)."""
        return any(isinstance(sub, Slug) and sub.name == "key" for sub in self.fields)

    @property
    def form_help(self) -> str:
        described = ", ".join(
            f'"{sub.name}"'
            + (" " + gettext("(required)") if sub.required else "")
            + (" " + gettext("(Markdown)") if isinstance(sub, Text) and sub.markdown else "")
            for sub in self.fields
        )
        if self.item == "item":  # the only ones the admin shows as a box of their own
            return gettext("In JSON: a list of items, each with %(fields)s.") % {
                "fields": described
            }
        return f"In JSON: a list of {self.item}s, each with {described}."

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> list[LinedDict]:
        items = read_list(reading, mapping, self.name)
        if self.required and not items and isinstance(mapping[self.name], list):
            reading.error(mapping.line_of(self.name), f"'{self.name}' must not be empty")
        result = []
        for entry, line in zip(items, items.lines, strict=True):
            if not isinstance(entry, YamlMap):
                reading.error(
                    line, f"each {self.item} must be a set of fields, not {describe(entry)}"
                )
                continue
            check_fields(reading, entry, self.names, f"{self.article} {self.item}")
            values = LinedDict()
            values.line = entry.line
            values.lines = dict(entry.key_lines)
            for sub in self.fields:
                values[sub.name] = sub.read(reading, entry, f"{self.article} {self.item}")
            result.append(values)
        return result

    @property
    def article(self) -> str:
        return "an" if self.item[:1] in "aeiou" else "a"

    def write(self, value: list[dict]) -> list | None:
        if not value:
            return None
        written = []
        for item in value:
            entry = {}
            for sub in self.fields:
                shown = sub.write(item.get(sub.name, sub.default))
                if shown is not None:
                    entry[sub.name] = shown
            written.append(entry)
        return written


@dataclass(frozen=True)
class Limits(Field):
    """Sandbox limits by name: positive numbers (course.models.RUN_LIMITS)."""

    names: dict[str, str] = field(default_factory=dict)

    @property
    def default(self) -> dict:
        return {}

    def read_value(self, reading: Reading, mapping: YamlMap, what: str) -> dict:
        value, line = mapping[self.name], mapping.line_of(self.name)
        if not isinstance(value, dict):
            reading.error(
                line,
                f"'{self.name}' must be names with numbers (like wall_seconds: 20), "
                f"not {describe(value)}",
            )
            return {}
        limits = {}
        for name, number in value.items():
            at = value.line_of(name) if isinstance(value, YamlMap) else line
            if name not in self.names:
                hint = did_you_mean(name, self.names) or f" (limits: {', '.join(self.names)})"
                reading.error(at, f"unknown limit '{name}'{hint}")
            elif isinstance(number, bool) or not isinstance(number, int | float) or number <= 0:
                reading.error(
                    at, f"limit '{name}' must be a positive number, not {describe(number)}"
                )
            else:
                limits[name] = number
        return limits

    def write(self, value: dict) -> dict | None:
        # In the declared order: a database may keep a mapping's keys in any order (jsonb does).
        return {name: value[name] for name in self.names if name in value} or None


def plain(value: Any) -> Any:
    """The value without the lines it was read from: what the database keeps."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, str):
        return str(value)
    return value
