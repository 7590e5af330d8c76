"""Write checked content into the database, in one transaction, keeping rows by stable keys.

Snippet and OrderingExercise rows keep their ids across re-imports (learner data points at
them); rows gone from the files are deleted unless learners' work points at them
(course.learner_work), in which case the whole import is rolled back with an error naming
the content, how many learners' work it holds, and which key to keep.
"""

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.db import models, transaction
from django.db.models import ProtectedError, RestrictedError

from course import kinds
from course.content_files.errors import ContentError, ContentErrors
from course.content_files.reader import BlockData, Content, CourseData, LessonData, points_at
from course.learner_work import all_of, learner_work
from course.models import Block, ContentVersion, Course, GlossaryTerm, Lesson, linked_in_order


def content_models() -> list[type[models.Model]]:
    """The models that hold content, in the order a summary names them."""
    found = [Course, Lesson, Block]
    for kind in kinds.every():
        found += [model for model in kind.content_models if model not in found]
    return [*found, GlossaryTerm]


def counted(counter: Counter) -> str:
    parts = [
        f"{counter[model]} {model._meta.verbose_name if counter[model] == 1 else model._meta.verbose_name_plural}"
        for model in content_models()
        if counter[model]
    ]
    return ", ".join(parts) or "nothing"


@dataclass
class ImportSummary:
    created: Counter = field(default_factory=Counter)
    updated: Counter = field(default_factory=Counter)
    deleted: Counter = field(default_factory=Counter)

    def lines(self) -> list[str]:
        return [
            f"Created: {counted(self.created)}.",
            f"Updated: {counted(self.updated)}.",
            f"Deleted: {counted(self.deleted)}.",
        ]


def set_in_order(row: models.Model, manager, targets: list[models.Model]) -> bool:
    """Set a many-to-many relation, keeping the files' order (the through rows' order);
    whether it changed."""
    through = manager.through
    source, target = manager.source_field_name, manager.target_field_name
    links = through.objects.filter(**{source: row})
    wanted = [other.pk for other in targets]
    if list(links.order_by("pk").values_list(f"{target}_id", flat=True)) == wanted:
        return False
    links.delete()
    through.objects.bulk_create(
        [through(**{f"{source}_id": row.pk, f"{target}_id": pk}) for pk in wanted]
    )
    return True


def link_term(term: GlossaryTerm) -> bool:
    """Give a term saved outside the files (the admin) the links the files would give it:
    the terms its definition links to, then those it was given; whether they changed."""
    given = [other.slug for other in linked_in_order(term.see_also)]
    slugs = points_at(term.slug, term.definition, given)
    by_slug = GlossaryTerm.objects.in_bulk(slugs, field_name="slug")
    return set_in_order(term, term.see_also, [by_slug[slug] for slug in slugs if slug in by_slug])


