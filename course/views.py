from collections.abc import Callable
from functools import cached_property

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db.models import Prefetch, prefetch_related_objects
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from course.markup import GlossaryLinker
from course.models import Block, ContentVersion, Course, GlossaryTerm, Lesson

CACHE_SECONDS = 24 * 60 * 60  # renderings of old content versions expire by themselves


def lessons_in_order(request: HttpRequest) -> Prefetch:
    """A course's lessons the user may see (drafts: staff only), in order."""
    lessons = Lesson.objects.visible_to(request.user).order_by("position", "pk")
    return Prefetch("lessons", queryset=lessons)


def glossary_names() -> dict[str, str]:
    """Every term's name by slug, so `[[slug]]` references resolve (one query)."""
    return dict(GlossaryTerm.objects.values_list("slug", "term"))


def wants_partial(request: HttpRequest) -> bool:
    # A history restore asks for the whole page even though it comes from htmx.
    return bool(request.htmx) and not request.htmx.history_restore_request


def extend_lesson_list(request: HttpRequest, lessons: list[Lesson]) -> dict:
    """Context (and per-lesson state, such as progress) from settings.LESSON_LIST_EXTENSIONS."""
    context = {}
    for extension in settings.LESSON_LIST_EXTENSIONS:
        context.update(import_string(extension)(request, lessons))
    return context


@require_GET
def catalogue(request: HttpRequest) -> TemplateResponse:
    courses = list(Course.objects.visible_to(request.user).prefetch_related(lessons_in_order(request)))
    context = {"courses": courses}
    context.update(
        extend_lesson_list(request, [lesson for course in courses for lesson in course.lessons.all()])
    )
    return TemplateResponse(request, "course/catalogue.html", context)


@require_GET
def course_detail(request: HttpRequest, course_slug: str) -> TemplateResponse:
    course = get_object_or_404(
        Course.objects.visible_to(request.user).prefetch_related(lessons_in_order(request)),
        slug=course_slug,
    )
    context = {"course": course}
    context.update(extend_lesson_list(request, list(course.lessons.all())))
    return TemplateResponse(request, "course/course_detail.html", context)


class LessonContent:
    """What a lesson page shows besides the lesson row: its blocks (with snippets,
    exercises and lines), terms, neighbours and glossary links. Loaded on first use, in a
    fixed number of queries, so a page served from cached renderings never loads it."""

    def __init__(
        self, lesson: Lesson, *, user: AbstractBaseUser | AnonymousUser,
        when_loaded: Callable[[], None] = lambda: None,
    ) -> None:
        self.lesson = lesson
        self.user = user  # previous / next skip the lessons this user may not see
        self.when_loaded = when_loaded

    @cached_property
    def blocks(self) -> list[Block]:
        blocks = Block.objects.select_related("snippet", "exercise").prefetch_related("exercise__lines")
        prefetch_related_objects([self.lesson], Prefetch("blocks", queryset=blocks), "terms")
        self.when_loaded()
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


@require_GET
@never_cache  # Back and Forward must show what the learner has done since, not a stale copy
def lesson_detail(request: HttpRequest, course_slug: str, lesson_slug: str) -> HttpResponse:
    # The content is the same for every reader: its renderings are cached under the
    # content version (templates/course/lesson_detail.html), read here with the lesson in
    # one query. Only what changes per reader (the learner's state) is rendered each time;
    # readers who are not logged in all see one page, cached whole.
    anonymous_key = version = None
    if not request.user.is_authenticated and not len(messages.get_messages(request)):
        version = ContentVersion.read()
        anonymous_key = f"lesson-page:{version}:{course_slug}/{lesson_slug}"
        if (html := cache.get(anonymous_key)) is not None:
            return HttpResponse(html)
    # A draft is not found by readers who may not see it. (A cached page for readers who
    # are not logged in cannot be a draft's: a change of status moves the content version.)
    lessons = Lesson.objects.visible_to(request.user).select_related("course")
    if version is None:
        lessons = lessons.annotate(content_version=ContentVersion.current())
    lesson = get_object_or_404(lessons, course__slug=course_slug, slug=lesson_slug)
    if version is None:
        version = lesson.content_version or 0
    context = {"lesson": lesson, "content_version": version}

    def add_practice() -> None:
        # What learners do on the page (predict, run, order) is added by the apps named in
        # settings.LESSON_PAGE_EXTENSIONS, so this app never imports them. Each takes
        # (request, lesson) once the blocks are loaded, and returns extra context.
        for extension in settings.LESSON_PAGE_EXTENSIONS:
            context.update(import_string(extension)(request, lesson))

    content = LessonContent(lesson, user=request.user, when_loaded=add_practice)
    context["content"] = content
    context["glossary_linker"] = SimpleLazyObject(lambda: content.glossary_linker)
    if request.user.is_authenticated:
        content.blocks  # noqa: B018 -- a learner's state is per block: load them now
    response = TemplateResponse(request, "course/lesson_detail.html", context)
    if anonymous_key is not None:
        response.add_post_render_callback(
            lambda rendered: cache.set(anonymous_key, rendered.content, CACHE_SECONDS)
        )
    return response


@require_GET
def glossary(request: HttpRequest) -> TemplateResponse:
    terms = list(GlossaryTerm.objects.all())
    by_letter: dict[str, list[GlossaryTerm]] = {}
    for term in terms:
        by_letter.setdefault(term.initial, []).append(term)
    letters = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    if "#" in by_letter:
        letters.append("#")
    context = {
        "alphabet": [(letter, letter in by_letter) for letter in letters],
        "groups": [(letter, by_letter[letter]) for letter in letters if letter in by_letter],
        "term_names": {term.slug: term.term for term in terms},
    }
    return TemplateResponse(request, "course/glossary.html", context)


def term_page_context(request: HttpRequest, slug: str) -> dict:
    lessons = Lesson.objects.visible_to(request.user).select_related("course").in_order()
    term = get_object_or_404(
        GlossaryTerm.objects.prefetch_related(
            "see_also", "pointed_at_by", Prefetch("lessons", queryset=lessons)
        ),
        slug=slug,
    )
    return {"term": term, "term_names": glossary_names()}


@require_GET
def term_detail(request: HttpRequest, slug: str) -> TemplateResponse:
    return TemplateResponse(request, "course/term_detail.html", term_page_context(request, slug))


@require_GET
def term_preview(request: HttpRequest, slug: str) -> TemplateResponse:
    """The definition popover for htmx; without htmx, the term's page."""
    if wants_partial(request):
        term = get_object_or_404(GlossaryTerm, slug=slug)
        context = {"term": term, "term_names": glossary_names()}
        response = TemplateResponse(request, "course/term_detail.html#term-preview", context)
    else:
        response = TemplateResponse(
            request, "course/term_detail.html", term_page_context(request, slug)
        )
    patch_vary_headers(response, ["HX-Request"])
    return response


@require_GET
def search(request: HttpRequest) -> TemplateResponse:
    query = request.GET.get("q", "").strip()[:100]
    context = {"query": query, "lessons": [], "terms": []}
    if query:
        context["lessons"] = list(
            Lesson.objects.visible_to(request.user).search(query).select_related("course").in_order()
        )
        context["terms"] = list(GlossaryTerm.objects.search(query))
        context["term_names"] = glossary_names()
    template = "course/search.html#search-results" if wants_partial(request) else "course/search.html"
    response = TemplateResponse(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
