"""Learners' own progress: the "My progress" page and the ticks and bars on other pages."""

from collections.abc import Iterable

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, Sum
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from course.models import Course, Lesson
from tutor.models import LessonProgress


def _progress_by_lesson(user, lesson_ids: Iterable[int]) -> dict[int, LessonProgress]:
    rows = LessonProgress.objects.filter(user=user, lesson_id__in=list(lesson_ids))
    return {row.lesson_id: row for row in rows}


def lesson_list_context(request: HttpRequest, lessons: list[Lesson]) -> dict:
    """Put each listed lesson's progress on it as `lesson.learner_progress` (one query)."""
    if not request.user.is_authenticated:
        return {}
    by_lesson = _progress_by_lesson(request.user, (lesson.pk for lesson in lessons))
    for lesson in lessons:
        lesson.learner_progress = by_lesson.get(lesson.pk)
    return {}


def lesson_context(request: HttpRequest, lesson: Lesson) -> dict:
    if not request.user.is_authenticated:
        return {}
    return {"lesson_progress": _progress_by_lesson(request.user, [lesson.pk]).get(lesson.pk)}


def with_lesson_progress(
    request: HttpRequest, response: TemplateResponse, lesson: Lesson
) -> TemplateResponse:
    """An htmx swap that may change the learner's progress also brings the lesson page's
    progress badge, swapped out of band, so it is never stale until a reload."""
    if not request.htmx or not request.user.is_authenticated:
        return response

    def add_badge(rendered: TemplateResponse) -> None:
        context = {
            "lesson_progress": _progress_by_lesson(request.user, [lesson.pk]).get(lesson.pk),
            "oob": True,
        }
        badge = render_to_string(
            "tutor/lesson_progress.html#lesson-progress", context, request=request
        )
        rendered.content += badge.encode(rendered.charset)

    response.add_post_render_callback(add_badge)
    return response


@require_GET
@never_cache  # practice state: never a stale copy on Back
@login_required
def my_progress(request: HttpRequest) -> TemplateResponse:
    visible = Lesson.objects.visible_to(request.user)
    courses = list(
        Course.objects.visible_to(request.user).prefetch_related(
            Prefetch("lessons", queryset=visible.order_by("position", "pk"))
        )
    )
    progress_rows = LessonProgress.objects.filter(
        user=request.user, lesson__in=visible
    ).select_related("lesson__course")
    by_lesson = {row.lesson_id: row for row in progress_rows}
    summaries = []
    for course in courses:
        lessons = list(course.lessons.all())
        for lesson in lessons:
            lesson.learner_progress = by_lesson.get(lesson.pk)
        done = sum(1 for lesson in lessons if lesson.learner_progress and lesson.learner_progress.is_complete)
        summaries.append(
            {
                "course": course,
                "lessons": lessons,
                "complete": done,
                "percent": round(100 * done / len(lessons)) if lessons else 0,
            }
        )
    totals = progress_rows.aggregate(
        right=Sum("predictions_right"), predicted=Sum("snippets_predicted")
    )
    accuracy = (
        round(100 * totals["right"] / totals["predicted"]) if totals["predicted"] else None
    )
    unfinished = [row for row in by_lesson.values() if not row.is_complete]
    continue_with = max(unfinished, key=lambda row: row.updated_at).lesson if unfinished else None
    started = continue_with is not None
    if continue_with is None:
        # Nothing half-done: suggest the first lesson not yet started.
        continue_with = next(
            (lesson for summary in summaries for lesson in summary["lessons"] if lesson.learner_progress is None),
            None,
        )
    context = {
        "summaries": summaries,
        "accuracy": accuracy,
        "continue_with": continue_with,
        "continue_label": "Continue where you left off" if started else "Start with",
    }
    return TemplateResponse(request, "tutor/my_progress.html", context)
