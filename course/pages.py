"""What the pages about lessons show of the content, loaded in a fixed number of queries:
the catalogue's courses, a course's lessons, and a lesson's blocks, terms and neighbours.

The pages themselves show a learner's progress and practice too, so they are tutor's
views (tutor/views/lessons.py); they call these explicitly.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, prefetch_related_objects

from course import kinds, translations
from course.content_files.reader import LESSON_FIELDS
from course.markup import GlossaryLinker
from course.models import Block, Course, GlossaryTerm, Lesson, can_see_drafts

CACHE_SECONDS = 24 * 60 * 60  # renderings of old content versions expire by themselves
CONTENTS_KEPT = 128  # lessons' loaded content each process keeps (the most recently read)


def lessons_in_order(user: AbstractBaseUser | AnonymousUser) -> Prefetch:
    """A course's lessons the user may see (drafts: staff only), in order."""
    lessons = Lesson.objects.visible_to(user).order_by("position", "pk")
    return Prefetch("lessons", queryset=lessons)


def glossary_names(language: str | None = None) -> dict[str, str]:
    """Every term's name by slug, so `[[slug]]` references resolve (one query); in
    `language` where the term is translated into it."""
    if language not in translations.languages():
        return dict(GlossaryTerm.objects.values_list("slug", "term"))
    return {
        slug: ((translated or {}).get(language) or {}).get("term") or term
        for slug, term, translated in GlossaryTerm.objects.values_list("slug", "term", "translations")
    }


@dataclass(frozen=True)
class LoadedContent:
    """A lesson's content rows as its page reads them, the same for every reader of one
    content version (and one side of `can_see_drafts`). Shared between requests and
    threads: read it, never change it."""

    lesson: Lesson  # with its blocks and terms prefetched
    blocks: tuple[Block, ...]  # in the page's language where translated into it
    terms: tuple[GlossaryTerm, ...]
    block_shown_in_preview: Block | None
    siblings: tuple[dict, ...]  # the course's lessons these readers see, in order
    # Which blocks the page shows in English (no translation into its language).
    shown: translations.LessonShown = field(default_factory=translations.LessonShown)
    # The words its prose links to their glossary entries, as the prose shown writes them.
    autolink: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, lesson: Lesson, *, drafts: bool, language: str = "") -> "LoadedContent":
        select, prefetch = kinds.page_lookups()
        blocks = Block.objects.select_related(*select).prefetch_related(*prefetch)
        prefetch_related_objects([lesson], Prefetch("blocks", queryset=blocks), "terms")
        lessons = Lesson.objects.all() if drafts else Lesson.objects.published()
        # Rows loaded for this language alone: its translation is put into them.
        shown = translations.show_blocks(lesson, lesson.blocks.all(), language)
        terms = tuple(lesson.terms.all())
        english_names = tuple((term.slug, term.term) for term in terms)
        for term in terms:
            translations.show_term(term, language)
        # Prose shown in English mentions the terms by their English names.
        translated = shown.state in ("full", "partial")
        autolink = tuple((term.slug, term.term) for term in terms) if translated else english_names
        siblings = lessons.filter(course=lesson.course_id).order_by("position", "pk")
        return cls(
            lesson=lesson,
            blocks=tuple(lesson.blocks.all()),
            terms=terms,
            block_shown_in_preview=lesson.block_shown_in_preview(),
            siblings=tuple(
                {
                    "pk": sibling["pk"],
                    "slug": sibling["slug"],
                    "title": ((sibling["translations"] or {}).get(language) or {}).get("title")
                    or sibling["title"],
                }
                for sibling in siblings.values("pk", "slug", "title", "translations")
            ),
            shown=shown,
            autolink=autolink,
        )


_loaded: OrderedDict[tuple, LoadedContent] = OrderedDict()
_loaded_lock = threading.Lock()


