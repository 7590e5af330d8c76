"""The pages about lessons: the catalogue, a course, and the lesson page itself.

They show content (course) and the learner's own state (this app) together, so they
live here, and each builds its context with explicit calls that return data:
course.pages for the content, tutor.practice for each practice kind's state, and the
learner's progress.
"""

from django.contrib import messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from course import translations
from course.htmx import vary_on_htmx, wants_partial
from course.models import ContentVersion, Course, Lesson
from course.pages import CACHE_SECONDS, LessonContent, catalogue_courses, lessons_in_order
from tutor import practice, roles
from tutor.assignments import learners
from tutor.clusters.comments import teacher_notes
from tutor.course_overview import by_level, practised, teaching, where_to_continue
from tutor.live.hands import hand_state
from tutor.models import LessonProgress
from tutor.review import today as review_today


def progress_by_lesson(request: HttpRequest, lessons: list[Lesson]) -> dict[int, LessonProgress]:
    """The learner's progress on each of these lessons, by lesson pk (one query; none for a
    reader who is not logged in)."""
    if not request.user.is_authenticated:
        return {}
    return LessonProgress.objects.by_lesson(request.user, lessons)


@require_GET
def catalogue(request: HttpRequest) -> TemplateResponse:
    courses = catalogue_courses(request.user)
    for course in courses:
        translations.show_course(course, get_language())
    lessons = [lesson for course in courses for lesson in course.lessons.all()]
    context = {
        "courses": courses,
        "progress_by_lesson": progress_by_lesson(request, lessons),
        "teacher_notes": teacher_notes(request.user),
        "review_due": review_today.count_due(request.user),
    }
    context |= learners.context(request.user, lessons=lessons)
    return TemplateResponse(request, "tutor/catalogue.html", context)


@require_GET
def course_detail(request: HttpRequest, course_slug: str) -> TemplateResponse:
    course = get_object_or_404(
        Course.objects.visible_to(request.user).prefetch_related(lessons_in_order(request.user)),
        slug=course_slug,
    )
    translations.show_course(course, get_language())
    lessons = list(course.lessons.all())
    progress = progress_by_lesson(request, lessons)
    resume = where_to_continue(lessons, progress) if request.user.is_authenticated else None
    context = {
        "course": course,
        "progress_by_lesson": progress,
        "levels": by_level(lessons, progress),
        "resume": resume,
        "practised": practised(lessons),
        # A teacher sees how the class chosen (?class=) stands on each lesson, to pick
        # what to set; the class chooser swaps only the list (#course-lessons).
        "teaching": teaching(request.user, lessons, chosen=request.GET.get("class", "")),
    } | learners.context(request.user, lessons=lessons)
    template = "tutor/course_detail.html"
    if wants_partial(request):
        template += "#course-lessons"
    return vary_on_htmx(TemplateResponse(request, template, context))


@require_GET
@never_cache  # Back and Forward must show what the learner has done since, not a stale copy
def lesson_detail(request: HttpRequest, course_slug: str, lesson_slug: str) -> HttpResponse:
    # The content is the same for every reader: its renderings are cached under the
    # content version (templates/tutor/lesson.html), read here with the lesson in one
    # query. Only what changes per reader (the learner's state) is rendered each time;
    # readers who are not logged in all see one page, cached whole.
    anonymous_key = None
    if not request.user.is_authenticated and not len(messages.get_messages(request)):
        anonymous_key = f"lesson-page:{ContentVersion.read()}:{get_language()}:{course_slug}/{lesson_slug}"
        if (html := cache.get(anonymous_key)) is not None:
            return HttpResponse(html)
    # A draft is not found by readers who may not see it. (A cached page for readers who
    # are not logged in cannot be a draft's: a change of status moves the content version.)
    lesson = get_object_or_404(
        Lesson.objects.for_page(request.user), course__slug=course_slug, slug=lesson_slug
    )
    content = LessonContent(lesson, user=request.user, language=get_language())
    # The "Raise hand" button (tutor.live), about one of the page's practice items. Its
    # query also tells whether the learner is in a class: if not, they have no
    # assignments, and the rest of the page asks for none.
    hand = hand_state(
        request.user, lesson, items=[block for block in content.blocks if practice.get(block.kind)]
    )
    if hand is not None:
        roles.note_classes(request, in_class=hand["in_class"])
    blocks = practice.page_blocks(content.blocks, user=request.user, request=request)
    shown = content.block_shown_in_preview
    preview_state = next((item.state for item in blocks if item.block == shown), None)
    styles, scripts = practice.assets()
    # During a closed-book assignment the glossary refuses its student: the page's terms are
    # words, not links, and its cached parts are kept apart from everyone else's.
    closed_book = getattr(request, "closed_book", None) is not None
    assigned = learners.context(
        request.user, lessons=[lesson], names=True, in_class=not roles.in_no_class(request)
    )
    preview_revealed = bool(getattr(preview_state, "revealed", False))
    # Items a closed assignment covers: no Check, no next hint, and a line saying why.
    closed_blocks = learners.closed_items(assigned["assigned"], [item.block for item in blocks if item.practice])
    for item in blocks:
        if item.hints is not None and item.block.pk in closed_blocks:
            item.hints.closed = True
    context = {
        "lesson": lesson,
        "content_version": f"{lesson.content_version or 0}{'-closed-book' if closed_book else ''}",
        "content": content,
        "blocks": blocks,
        # "What you will see" may be a snippet's answer: open once the learner revealed it;
        # folded for reading; not sent at all while predicting it is assigned work.
        "preview_revealed": preview_revealed,
        "closed_blocks": closed_blocks,
        "preview_withheld": shown is not None
        and preview_state is not None
        and not preview_revealed
        and learners.sets_block(assigned["assigned"], shown),
        "lesson_progress": progress_by_lesson(request, [lesson]).get(lesson.pk),
        "hand": hand,
        "glossary_linker": SimpleLazyObject(
            lambda: content.unlinked_glossary if closed_book else content.glossary_linker
        ),
        "practice_styles": styles + (["css/hints.css"] if any(item.hints for item in blocks) else []),
        "practice_scripts": scripts + (["js/hints.js"] if any(item.hints for item in blocks) else []),
    } | assigned
    response = TemplateResponse(request, "tutor/lesson.html", context)
    if anonymous_key is not None:
        response.add_post_render_callback(
            lambda rendered: cache.set(anonymous_key, rendered.content, CACHE_SECONDS)
        )
    return response
