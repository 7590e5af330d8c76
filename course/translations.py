"""Lessons and glossary terms in other languages.

A translation holds only prose: the fields declared `translatable` (course.kinds.fields),
keyed by what never changes between languages: a lesson's own fields by name, its blocks by
their keys, keyed items (an exercise's tests, a question's options) by their keys and other
items and lists by their place. Code, outputs, keys and settings are the English lesson's,
shared by every language. A translation is kept on its row (`Lesson.translations`,
`GlossaryTerm.translations`: language code -> the document a translation file holds) and
shown field by field: what it lacks, or what no longer fits the English (a list of another
length), is shown in English.
"""

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils.translation import get_language_info

from course import kinds
from course.content_files.errors import did_you_mean
from course.content_files.yaml_lines import YamlList, YamlMap
from course.content_files.yaml_writing import Literal
from course.kinds.fields import Field, Items, Reading, TextList, describe


def languages() -> list[str]:
    """The languages a lesson may be translated into: every language the site speaks but its
    own (the content files are written in English)."""
    return [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def language_name(code: str) -> str:
    """The language's name in itself ("español", "Deutsch"): a page says it in its own."""
    return get_language_info(code)["name_local"]


def translated_fields(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    """The fields a translator translates: prose ones, and lists of items with prose."""
    return tuple(
        declared
        for declared in fields
        if declared.translatable or (isinstance(declared, Items) and declared.translated_fields)
    )


def block_fields(kind_name: str) -> tuple[Field, ...]:
    return translated_fields(kinds.get(kind_name).fields)


# --- Reading a translation (a file's, or what the admin holds) ----------------------------------


def read_fields(
    reading: Reading, mapping: YamlMap, fields: tuple[Field, ...], english: dict, what: str
) -> dict[str, Any]:
    """The translation of `fields` that `mapping` holds, checked: text where the English
    has text, lists where it has lists, keyed items by keys the English has. A field left
    empty is left out (it is not translated)."""
    every = [declared.name for declared in fields]
    fields = translated_fields(fields)
    names = [declared.name for declared in fields]
    listed = f" (its translated fields: {', '.join(names)})" if names else ""
    for name in mapping:
        if name in names:
            continue
        if name in every:
            message = (
                f"'{name}' is not translated in {what}: code, outputs, keys and settings are the "
                f"English lesson's, shared by every language{listed}"
            )
        else:
            message = f"unknown field '{name}' in {what}{did_you_mean(name, names) or listed}"
        reading.error(mapping.line_of(name), message)
    values: dict[str, Any] = {}
    for declared in fields:
        if declared.name not in mapping or mapping[declared.name] is None:
            continue
        if isinstance(declared, Items):
            value = _read_items(reading, mapping, declared, english.get(declared.name) or [], what)
        else:
            value = declared.read_value(reading, mapping, what)
            if isinstance(declared, TextList):
                value = [str(entry) for entry in value]
            elif isinstance(value, str):
                value = str(value)
        if value:
            values[declared.name] = value
    return values


def _read_items(reading: Reading, mapping: YamlMap, declared: Items, english: list, what: str):
    subfields = declared.translated_fields
    line = mapping.line_of(declared.name)
    value = mapping[declared.name]
    item = f"{declared.article} {declared.item}"
    if declared.keyed:
        if not isinstance(value, YamlMap):
            reading.error(
                line,
                f"'{declared.name}' must be {declared.item}s by their keys, not {describe(value)}",
            )
            return {}
        translated = {}
        for key, entry in value.items():
            # A key the English no longer has is kept: check_content reports it as stale.
            if not isinstance(entry, YamlMap):
                reading.error(
                    value.line_of(key),
                    f"each {declared.item} must be a set of fields, not {describe(entry)}",
                )
            else:
                fields = read_fields(reading, entry, subfields, {}, item)
                if fields:
                    translated[str(key)] = fields
        return translated
    if not isinstance(value, YamlList):
        reading.error(
            line, f"'{declared.name}' must be a list, in the English order, not {describe(value)}"
        )
        return []
    translated = []
    for entry, at in zip(value, value.lines, strict=True):
        if not isinstance(entry, YamlMap):
            reading.error(
                at, f"each {declared.item} must be a set of fields, not {describe(entry)}"
            )
            continue
        translated.append(read_fields(reading, entry, subfields, {}, item))
    return translated


def read_lesson(
    reading: Reading,
    root: YamlMap,
    lesson_fields: tuple[Field, ...],
    english: dict,
    blocks: dict[str, tuple[str, dict]],
) -> dict[str, Any]:
    """A lesson's translation from its file's document: its own fields, then `blocks`, each
    by the key of a block of the English lesson (`blocks`: key -> (kind, English values))."""
    document = read_fields(reading, _Only(root, "blocks"), lesson_fields, english, "the lesson")
    entries = root.get("blocks")
    if entries is None:
        return document
    if not isinstance(entries, YamlMap):
        reading.error(
            root.line_of("blocks"),
            f"'blocks' must be blocks by their keys, not {describe(entries)}",
        )
        return document
    translated = {}
    for key, entry in entries.items():
        if key not in blocks:
            # The author removed the block (or the key is mistyped): the translation is kept,
            # so the author's change never waits for a translator; check_content reports it.
            kept = _read_loose(reading, entry, entries.line_of(key), f"block '{key}'")
            if kept:
                translated[str(key)] = kept
            continue
        if not isinstance(entry, YamlMap):
            reading.error(
                entries.line_of(key),
                f"block '{key}' must be a set of fields, not {describe(entry)}",
            )
            continue
        kind_name, values = blocks[key]
        kind = kinds.get(kind_name)
        read = read_fields(reading, entry, kind.fields, values, f"a {kind.name} block")
        if read:
            translated[str(key)] = read
    if translated:
        document["blocks"] = translated
    return document


def _read_loose(reading: Reading, value, line: int | None, what: str):
    """A translation of a block the lesson does not have: fields of text, lists and fields,
    kept as they are (what they translate is unknown)."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, YamlList):
        return [
            _read_loose(reading, entry, at, what)
            for entry, at in zip(value, value.lines, strict=True)
        ]
    if isinstance(value, YamlMap):
        return {
            str(key): _read_loose(reading, entry, value.line_of(key), what)
            for key, entry in value.items()
        }
    reading.error(line, f"{what} must hold text, lists and fields, not {describe(value)}")
    return ""


def _write_loose(value):
    if isinstance(value, dict):
        return {key: _write_loose(entry) for key, entry in value.items()}
    if isinstance(value, list):
        return [_write_loose(entry) for entry in value]
    return Literal(value)


class _Only(YamlMap):
    """A mapping's fields but one (a lesson translation's own fields, without `blocks`)."""

    def __init__(self, mapping: YamlMap, left_out: str):
        super().__init__(mapping.line)
        self.key_lines = dict(mapping.key_lines)
        for key, value in mapping.items():
            if key != left_out:
                self[key] = value


# --- Writing one (a translation file, the admin's text) -------------------------------------------


def write_fields(fields: tuple[Field, ...], values: dict, english: dict | None = None) -> dict:
    """A translation's fields as a file says them, in their declared order (keyed items in
    the English order, when `english` is given)."""
    document = {}
    for declared in translated_fields(fields):
        value = values.get(declared.name)
        if not value:
            continue
        if isinstance(declared, Items):
            subfields = declared.translated_fields
            if declared.keyed:
                order = [item.get("key") for item in (english or {}).get(declared.name) or []]
                keys = [key for key in order if key in value] + sorted(
                    key for key in value if key not in order
                )
                document[declared.name] = {key: write_fields(subfields, value[key]) for key in keys}
            else:
                document[declared.name] = [write_fields(subfields, item) for item in value]
        else:
            document[declared.name] = declared.write(value)
    return document


def lesson_document(lesson_fields: tuple[Field, ...], translation: dict, blocks: list) -> dict:
    """A lesson's translation as its file says it: the lesson's fields, then its blocks in
    page order (`blocks`: the lesson's Block rows, in order)."""
    document = write_fields(lesson_fields, translation)
    translated = translation.get("blocks") or {}
    written = {}
    for block in blocks:
        if block.key in translated:
            english = block.kind_spec.values_of(block)
            written[block.key] = write_fields(
                block_fields(block.kind), translated[block.key], english
            )
    # Then the translations of blocks the lesson no longer has, as they were (check_content).
    for key in sorted(set(translated) - {block.key for block in blocks}):
        written[key] = _write_loose(translated[key])
    if written:
        document["blocks"] = written
    return document


# --- Showing one ---------------------------------------------------------------------------------


@dataclass
class Shown:
    """What a page shows of a translation: the values, and what of them is English."""

    values: dict[str, Any]
    english: set[str] = field(default_factory=set)  # fields shown in English
    stale: list[str] = field(default_factory=list)  # what no longer fits the English


def merged(fields: tuple[Field, ...], english: dict, translation: dict, where: str = "") -> Shown:
    """The English values with the translation put in, field by field."""
    shown = Shown(values=dict(english))
    for declared in translated_fields(fields):
        name = declared.name
        original = english.get(name)
        if not original:
            if translation.get(name):
                shown.stale.append(f"{where}{name}: the English has none")
            continue
        given = translation.get(name)
        if not given:
            shown.english.add(name)
            continue
        if isinstance(declared, Items):
            items, complete = [], True
            subfields = declared.translated_fields
            by_key = given if declared.keyed else dict(enumerate(given))
            if declared.keyed:
                gone = [key for key in given if key not in {item.get("key") for item in original}]
                shown.stale += [
                    f"{where}{name} '{key}': the English has no such {declared.item}"
                    for key in gone
                ]
            elif len(given) > len(original):
                shown.stale.append(
                    f"{where}{name}: {len(given)} translated, the English has {len(original)}"
                )
            for n, item in enumerate(original):
                lookup = item.get("key") if declared.keyed else n
                inner = merged(
                    subfields,
                    item,
                    by_key.get(lookup) or {},
                    f"{where}{name} {lookup if declared.keyed else n + 1}: ",
                )
                items.append(inner.values)
                complete = complete and not inner.english
                shown.stale += inner.stale
            shown.values[name] = items
            if not complete:
                shown.english.add(name)
        elif isinstance(declared, TextList):
            if len(given) != len(original):
                shown.stale.append(
                    f"{where}{name}: {len(given)} translated, the English has {len(original)}"
                )
                shown.english.add(name)
            else:
                shown.values[name] = list(given)
        else:
            shown.values[name] = given
    return shown


def show_block(block, translation: dict | None) -> Shown:
    """Put a block's translation into its rows, in memory, for one page (never saved):
    what its kind's template reads is then the translation where there is one."""
    kind = block.kind_spec
    fields = block_fields(block.kind)
    english = kind.values_of(block)
    shown = merged(fields, english, translation or {})
    if translation is None:
        shown.english = {declared.name for declared in fields if english.get(declared.name)}
    else:
        kind.show_values(block, shown.values)
    return shown


def show_block_in(block, language: str) -> None:
    """Put the block's translation into `language`, where its lesson has one, into it (in
    memory): for a view that renders one block's part of the page (a hint, a question's
    feedback), as the lesson page shows it."""
    if language not in languages():
        return
    translation = ((block.lesson.translations or {}).get(language) or {}).get("blocks") or {}
    if block.key in translation:
        show_block(block, translation[block.key])


@dataclass
class LessonShown:
    """How a lesson page shows its language: `state` is "english" (the page is in English),
    "none" (not translated into it), "partial" or "full"; `english_blocks` the pks of the
    blocks shown in English, `english_fields` the lesson's own fields shown in English."""

    state: str = "english"
    english_blocks: set[int] = field(default_factory=set)
    english_fields: set[str] = field(default_factory=set)


def show_lesson_fields(lesson, lesson_fields: tuple[Field, ...], language: str) -> LessonShown:
    """Put the lesson's own fields in `language` into it, in memory (its title, level and
    summary; a course's title and summary: `show_course`); how the page shows the language,
    its blocks not yet counted (`show_blocks`)."""
    if language not in languages():
        return LessonShown()
    translation = (lesson.translations or {}).get(language)
    english = {
        declared.name: getattr(lesson, declared.name)
        for declared in translated_fields(lesson_fields)
    }
    if translation is None:
        return LessonShown(
            state="none", english_fields={name for name, value in english.items() if value}
        )
    shown = merged(lesson_fields, english, translation)
    for name, value in shown.values.items():
        setattr(lesson, name, value)
    return LessonShown(
        state="partial" if shown.english else "full", english_fields=set(shown.english)
    )


def show_course(course, language: str) -> set[str]:
    """Put the course's title and summary in `language` into it, in memory, as a lesson's
    own fields are (`show_lesson_fields`); the fields shown in English, kept on it too as
    `course.english_fields` for its templates (lang="en")."""
    from course.content_files.reader import COURSE_FIELDS

    course.english_fields = show_lesson_fields(course, COURSE_FIELDS, language).english_fields
    return course.english_fields


def show_blocks(lesson, blocks, language: str) -> LessonShown:
    """Put the lesson's translation into `language` into its blocks (rows loaded for this
    language's pages alone: changed in memory, never saved); which blocks stay English."""
    if language not in languages():
        return LessonShown()
    translation = (lesson.translations or {}).get(language)
    result = LessonShown(state="none" if translation is None else "full")
    by_key = (translation or {}).get("blocks") or {}
    for block in blocks:
        block_translation = by_key.get(block.key) if translation is not None else None
        block_shown = show_block(block, block_translation)
        if block_shown.english and block_translation is None:
            result.english_blocks.add(block.pk)
        if block_shown.english and translation is not None:
            result.state = "partial"
    return result


def show_term(term, language: str) -> bool:
    """Put the term's translation into `language` into it, in memory; whether it is shown
    in English (wholly or in part)."""
    from course.content_files.reader import TERM_FIELDS

    if language not in languages():
        return False
    translation = (term.translations or {}).get(language) or {}
    english = {"term": term.term, "definition": term.definition}
    shown = merged(TERM_FIELDS, english, translation)
    term.term, term.definition = shown.values["term"], shown.values["definition"]
    return bool(shown.english)


# --- What check_content reports ------------------------------------------------------------------


def lesson_problems(lesson, lesson_fields: tuple[Field, ...]) -> list[tuple[str, str, list[str]]]:
    """(language, "stale" or "untranslated", what) for each of the lesson's translations:
    blocks it names that the lesson no longer has and translations that no longer fit the
    English (stale), and fields it leaves in English (untranslated)."""
    problems = []
    blocks = list(lesson.blocks.all())
    keys = {block.key for block in blocks}
    for language, translation in sorted((lesson.translations or {}).items()):
        stale, untranslated = _own_problems(lesson, lesson_fields, language, translation)
        by_key = translation.get("blocks") or {}
        stale += [
            f"block '{key}': the lesson has no such block{did_you_mean(key, keys)}"
            for key in by_key
            if key not in keys
        ]
        for block in blocks:
            fields = block_fields(block.kind)
            values = block.kind_spec.values_of(block)
            inner = merged(fields, values, by_key.get(block.key) or {}, f"block '{block.key}' ")
            stale += inner.stale
            untranslated += [f"block '{block.key}' {name}" for name in sorted(inner.english)]
        if stale:
            problems.append((language, "stale", stale))
        if untranslated:
            problems.append((language, "untranslated", untranslated))
    return problems


def _own_problems(row, fields: tuple[Field, ...], language: str, translation: dict):
    """(stale, untranslated) of a translation of a lesson's or a course's own fields."""
    english = {declared.name: getattr(row, declared.name) for declared in translated_fields(fields)}
    shown = merged(fields, english, translation)
    stale = list(shown.stale)
    if language not in languages():
        stale.append(f"'{language}' is not a language of the site (settings.LANGUAGES)")
    return stale, sorted(shown.english)


def course_problems(course, course_fields: tuple[Field, ...]) -> list[tuple[str, str, list[str]]]:
    """(language, "stale" or "untranslated", what) for each of the course's translations
    (its title and summary), as `lesson_problems` says them for a lesson."""
    problems = []
    for language, translation in sorted((course.translations or {}).items()):
        stale, untranslated = _own_problems(course, course_fields, language, translation)
        if stale:
            problems.append((language, "stale", stale))
        if untranslated:
            problems.append((language, "untranslated", untranslated))
    return problems


__all__ = [
    "LessonShown",
    "Shown",
    "block_fields",
    "course_problems",
    "language_name",
    "languages",
    "lesson_document",
    "lesson_problems",
    "merged",
    "read_fields",
    "read_lesson",
    "show_block",
    "show_block_in",
    "show_blocks",
    "show_course",
    "show_lesson_fields",
    "show_term",
    "write_fields",
]
