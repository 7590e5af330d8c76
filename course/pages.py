"""What the pages about lessons show of the content, loaded in a fixed number of queries:
the catalogue's courses, a course's lessons, and a lesson's blocks, terms and neighbours.

The pages themselves show a learner's progress and practice too, so they are tutor's
views (tutor/views/lessons.py); they call these explicitly.
"""

from functools import cached_property

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, prefetch_related_objects

from course import kinds
from course.markup import GlossaryLinker
from course.models import Block, Course, GlossaryTerm, Lesson

CACHE_SECONDS = 24 * 60 * 60  # renderings of old content versions expire by themselves


def lessons_in_order(user: AbstractBaseUser | AnonymousUser) -> Prefetch:
    """A course's lessons the user may see (drafts: staff only), in order."""
    lessons = Lesson.objects.visible_to(user).order_by("position", "pk")
    return Prefetch("lessons", queryset=lessons)


def glossary_names() -> dict[str, str]:
    """Every term's name by slug, so `[[slug]]` references resolve (one query)."""
    return dict(GlossaryTerm.objects.values_list("slug", "term"))


class LessonContent:
    """What a lesson page shows besides the lesson row: its blocks (with snippets,
    exercises and lines), terms, neighbours and glossary links. Loaded on first use, in a
    fixed number of queries, so a page served from cached renderings never loads it."""

    def __init__(self, lesson: Lesson, *, user: AbstractBaseUser | AnonymousUser) -> None:
        self.lesson = lesson
        self.user = user  # previous / next skip the lessons this user may not see

    @cached_property
    def blocks(self) -> list[Block]:
        select, prefetch = kinds.page_lookups()
        blocks = Block.objects.select_related(*select).prefetch_related(*prefetch)
        prefetch_related_objects([self.lesson], Prefetch("blocks", queryset=blocks), "terms")
        return list(self.lesson.blocks.all())

    @cached_property
    def terms(self) -> list[GlossaryTerm]:
        self.blocks  # noqa: B018 -- prefetches the terms too
        return list(self.lesson.terms.all())

    @cached_property
    def block_shown_in_preview(self) -> Block | None:
        """The snippet block whose answer "What you will see" shows, if any."""
        self.blocks  # noqa: B018 -- prefetched, so finding it costs no query
        return self.lesson.block_shown_in_preview()

    @cached_property
    def siblings(self) -> list[dict]:
        return list(
            Lesson.objects.visible_to(self.user)
            .filter(course=self.lesson.course_id)
            .order_by("position", "pk")
            .values("pk", "slug", "title")
        )

    @cached_property
    def previous(self) -> dict | None:
        index = self._index()
        return self.siblings[index - 1] if index > 0 else None

    @cached_property
    def next(self) -> dict | None:
        index = self._index()
        return self.siblings[index + 1] if index + 1 < len(self.siblings) else None

    def _index(self) -> int:
        return next(i for i, sibling in enumerate(self.siblings) if sibling["pk"] == self.lesson.pk)

    @cached_property
    def glossary_linker(self) -> GlossaryLinker:
        return GlossaryLinker(
            terms=glossary_names(), autolink=[(term.slug, term.term) for term in self.terms]
        )

    @cached_property
    def unlinked_glossary(self) -> GlossaryLinker:
        """Terms as their words: for a page whose reader cannot open the glossary."""
        return GlossaryLinker(terms=glossary_names(), autolink=(), link=False)




def catalogue_courses(user: AbstractBaseUser | AnonymousUser) -> list[Course]:
    """The courses this user may see, each with its lessons in order (two queries)."""
    return list(Course.objects.visible_to(user).prefetch_related(lessons_in_order(user)))
