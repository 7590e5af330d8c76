from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from course.models import Course, GlossaryTerm, Lesson


@require_GET
def catalogue(request: HttpRequest) -> TemplateResponse:
    courses = Course.objects.prefetch_related("lessons")
    return TemplateResponse(request, "course/catalogue.html", {"courses": courses})


@require_GET
def course_detail(request: HttpRequest, course_slug: str) -> TemplateResponse:
    course = get_object_or_404(Course, slug=course_slug)
    return TemplateResponse(request, "course/course_detail.html", {"course": course})


@require_GET
def lesson_detail(request: HttpRequest, course_slug: str, lesson_slug: str) -> TemplateResponse:
    lesson = get_object_or_404(Lesson, course__slug=course_slug, slug=lesson_slug)
    return TemplateResponse(request, "course/lesson_detail.html", {"lesson": lesson})


@require_GET
def glossary(request: HttpRequest) -> TemplateResponse:
    return TemplateResponse(request, "course/glossary.html", {"terms": GlossaryTerm.objects.all()})


@require_GET
def term_detail(request: HttpRequest, slug: str) -> TemplateResponse:
    term = get_object_or_404(GlossaryTerm, slug=slug)
    return TemplateResponse(request, "course/term_detail.html", {"term": term})


@require_GET
def term_preview(request: HttpRequest, slug: str) -> TemplateResponse:
    term = get_object_or_404(GlossaryTerm, slug=slug)
    return TemplateResponse(request, "course/term_detail.html#term-preview", {"term": term})


@require_GET
def search(request: HttpRequest) -> TemplateResponse:
    query = request.GET.get("q", "").strip()
    return TemplateResponse(request, "course/search.html", {"query": query})
