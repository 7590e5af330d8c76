"""Write checked content into the database, in one transaction, keeping rows by stable keys.

Snippet and OrderingExercise rows keep their ids across re-imports (learner data points at
them); rows gone from the files are deleted unless learner data protects them, in which
case the whole import is rolled back with an error saying which key to keep.
"""

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.db import models, transaction
from django.db.models import ProtectedError, RestrictedError

from course.content_files.errors import ContentError, ContentErrors
from course.content_files.reader import BlockData, Content, CourseData, ExerciseData, LessonData
from course.models import (
    Block,
    Course,
    GlossaryTerm,
    Lesson,
    OrderingExercise,
    OrderingLine,
    Snippet,
)

NAMES = {
    Course: ("course", "courses"),
    Lesson: ("lesson", "lessons"),
    Block: ("block", "blocks"),
    Snippet: ("snippet", "snippets"),
    OrderingExercise: ("ordering exercise", "ordering exercises"),
    OrderingLine: ("ordering line", "ordering lines"),
    GlossaryTerm: ("glossary term", "glossary terms"),
}
LABELS = {model._meta.label: model for model in NAMES}


@dataclass
class ImportSummary:
    created: Counter = field(default_factory=Counter)
    updated: Counter = field(default_factory=Counter)
    deleted: Counter = field(default_factory=Counter)

    def lines(self) -> list[str]:
        def counts(counter: Counter) -> str:
            parts = [
                f"{counter[model]} {NAMES[model][counter[model] != 1]}"
                for model in NAMES
                if counter[model]
            ]
            return ", ".join(parts) or "nothing"

        return [
            f"Created: {counts(self.created)}.",
            f"Updated: {counts(self.updated)}.",
            f"Deleted: {counts(self.deleted)}.",
        ]


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
        """Set a many-to-many relation, keeping the files' order (the through rows' order)."""
        through = manager.through
        source, target = manager.source_field_name, manager.target_field_name
        links = through.objects.filter(**{source: row})
        wanted = [other.pk for other in targets]
        if list(links.order_by("pk").values_list(f"{target}_id", flat=True)) == wanted:
            return
        links.delete()
        through.objects.bulk_create(
            [through(**{f"{source}_id": row.pk, f"{target}_id": pk}) for pk in wanted]
        )
        if (type(row), row.pk) not in self._created_now:
            self.mark_updated(row)

    def delete(self, row: models.Model, path: str, refusal: str) -> bool:
        try:
            with transaction.atomic():
                _, deleted = row.delete()
        except (ProtectedError, RestrictedError):
            self.refused.append(ContentError(path, None, refusal))
            return False
        for label, count in deleted.items():
            if label in LABELS:
                self.summary.deleted[LABELS[label]] += count
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
                {"term": data.term, "definition": data.definition},
                slug=data.slug,
            )
            terms[data.slug] = term
        for data in content.terms:
            term = terms[data.slug]
            self.set_in_order(term, term.see_also, [terms[slug] for slug in data.see_also])
        return terms

    def save_course(self, data: CourseData, existing: dict, terms: dict) -> None:
        course = self.save(
            Course,
            existing,
            data.slug,
            {
                "title": data.title,
                "summary": data.summary,
                "position": data.position,
                "run_limits": data.run_limits,
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
        lesson = self.save(
            Lesson,
            existing,
            data.slug,
            {
                "title": data.title,
                "level": data.level,
                "summary": data.summary,
                "what_you_will_see": data.what_you_will_see,
                "position": position,
            },
            course=course,
            slug=data.slug,
        )
        self.set_in_order(lesson, lesson.terms, [terms[slug] for slug in data.terms])
        blocks = {block.key: block for block in lesson.blocks.select_related("snippet", "exercise")}
        for block_position, block_data in enumerate(data.blocks, start=1):
            self.save_block(lesson, block_data, block_position, blocks, data.path)
        for block in blocks.values():
            self.delete_block(block, data.path)

    def save_block(
        self, lesson: Lesson, data: BlockData, position: int, existing: dict, path: str
    ) -> None:
        old = existing.get(data.key)
        snippet = getattr(old, "snippet", None)
        exercise = getattr(old, "exercise", None)
        block = self.save(
            Block,
            existing,
            data.key,
            {
                "position": position,
                "kind": data.kind,
                "title": data.title,
                "body": data.body,
                "items": data.items,
            },
            lesson=lesson,
            key=data.key,
        )
        changed_kind = f"is now a {data.kind} block, but learners' work points at it: keep it"
        if snippet is not None and data.snippet is None:
            self.delete(
                snippet,
                path,
                f"snippet '{data.key}' {changed_kind} a snippet, or give the new block another key",
            )
        if exercise is not None and data.exercise is None:
            self.delete(
                exercise,
                path,
                f"ordering exercise '{data.key}' {changed_kind} an ordering exercise, or give the new block another key",
            )
        if data.snippet is not None:
            existing_snippet = {block.pk: snippet} if snippet is not None else {}
            self.save(
                Snippet,
                existing_snippet,
                block.pk,
                {
                    "caption": data.snippet.caption,
                    "language": data.snippet.language,
                    "code": data.snippet.code,
                    "expected_output": data.snippet.expected_output,
                    "run_limits": data.snippet.run_limits,
                },
                block=block,
            )
        if data.exercise is not None:
            existing_exercise = {block.pk: exercise} if exercise is not None else {}
            exercise = self.save(
                OrderingExercise,
                existing_exercise,
                block.pk,
                {
                    "intro": data.exercise.intro,
                    "grading": data.exercise.grading,
                    "expected_output": data.exercise.expected_output,
                },
                block=block,
            )
            self.save_lines(exercise, data.exercise, path)

    def save_lines(self, exercise: OrderingExercise, data: ExerciseData, path: str) -> None:
        existing = {line.key: line for line in exercise.lines.all()}
        lines = {}
        numbered = [*enumerate(data.lines, start=1), *((None, d) for d in data.distractors)]
        for position, line_data in numbered:
            line = self.save(
                OrderingLine,
                existing,
                line_data.key,
                {"text": line_data.text, "position": position},
                exercise=exercise,
                key=line_data.key,
            )
            lines[line_data.key] = line
        for _, line_data in numbered:
            line = lines[line_data.key]
            self.set_in_order(line, line.depends_on, [lines[key] for key in line_data.depends_on])
        for line in existing.values():
            self.delete(
                line,
                path,
                f"line '{line.key}' of exercise '{exercise.key}' is gone from the file, but "
                "learners' work points at it: put it back with the same key",
            )

    # -- deletions, block by block so that a refusal names the snippet or exercise

    def delete_block(self, block: Block, path: str) -> bool:
        if block.kind == Block.Kind.SNIPPET:
            what = f"snippet '{block.key}'"
        elif block.kind == Block.Kind.ORDERING:
            what = f"ordering exercise '{block.key}'"
        else:
            what = f"block '{block.key}'"
        return self.delete(
            block,
            path,
            f"{what} is gone from the file, but learners' work points at it: put it back "
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
            f"lesson '{lesson.slug}' is gone from the files, but learners' work points at it: "
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
            f"course '{course.slug}' is gone from the files, but learners' work points at it: "
            "put its folder back",
        )


def import_content(content: Content) -> ImportSummary:
    """Import checked content atomically; raise ContentErrors (and change nothing) if refused."""
    with transaction.atomic():
        return _Importer().run(content)
