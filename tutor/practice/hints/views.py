"""Take the next rung of a hint ladder. The region this view swaps is the `hint-ladder`
partial of templates/tutor/practice/hints.html (the element `#<anchor>-<key>-hints`). A
plain (no-JS) POST redirects back to the ladder on the lesson page; an htmx POST gets the
partial (and, when a question's answer rung finished it, the question out of band)."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from course import htmx, translations
from course.models import Block, Lesson
from tutor import practice
from tutor.assignments.closing import closed_to, quiz_holding
from tutor.practice import with_lesson_progress
from tutor.practice.hints import QUESTION_KINDS, hints_of, laddered_kinds, ladders
from tutor.practice.hints.actions import RungRefused, take_rung

PARTIAL = "tutor/practice/hints.html#hint-ladder"


def ladder_url(block: Block) -> str:
    return f"{block.lesson.get_absolute_url()}#{practice.get(block.kind).anchor}-{block.key}-hints"


def refused(request: HttpRequest, block: Block, message: str, *, status: int) -> HttpResponse:
    if htmx.wants_partial(request):
        into = f"{practice.get(block.kind).anchor}-{block.key}-hints-message"
        return htmx.refusal(request, message, into=into, status=status)
    messages.error(request, message)
    return redirect(ladder_url(block))


@require_POST
def hint_next(request: HttpRequest, block_pk: int) -> HttpResponse:
    # `block_pk`: closed-book assignments (tutor/assignments/closed_book.py) find its lesson by it.
    block = get_object_or_404(
        Block.objects.select_related("lesson__course", *practice_selects()),
        pk=block_pk, kind__in=laddered_kinds(), lesson__in=Lesson.objects.visible_to(request.user),
    )
    translations.show_block_in(block, get_language())  # its hints as the page shows them
    if not hints_of(block):
        raise Http404("This item has no hints.")
    if not request.user.is_authenticated:
        return htmx.log_in_first(request, then=ladder_url(block))
    if closed := closed_to(request.user, block):
        return refused(request, block, closed, status=403)
    if block.kind in QUESTION_KINDS and (quiz := quiz_holding(request.user, [block]).get(block.pk)):
        message = _("This question is part of your quiz “%(title)s”: its hints wait until the quiz is over.")
        return refused(request, block, message % {"title": quiz.lesson.title}, status=403)
    wanted = request.POST.get("rung", "")
    if not wanted.isdecimal() or len(wanted) > 6:
        return refused(request, block, _("Which hint? Use the page's button."), status=400)
    try:
        take_rung(user=request.user, block=block, rung=int(wanted))
    except RungRefused as refusal:
        return refused(request, block, str(refusal), status=409)
    if not htmx.wants_partial(request):
        return redirect(ladder_url(block))
    context = {"block": block, "hints": ladders([block], user=request.user)[block.pk], "taken": True}
    if block.kind in QUESTION_KINDS and context["hints"].finished:
        from tutor.practice.questions.state import states

        context["question_state"] = states([block], user=request.user)[block.pk]
    response = TemplateResponse(request, PARTIAL, context)
    return with_lesson_progress(request, response, block.lesson)


def practice_selects() -> list[str]:
    """The content rows a ladder reads (an exercise's solution, an ordering's lines)."""
    return [lookup for kind in laddered_kinds() for lookup in practice.get(kind).content.page_select]