class _Importer:
    def __init__(self):
        self.summary = ImportSummary()
        self.refused: list[ContentError] = []
        self._updated: set[tuple[type, int]] = set()
        # Rows created by this import: filling their many-to-many links is no "update".
        self._created_now: set[tuple[type, int]] = set()

    # -- row helpers

    def save(self, model: type[models.Model], existing: dict, lookup, fields: dict, **parent):
        """The row found by `lookup` in `existing`, updated in place (saved only when a field
        changed), or created from `parent` and `fields`."""
        row = existing.pop(lookup, None)
        if row is None:
            row = model.objects.create(**parent, **fields)
            self.summary.created[model] += 1
            self._created_now.add((model, row.pk))
            return row
        changed = False
        for name, value in fields.items():
            if getattr(row, name) != value:
                setattr(row, name, value)
                changed = True
        if changed:
            row.save()
            self.mark_updated(row)
        return row

    def mark_updated(self, row: models.Model) -> None:
        if (type(row), row.pk) not in self._updated:
            self._updated.add((type(row), row.pk))
            self.summary.updated[type(row)] += 1

    def set_in_order(self, row: models.Model, manager, targets: list[models.Model]) -> None:
        if set_in_order(row, manager, targets) and (type(row), row.pk) not in self._created_now:
            self.mark_updated(row)

    def delete(self, row: models.Model, path: str, refusal: str) -> bool:
        """Delete `row` (and what goes with it) unless learners' work points at any of it;
        then `refusal` is reported, its "{work}" naming that work."""
        work = learner_work([row])
        if work:
            self.refused.append(ContentError(path, None, refusal.replace("{work}", all_of(work).describe())))
            return False
        try:
            with transaction.atomic():
                _, deleted = row.delete()
        except (ProtectedError, RestrictedError):
            self.refused.append(ContentError(path, None, refusal.replace("{work}", "learners' work")))
            return False
        labels = {model._meta.label: model for model in content_models()}
        for label, count in deleted.items():
            if label in labels:
                self.summary.deleted[labels[label]] += count
        return True

    # -- the content

    def run(self, content: Content) -> ImportSummary:
        terms = self.save_terms(content)
        existing = {course.slug: course for course in Course.objects.all()}
        for course_data in content.courses:
            self.save_course(course_data, existing, terms)
        for course in existing.values():
            self.delete_course(course, Path(content.root) / course.slug / "course.yaml")
        for term in GlossaryTerm.objects.exclude(slug__in=terms):
            self.delete(
                term,
                content.glossary_path,
                f"glossary term '{term.slug}' is gone from the file, but something points at it: "
                "put it back",
            )
        if self.refused:
            raise ContentErrors(self.refused)
        return self.summary

    def save_terms(self, content: Content) -> dict[str, GlossaryTerm]:
        existing = {term.slug: term for term in GlossaryTerm.objects.all()}
        terms = {}
        for data in content.terms:
            term = self.save(
                GlossaryTerm,
                existing,
                data.slug,
                {"term": data.term, "definition": data.definition, "translations": data.translations},
                slug=data.slug,
            )
            terms[data.slug] = term
        for data in content.terms:
            term = terms[data.slug]
            self.set_in_order(term, term.see_also, [terms[slug] for slug in data.see_also])
        return terms

    def save_course(self, data: CourseData, existing: dict, terms: dict) -> None:
        values = data.values
        course = self.save(
            Course,
            existing,
            data.slug,
            {
                "title": values["title"],
                "status": values["status"],
                "summary": values["summary"],
                "position": values["order"],
                "run_limits": values["limits"],
                "translations": data.translations,
            },
            slug=data.slug,
        )
        lessons = {lesson.slug: lesson for lesson in course.lessons.all()}
        for position, lesson_data in enumerate(data.lessons, start=1):
            self.save_lesson(course, lesson_data, position, lessons, terms)
        for lesson in lessons.values():
            self.delete_lesson(lesson, Path(data.path).with_name(f"{lesson.slug}.yaml"))

    def save_lesson(
        self, course: Course, data: LessonData, position: int, existing: dict, terms: dict
    ) -> None:
        values = data.values
        lesson = self.save(
            Lesson,
            existing,
            data.slug,
            {
                "title": values["title"],
                "status": values["status"],
                "level": values["level"],
                "summary": values["summary"],
                "what_you_will_see": values["what_you_will_see"],
                "position": position,
                "translations": data.translations,
            },
            course=course,
            slug=data.slug,
        )
        self.set_in_order(lesson, lesson.terms, [terms[slug] for slug in values["terms"]])
        blocks = {block.key: block for block in lesson.blocks.all()}
        for block_position, block_data in enumerate(data.blocks, start=1):
            self.save_block(lesson, block_data, block_position, blocks, data.path)
        for block in blocks.values():
            self.delete_block(block, data.path)

    def save_block(
        self, lesson: Lesson, data: BlockData, position: int, existing: dict, path: str
    ) -> None:
        kind = kinds.get(data.kind)
        old = existing.get(data.key)
        if old is not None and old.kind != data.kind:
            # The block changes kind: its old content goes, unless learners' work points at it.
            old_kind = kinds.get(old.kind)
            content = old_kind.content_of(old)
            if content is not None:
                self.delete(
                    content,
                    path,
                    f"{old_kind.noun} '{data.key}' is now a {data.kind} block, but {{work}} "
                    f"points at it: keep it a {old_kind.noun}, or give the new block "
                    "another key",
                )
        block = self.save(
            Block,
            existing,
            data.key,
            {"position": position, "kind": data.kind, **kind.block_columns(data.values)},
            lesson=lesson,
            key=data.key,
        )
        kind.store(block, data.values, self, path)

    # -- deletions, block by block so that a refusal names the snippet or exercise

    def delete_block(self, block: Block, path: str) -> bool:
        what = f"{kinds.get(block.kind).noun} '{block.key}'"
        return self.delete(
            block,
            path,
            f"{what} is gone from the file, but {{work}} points at it: put it back "
            f"with the same key ('{block.key}'); you may change everything else",
        )

    def delete_lesson(self, lesson: Lesson, path: Path) -> bool:
        lesson_path = str(path)
        kept = [self.delete_block(block, lesson_path) for block in lesson.blocks.all()]
        if not all(kept):
            return False
        return self.delete(
            lesson,
            lesson_path,
            f"lesson '{lesson.slug}' is gone from the files, but {{work}} points at it: "
            "put the file back",
        )

    def delete_course(self, course: Course, path: Path) -> bool:
        kept = [
            self.delete_lesson(lesson, path.with_name(f"{lesson.slug}.yaml"))
            for lesson in course.lessons.all()
        ]
        if not all(kept):
            return False
        return self.delete(
            course,
            str(path),
            f"course '{course.slug}' is gone from the files, but {{work}} points at it: "
            "put its folder back",
        )


def import_content(content: Content) -> ImportSummary:
    """Import checked content atomically; raise ContentErrors (and change nothing) if refused."""
    with transaction.atomic():
        summary = _Importer().run(content)
        ContentVersion.bump()  # also for changes no signal reports (links written in bulk)
        return summary
