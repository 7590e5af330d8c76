"""The glossary and search. (The catalogue, course and lesson pages show a learner's
progress and practice too, so they are tutor's: tutor/views/lessons.py, built on the
content queries of course/pages.py.)"""

from django.db.models import Prefetch
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from course import translations
from course.content_files.reader import LESSON_FIELDS
from course.htmx import vary_on_htmx, wants_partial
from course.models import GlossaryTerm, Lesson
from course.pages import glossary_names


@require_GET
def glossary(request: HttpRequest) -> TemplateResponse:
    terms = list(GlossaryTerm.objects.all())
    english = in_page_language(terms)
    terms.sort(key=lambda term: term.term.casefold())
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
        "english_terms": english,
    }
    return TemplateResponse(request, "course/glossary.html", context)


def in_page_language(terms: list[GlossaryTerm]) -> set[int]:
    """Put each term's translation into the page's language into it (in memory); the pks
    of those shown in English, wholly or in part."""
    language = get_language()
    return {term.pk for term in terms if translations.show_term(term, language)}


def term_page_context(request: HttpRequest, slug: str) -> dict:
    lessons = Lesson.objects.visible_to(request.user).select_related("course").in_order()
    term = get_object_or_404(
        GlossaryTerm.objects.prefetch_related(
            "see_also", "pointed_at_by", Prefetch("lessons", queryset=lessons)
        ),
        slug=slug,
    )
    related = [term, *term.see_also.all(), *term.pointed_at_by.all()]
    english = in_page_language(related)
    for lesson in term.lessons.all():
        translations.show_lesson_fields(lesson, LESSON_FIELDS, get_language())
        translations.show_course(lesson.course, get_language())
    return {"term": term, "term_names": glossary_names(get_language()), "english_terms": english}


@require_GET
def term_detail(request: HttpRequest, slug: str) -> TemplateResponse:
    return TemplateResponse(request, "course/term_detail.html", term_page_context(request, slug))


@require_GET
def term_preview(request: HttpRequest, slug: str) -> TemplateResponse:
    """The definition popover for htmx; without htmx, the term's page."""
    if wants_partial(request):
        term = get_object_or_404(GlossaryTerm, slug=slug)
        english = in_page_language([term])
        context = {"term": term, "term_names": glossary_names(get_language()), "english_terms": english}
        response = TemplateResponse(request, "course/term_detail.html#term-preview", context)
    else:
        response = TemplateResponse(
            request, "course/term_detail.html", term_page_context(request, slug)
        )
    return vary_on_htmx(response)


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
    return vary_on_htmx(response)
