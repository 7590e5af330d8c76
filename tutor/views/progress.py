"""Learners' own progress: the "My progress" page and the ticks and bars on other pages."""


from django.contrib.auth.decorators import login_required
from django.db.models import Count, Prefetch, Sum
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from course.htmx import wants_partial
from course.models import Course, Lesson
from tutor import practice
from tutor.assignments import learners
from tutor.clusters.comments import teacher_notes
from tutor.models import LessonProgress
from tutor.practice.hints.models import HintUse
from tutor.trail.teaching import trails_of

ACCURACY_AFTER = 5  # first predictions before My progress says how many were right


def with_lesson_progress(
    request: HttpRequest, response: TemplateResponse, lesson: Lesson
) -> TemplateResponse:
    """An htmx swap that may change the learner's progress also brings the lesson page's
    progress badge (and the learner's assignments on it, if any), swapped out of band, so
    they are never stale until a reload."""
    if not wants_partial(request) or not request.user.is_authenticated:
        return response

    def add_badge(rendered: TemplateResponse) -> None:
        context = {
            "lesson_progress": LessonProgress.objects.by_lesson(request.user, [lesson]).get(lesson.pk),
            "oob": True,
        }
        badge = render_to_string(
            "tutor/lesson.html#lesson-progress", context, request=request
        )
        rendered.content += badge.encode(rendered.charset)
        # The lesson's assignments too: handing in the last exercise changes their status.
        context |= learners.context(request.user, lessons=[lesson], names=True)
        if context["assigned"]:
            banner = render_to_string("tutor/lesson.html#lesson-assignments", context, request=request)
            rendered.content += banner.encode(rendered.charset)

    response.add_post_render_callback(add_badge)
    return response


def progress_details(progress: LessonProgress) -> list[str]:
    """Each practice kind's part of a lesson's progress, in words."""
    return [
        kind.progress_text(progress.counts[kind.name])
        for kind in practice.every()
        if progress.counts.get(kind.name, {}).get("total")
    ]


def hints_by_lesson(user) -> dict[int, int]:
    """How many rungs of hint ladders the user took in each lesson (one query)."""
    rows = (
        HintUse.objects.filter(user=user).order_by()
        .values("block__lesson").annotate(taken=Count("pk")).values_list("block__lesson", "taken")
    )
    return dict(rows)


def hint_words(taken: int) -> list[str]:
    if not taken:
        return []
    return [ngettext("%(n)d hint used", "%(n)d hints used", taken) % {"n": taken}]


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
        done = sum(1 for lesson in lessons if lesson.pk in by_lesson and by_lesson[lesson.pk].is_complete)
        summaries.append(
            {
                "course": course,
                "lessons": lessons,
                "complete": done,
                "percent": round(100 * done / len(lessons)) if lessons else 0,
            }
        )
    hints = hints_by_lesson(request.user)
    totals = progress_rows.aggregate(
        right=Sum("predictions_right"), predicted=Sum("snippets_predicted")
    )
    finished = sorted(
        (row for row in by_lesson.values() if row.is_complete), key=lambda row: row.updated_at
    )
    unfinished = [row for row in by_lesson.values() if not row.is_complete]
    if unfinished:
        continue_with = max(unfinished, key=lambda row: row.updated_at).lesson
        continue_label = _("Continue where you left off")
    else:
        # Nothing half-done: the first lesson not started yet, in course order.
        continue_with = next(
            (lesson for summary in summaries for lesson in summary["lessons"] if lesson.pk not in by_lesson),
            None,
        )
        continue_label = _("Next") if finished else _("Start with")
    context = {
        "summaries": summaries,
        "progress_by_lesson": by_lesson,
        "details_by_lesson": {
            pk: progress_details(row) + hint_words(hints.get(pk, 0)) for pk, row in by_lesson.items()
        },
        "lessons_done": len(finished),
        "lessons_total": sum(len(summary["lessons"]) for summary in summaries),
        "last_done": finished[-1].lesson if finished else None,
        "predicted": totals["predicted"] or 0,
        "predicted_right": totals["right"] or 0,
        # A share of two predictions says nothing yet: shown from this many on.
        "shows_accuracy": (totals["predicted"] or 0) >= ACCURACY_AFTER,
        "continue_with": continue_with,
        "continue_label": continue_label,
        "teacher_notes": teacher_notes(request.user),
        "trails": trails_of(request.user),  # how their code was made: theirs to see too
    } | learners.context(request.user)
    return TemplateResponse(request, "tutor/my_progress.html", context)
