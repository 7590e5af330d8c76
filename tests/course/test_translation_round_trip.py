"""Property: any translation that imports also exports, and re-imports identically.

Lessons of any blocks (tests/course/test_content_round_trip.py draws them, every kind the
registry knows) get translations into every language the site speaks: arbitrary text in any
of their translatable fields (course/translations.py), lists as long as the English ones,
keyed items by some of their keys; their course and glossary terms get theirs. The translation files are
written as the exporter writes them; importing them keeps every value exactly, exporting
again gives the same bytes, and importing that export gives the same database.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course import kinds, translations
from course.content_files.exporter import export_content
from course.content_files.importer import import_content
from course.content_files.reader import COURSE_FIELDS, LESSON_FIELDS, TERM_FIELDS, read_content
from course.content_files.yaml_writing import dump
from course.kinds.fields import Field, Items, Text, TextList
from course.models import Course, GlossaryTerm, Lesson
from tests.course.test_content_round_trip import (
    any_block,
    any_text,
    course_values,
    database,
    files,
    lesson_values,
    term_values,
    text_for,
    wipe,
    write_folder,
)

pytestmark = pytest.mark.django_db


def translated_text(declared: Text) -> st.SearchStrategy[str]:
    """Text as a translation holds it: an empty field is no translation, so never drawn."""
    return text_for(declared).filter(
        lambda text: text != "" and (text.strip() or not declared.required)
    )


def translation_of(draw, fields: tuple[Field, ...], english: dict) -> dict:
    """A translation of some of `fields`, for English `values`, as the reader keeps it."""
    values = {}
    for declared in translations.translated_fields(fields):
        original = english.get(declared.name)
        if not original or not draw(st.booleans()):
            continue
        if isinstance(declared, Items):
            subfields = declared.translated_fields
            if declared.keyed:
                keys = draw(
                    st.lists(st.sampled_from([item["key"] for item in original]), unique=True)
                )
                items = {key: translation_of(draw, subfields, {}) for key in keys}
                items = {key: item for key, item in items.items() if item}
            else:
                items = [translation_of(draw, subfields, {}) for _ in original]
            if items:
                values[declared.name] = items
        elif isinstance(declared, TextList):
            values[declared.name] = draw(
                st.lists(
                    any_text.filter(lambda text: text.strip()),
                    min_size=len(original),
                    max_size=len(original),
                )
            )
        else:
            values[declared.name] = draw(translated_text(declared))
    return values


def every_field(fields: tuple[Field, ...]) -> dict:
    """English values in every field: a translation may translate any of them."""
    english = {}
    for declared in fields:
        if isinstance(declared, Items):
            english[declared.name] = [{"key": "x"}]
        elif isinstance(declared, TextList):
            english[declared.name] = ["x"]
        else:
            english[declared.name] = "x"
    return english


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    course=course_values,
    lesson=lesson_values,
    blocks=st.lists(any_block, min_size=1, max_size=4),
    terms=st.lists(term_values, min_size=1, max_size=3),
    data=st.data(),
)
def test_any_translation_survives_import_export_import(
    tmp_path_factory, course, lesson, blocks, terms, data
):
    wipe()
    first = tmp_path_factory.mktemp("written")
    write_folder(first, course, lesson, blocks, terms)
    lesson_translations, term_translations, course_translations = {}, {}, {}
    for language in translations.languages():
        if course_document := translation_of(data.draw, COURSE_FIELDS, every_field(COURSE_FIELDS)):
            course_translations[language] = course_document
            (first / "course-a" / f"course.{language}.yaml").write_text(
                dump(translations.write_fields(COURSE_FIELDS, course_document)), encoding="utf-8"
            )
        document = translation_of(data.draw, LESSON_FIELDS, every_field(LESSON_FIELDS))
        translated_blocks = {}
        for n, (name, values) in enumerate(blocks):
            if block := translation_of(data.draw, kinds.get(name).fields, values):
                translated_blocks[f"block-{n}"] = block
        if translated_blocks:
            document["blocks"] = translated_blocks
        if document:
            lesson_translations[language] = document
            written = translations.write_fields(LESSON_FIELDS, document)
            written_blocks = {
                key: translations.write_fields(
                    kinds.get(blocks[int(key[6:])][0]).fields, block, blocks[int(key[6:])][1]
                )
                for key, block in translated_blocks.items()
            }
            if written_blocks:
                written["blocks"] = written_blocks
            (first / "course-a" / f"lesson-a.{language}.yaml").write_text(
                dump(written), encoding="utf-8"
            )
        glossary = {}
        for n, _ in enumerate(terms):
            if term := translation_of(data.draw, TERM_FIELDS, every_field(TERM_FIELDS)):
                glossary[f"term-{n}"] = term
                term_translations.setdefault(f"term-{n}", {})[language] = term
        if glossary:
            document = {
                "terms": {
                    slug: translations.write_fields(TERM_FIELDS, term)
                    for slug, term in glossary.items()
                }
            }
            (first / f"glossary.{language}.yaml").write_text(dump(document), encoding="utf-8")

    import_content(read_content(first))
    # The database holds exactly what the files said.
    assert Lesson.objects.get().translations == lesson_translations
    assert Course.objects.get().translations == course_translations
    assert {
        term.slug: term.translations for term in GlossaryTerm.objects.all() if term.translations
    } == (term_translations)
    imported = with_translations(database())

    exported = tmp_path_factory.mktemp("exported")
    export_content(exported)
    again = tmp_path_factory.mktemp("again")
    export_content(again)
    assert files(exported) == files(again), "export is not deterministic"
    assert files(exported) == files(first), "export differs from the files that were imported"

    wipe()
    import_content(read_content(exported))
    assert with_translations(database()) == imported


def with_translations(found: dict) -> dict:
    return {
        **found,
        "translations": [lesson.translations for lesson in Lesson.objects.order_by("slug")],
        "course_translations": [course.translations for course in Course.objects.order_by("slug")],
        "term_translations": [term.translations for term in GlossaryTerm.objects.order_by("slug")],
    }