def loaded_content(lesson: Lesson, *, drafts: bool, language: str = "") -> LoadedContent:
    """The lesson's content rows, loaded once per process for each content version.

    `lesson` must carry the `content_version` it was read with (`Lesson.objects.for_page`):
    the version moves on in the same transaction as any change to content, so rows kept
    under an older one are never served for a newer one (an admin's edit, an import). A
    lesson read without it is loaded afresh."""
    version = getattr(lesson, "content_version", None)
    if version is None:
        return LoadedContent.load(lesson, drafts=drafts, language=language)
    key = (lesson.pk, version, drafts, language)
    with _loaded_lock:
        if (found := _loaded.get(key)) is not None:
            _loaded.move_to_end(key)
            return found
    found = LoadedContent.load(lesson, drafts=drafts, language=language)
    with _loaded_lock:
        _loaded[key] = found
        while len(_loaded) > CONTENTS_KEPT:
            _loaded.popitem(last=False)
    return found


def forget_loaded_content() -> None:
    """Drop every lesson's loaded content (tests that change content without moving the
    version, such as a rolled-back test transaction's)."""
    with _loaded_lock:
        _loaded.clear()


class LessonContent:
    """What a lesson page shows besides the lesson row: its blocks (with snippets,
    exercises and lines), terms, neighbours and glossary links. Loaded on first use, in a
    fixed number of queries, and kept for the content version (`loaded_content`), so a page
    served from cached renderings never loads it and a learner's page loads it once per
    process and version."""

    def __init__(
        self, lesson: Lesson, *, user: AbstractBaseUser | AnonymousUser, language: str = ""
    ) -> None:
        self.lesson = lesson
        self.drafts = can_see_drafts(user)  # previous / next skip the lessons others may not see
        self.language = language
        # The lesson's title, level and summary in the page's language, where translated.
        self.lesson_shown = translations.show_lesson_fields(lesson, LESSON_FIELDS, language)
        translations.show_course(lesson.course, language)  # its title, in the breadcrumb

    @cached_property
    def loaded(self) -> LoadedContent:
        return loaded_content(self.lesson, drafts=self.drafts, language=self.language)

    @cached_property
    def translation(self) -> str:
        """How the page shows its language: "english" (it is the lesson's own), "none" (no
        translation into it), "partial" (some of the lesson is in English) or "full"."""
        if self.lesson_shown.state in ("english", "none"):
            return self.lesson_shown.state
        return "partial" if "partial" in (self.lesson_shown.state, self.loaded.shown.state) else "full"

    @cached_property
    def language_name(self) -> str:
        return translations.language_name(self.language) if self.language else ""

    @cached_property
    def english_blocks(self) -> set[int]:
        """The pks of the blocks shown in English on a page in another language."""
        return self.loaded.shown.english_blocks

    @cached_property
    def english_fields(self) -> set[str]:
        """The lesson's own fields shown in English on a page in another language."""
        return self.lesson_shown.english_fields

    @cached_property
    def blocks(self) -> list[Block]:
        return list(self.loaded.blocks)

    @cached_property
    def terms(self) -> list[GlossaryTerm]:
        return list(self.loaded.terms)

    @cached_property
    def block_shown_in_preview(self) -> Block | None:
        """The snippet block whose answer "What you will see" shows, if any."""
        return self.loaded.block_shown_in_preview

    @cached_property
    def siblings(self) -> list[dict]:
        return list(self.loaded.siblings)

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
            terms=glossary_names(self.language),
            autolink=list(self.loaded.autolink),
        )

    @cached_property
    def unlinked_glossary(self) -> GlossaryLinker:
        """Terms as their words: for a page whose reader cannot open the glossary."""
        return GlossaryLinker(terms=glossary_names(self.language), autolink=(), link=False)




def catalogue_courses(user: AbstractBaseUser | AnonymousUser) -> list[Course]:
    """The courses this user may see, each with its lessons in order (two queries)."""
    return list(Course.objects.visible_to(user).prefetch_related(lessons_in_order(user)))
