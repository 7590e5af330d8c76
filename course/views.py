from django.conf import settings
from django.db.models import Prefetch
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers
from django.utils.module_loading import import_string
from django.views.decorators.http import require_GET

from course.markup import GlossaryLinker
from course.models import Block, Course, GlossaryTerm, Lesson


def lessons_in_order() -> Prefetch:
    return Prefetch("lessons", queryset=Lesson.objects.order_by("position", "pk"))


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
    courses = list(Course.objects.prefetch_related(lessons_in_order()))
    context = {"courses": courses}
    context.update(
        extend_lesson_list(request, [lesson for course in courses for lesson in course.lessons.all()])
    )
    return TemplateResponse(request, "course/catalogue.html", context)


@require_GET
def course_detail(request: HttpRequest, course_slug: str) -> TemplateResponse:
    course = get_object_or_404(Course.objects.prefetch_related(lessons_in_order()), slug=course_slug)
    context = {"course": course}
    context.update(extend_lesson_list(request, list(course.lessons.all())))
    return TemplateResponse(request, "course/course_detail.html", context)


@require_GET
def lesson_detail(request: HttpRequest, course_slug: str, lesson_slug: str) -> TemplateResponse:
    # A fixed number of queries whatever the lesson holds: the lesson with its course,
    # its blocks with snippets and exercises, the exercises' lines, its terms, its
    # course's lessons (for previous / next) and the glossary's names.
    blocks = Block.objects.select_related("snippet", "exercise").prefetch_related("exercise__lines")
    lesson = get_object_or_404(
        Lesson.objects.select_related("course").prefetch_related(
            Prefetch("blocks", queryset=blocks), "terms"
        ),
        course__slug=course_slug,
        slug=lesson_slug,
    )
    siblings = list(
        Lesson.objects.filter(course=lesson.course_id)
        .order_by("position", "pk")
        .values("pk", "slug", "title")
    )
    index = next(i for i, sibling in enumerate(siblings) if sibling["pk"] == lesson.pk)
    linker = GlossaryLinker(
        terms=glossary_names(), autolink=[(term.slug, term.term) for term in lesson.terms.all()]
    )
    context = {
        "lesson": lesson,
        "previous": siblings[index - 1] if index > 0 else None,
        "next": siblings[index + 1] if index + 1 < len(siblings) else None,
        "glossary_linker": linker,
    }
    # What learners do on the page (predict, run, order) is added by the apps named in
    # settings.LESSON_PAGE_EXTENSIONS, so this app never imports them. Each extension
    # takes (request, lesson) and returns extra context, in a fixed number of queries.
    for extension in settings.LESSON_PAGE_EXTENSIONS:
        context.update(import_string(extension)(request, lesson))
    return TemplateResponse(request, "course/lesson_detail.html", context)


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


def term_page_context(slug: str) -> dict:
    term = get_object_or_404(
        GlossaryTerm.objects.prefetch_related(
            "see_also",
            "pointed_at_by",
            Prefetch("lessons", queryset=Lesson.objects.select_related("course").in_order()),
        ),
        slug=slug,
    )
    return {"term": term, "term_names": glossary_names()}


@require_GET
def term_detail(request: HttpRequest, slug: str) -> TemplateResponse:
    return TemplateResponse(request, "course/term_detail.html", term_page_context(slug))


@require_GET
def term_preview(request: HttpRequest, slug: str) -> TemplateResponse:
    """The definition popover for htmx; without htmx, the term's page."""
    if wants_partial(request):
        term = get_object_or_404(GlossaryTerm, slug=slug)
        context = {"term": term, "term_names": glossary_names()}
        response = TemplateResponse(request, "course/term_detail.html#term-preview", context)
    else:
        response = TemplateResponse(request, "course/term_detail.html", term_page_context(slug))
    patch_vary_headers(response, ["HX-Request"])
    return response


@require_GET
def search(request: HttpRequest) -> TemplateResponse:
    query = request.GET.get("q", "").strip()[:100]
    context = {"query": query, "lessons": [], "terms": []}
    if query:
        context["lessons"] = list(Lesson.objects.search(query).select_related("course").in_order())
        context["terms"] = list(GlossaryTerm.objects.search(query))
        context["term_names"] = glossary_names()
    template = "course/search.html#search-results" if wants_partial(request) else "course/search.html"
    response = TemplateResponse(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
