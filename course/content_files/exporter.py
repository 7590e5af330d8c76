"""Write the database back as content files, in the layout and style an author writes.

Every field is written by its declaration (course.kinds.fields) and the YAML by
ruamel.yaml (yaml_writing): literal blocks for multi-line text, fields in the order they
are declared, an empty line between blocks and between terms.
"""

from dataclasses import dataclass, field
from pathlib import Path

from course import kinds, translations
from course.content_files.reader import (
    COURSE_FIELDS,
    LESSON_FIELDS,
    TERM_FIELDS,
    generated_block_key,
)
from course.content_files.yaml_writing import Spaced, dump
from course.kinds.fields import Field
from course.markup import linked_term_slugs
from course.models import Block, Course, GlossaryTerm, Lesson, linked_in_order


def written(fields: tuple[Field, ...], values: dict) -> dict:
    """The fields as the file says them, in their declared order; defaults left out."""
    document = {}
    for declared in fields:
        shown = declared.write(values.get(declared.name, declared.default))
        if shown is not None:
            document[declared.name] = shown
    return document


def glossary_document() -> dict:
    terms = []
    for term in sorted(GlossaryTerm.objects.all(), key=lambda t: t.slug):
        # Terms linked from the definition point at by themselves: see_also names the rest.
        linked = set(linked_term_slugs(term.definition))
        see_also = [t.slug for t in linked_in_order(term.see_also) if t.slug not in linked]
        values = {"slug": term.slug, "term": term.term, "definition": term.definition}
        terms.append(written(TERM_FIELDS, {**values, "see_also": see_also}))
    return {"terms": Spaced(terms)}


def glossary_translation_documents() -> dict[str, dict]:
    """Each language's glossary.<language>.yaml: the terms translated into it, by slug."""
    documents: dict[str, dict] = {}
    for term in sorted(GlossaryTerm.objects.all(), key=lambda t: t.slug):
        for language, translation in sorted((term.translations or {}).items()):
            written_term = translations.write_fields(TERM_FIELDS, translation)
            if written_term:
                documents.setdefault(language, {"terms": {}})["terms"][term.slug] = written_term
    return documents


def lesson_translation_documents(lesson: Lesson) -> dict[str, dict]:
    """Each language's <lesson>.<language>.yaml: the lesson's prose in it."""
    blocks = list(lesson.blocks.order_by("position", "pk"))
    documents = {}
    for language, translation in sorted((lesson.translations or {}).items()):
        document = translations.lesson_document(LESSON_FIELDS, translation, blocks)
        if document:
            documents[language] = document
    return documents


def course_translation_documents(course: Course) -> dict[str, dict]:
    """Each language's course.<language>.yaml: the course's title and summary in it."""
    documents = {}
    for language, translation in sorted((course.translations or {}).items()):
        document = translations.write_fields(COURSE_FIELDS, translation)
        if document:
            documents[language] = document
    return documents


def course_document(course: Course) -> dict:
    values = {
        "title": course.title,
        "status": course.status,
        "summary": course.summary,
        "order": course.position,
        "limits": course.run_limits,
        "lessons": [lesson.slug for lesson in course.lessons.order_by("position", "pk")],
    }
    return written(COURSE_FIELDS, values)


def lesson_document(lesson: Lesson) -> dict:
    values = {
        "title": lesson.title,
        "status": lesson.status,
        "level": lesson.level,
        "summary": lesson.summary,
        "what_you_will_see": lesson.what_you_will_see,
        "terms": [term.slug for term in linked_in_order(lesson.terms)],
    }
    document = written(LESSON_FIELDS, values)
    blocks = []
    ordinals: dict[str, int] = {}
    for block in lesson.blocks.order_by("position", "pk"):
        ordinals[block.kind] = ordinals.get(block.kind, 0) + 1
        blocks.append(block_document(block, generated_block_key(block.kind, ordinals[block.kind])))
    if blocks:
        document["blocks"] = Spaced(blocks)
    return document


def block_document(block: Block, generated_key: str) -> dict:
    kind = kinds.get(block.kind)
    document = {"kind": block.kind}
    if block.key != generated_key or kind.needs_key:
        document["key"] = block.key
    return {**document, **written(kind.fields, kind.values_of(block))}


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
    files = {root / "glossary.yaml": dump(glossary_document())}
    for language, document in glossary_translation_documents().items():
        files[root / f"glossary.{language}.yaml"] = dump(document)
    for course in Course.objects.order_by("position", "slug"):
        folder = root / course.slug
        files[folder / "course.yaml"] = dump(course_document(course))
        for language, document in course_translation_documents(course).items():
            files[folder / f"course.{language}.yaml"] = dump(document)
        for lesson in course.lessons.order_by("position", "pk"):
            files[folder / f"{lesson.slug}.yaml"] = dump(lesson_document(lesson))
            for language, document in lesson_translation_documents(lesson).items():
                files[folder / f"{lesson.slug}.{language}.yaml"] = dump(document)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            summary.unchanged.append(path)
        else:
            path.write_text(text, encoding="utf-8")
            summary.written.append(path)
    if root.is_dir():
        for path in sorted(root.glob("glossary.*.yaml")):
            if path not in files:  # a language no term is translated into any more
                path.unlink()
                summary.removed.append(path)
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
