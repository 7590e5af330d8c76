"""Answer a question. The region this view swaps is the `question-practice` partial of
templates/tutor/question_practice.html (the element `#question-<key>-practice`). A plain
(no-JS) POST redirects back to the question on the lesson page, which shows the graded
answer; an htmx POST gets the partial, with the lesson's progress out of band."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from course import htmx, translations
from course.models import Block, Lesson
from tutor.actions.runs import RunRefused
from tutor.assignments.closing import closed_to, quiz_holding
from tutor.practice import with_lesson_progress
from tutor.practice.questions import QUESTION_KINDS
from tutor.practice.questions.actions import QuestionRefused, answer_question
from tutor.practice.questions.answers import Malformed, read_answer
from tutor.practice.questions.code_runs import ProgramRunning
from tutor.practice.questions.state import states
from tutor.practice.questions.variants import VariantNotReady

PARTIAL = "tutor/question_practice.html#question-practice"


def question_or_404(request: HttpRequest, block_pk: int) -> Block:
    """The question, if its lesson is one the user may see (a draft's: staff only), in the
    page's language where its lesson is translated into it (its grading is the same)."""
    block = get_object_or_404(
        Block.objects.select_related("lesson__course"),
        pk=block_pk, kind__in=QUESTION_KINDS,
        lesson__in=Lesson.objects.visible_to(request.user),
    )
    translations.show_block_in(block, get_language())
    return block


def question_url(block: Block) -> str:
    return f"{block.lesson.get_absolute_url()}#question-{block.key}"


def refused(request: HttpRequest, block: Block, message: str, *, status: int = 400) -> HttpResponse:
    if htmx.wants_partial(request):
        return htmx.refusal(request, message, into=f"question-{block.key}-message", status=status)
    messages.error(request, message)
    return redirect(question_url(block))


@require_POST
def question_answer(request: HttpRequest, block_pk: int) -> HttpResponse:
    # `block_pk`: closed-book assignments (tutor/assignments/closed_book.py) find its lesson by it.
    block = question_or_404(request, block_pk)
    if not request.user.is_authenticated:
        return htmx.log_in_first(request, then=question_url(block))
    if closed := closed_to(request.user, block):
        return refused(request, block, closed, status=403)
    if quiz := quiz_holding(request.user, [block]).get(block.pk):
        message = _("This question is part of your quiz “%(title)s”: answer it in the quiz.")
        return refused(request, block, message % {"title": quiz.lesson.title}, status=403)
    values = block.kind_spec.values_of(block)
    try:
        answer = read_answer(block.kind, values, request.POST, user_id=request.user.pk, block_id=block.pk)
        answer_question(
            user=request.user, block=block, answer=answer, wait_seconds=settings.RUN_WAIT_SECONDS
        )
    except Malformed as refusal:
        return refused(request, block, str(refusal))
    except ProgramRunning:  # not counted yet: the page asks again, with the same fills
        if not htmx.wants_partial(request):
            return redirect(question_url(block))
        state = states([block], user=request.user)[block.pk]
        return TemplateResponse(request, PARTIAL, {"block": block, "state": state, "lesson": block.lesson})
    except RunRefused as refusal:
        return refused(request, block, str(refusal), status=429)
    except VariantNotReady as refusal:  # not counted: the learner answers again
        return refused(request, block, str(refusal), status=503)
    except QuestionRefused as refusal:
        return refused(request, block, str(refusal), status=409)
    if not htmx.wants_partial(request):
        return redirect(question_url(block))
    state = states([block], user=request.user)[block.pk]
    response = TemplateResponse(
        request, PARTIAL, {"block": block, "state": state, "lesson": block.lesson, "answered": True}
    )
    return with_lesson_progress(request, response, block.lesson)
