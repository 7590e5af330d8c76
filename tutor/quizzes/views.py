"""The student's pages of a quiz: its start page, an attempt (every question in one page and
one form), saving an answer (htmx, per question) or all of them (the form, without
JavaScript), checking one (feedback "at once"), submitting, and the results (the attempt's
page once submitted).

Each view checks, in the view, that the user is a student of the quiz's class (404
otherwise: the page does not say a quiz exists) and that an attempt is theirs (404). A plain
POST redirects with a message; an htmx POST gets the region it swaps, and a refusal in the
site's shape (course.htmx)."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from course.htmx import login_required_htmx, refusal, vary_on_htmx, wants_partial
from course.kinds.blanks import blank_names
from course.models import Block, Lesson
from tutor.actions.runs import RunRefused
from tutor.assignments.models import Assignment
from tutor.practice.questions.answers import Malformed, read_answer
from tutor.practice.questions.variants import VariantNotReady
from tutor.quizzes import actions, rules
from tutor.quizzes.models import QuizAttempt
from tutor.quizzes.state import (
    attempt_questions,
    attempts_left,
    class_latest_due,
    student_due,
)

TEMPLATES = "tutor/quizzes/"


def student_quiz(request: HttpRequest, quiz_pk: int) -> Assignment:
    """The quiz assignment of a class the user is a student in, else 404."""
    return get_object_or_404(
        Assignment.objects.for_student(request.user).select_related("lesson__course", "cohort").distinct(),
        pk=quiz_pk, quiz=True, lesson__in=Lesson.objects.visible_to(request.user),
    )


def own_attempt(request: HttpRequest, attempt_pk: int) -> QuizAttempt:
    """The user's own attempt (of a class they are still in), else 404."""
    attempt = get_object_or_404(
        QuizAttempt.objects.select_related("assignment__lesson__course", "assignment__cohort", "student"),
        pk=attempt_pk, student=request.user.pk,
    )
    if not attempt.assignment.cohort.memberships.filter(student=request.user.pk).exists():
        raise Http404("No such attempt.")
    return attempt


def quiz_url(assignment: Assignment) -> str:
    return reverse("tutor:quiz_start", args=[assignment.pk])


def attempt_url(attempt: QuizAttempt) -> str:
    return reverse("tutor:quiz_attempt", args=[attempt.pk])


def lazily_submitted(attempt: QuizAttempt, now) -> QuizAttempt:
    """An open attempt whose time is over (or whose quiz was closed) is submitted now, as
    saved: the scheduled task does the same for students who do not come back."""
    if not attempt.is_submitted and (rules.time_over(attempt, now) or attempt.assignment.is_closed):
        attempt = actions.submit_attempt(attempt=attempt, now=now)
    return attempt


def start_context(request: HttpRequest, assignment: Assignment, **extra) -> dict:
    now = timezone.now()
    attempts = list(QuizAttempt.objects.filter(assignment=assignment, student=request.user.pk).order_by("number"))
    opened = next((a for a in attempts if not a.is_submitted), None)
    if opened is not None and lazily_submitted(opened, now).is_submitted:
        return start_context(request, assignment, **extra)
    best = max((a.score for a in attempts if a.is_submitted), default=None)
    return {
        "assignment": assignment,
        "lesson": assignment.lesson,
        "questions": assignment.draw_count or len(actions.questions_of(assignment)),
        "attempts": attempts,
        "open_attempt": opened,
        "left": attempts_left(assignment, len(attempts)),
        "due": student_due(assignment, request.user.pk),
        "opened": assignment.opens_at <= now,
        "best": None if best is None else round(100 * best),
        "now": now,
        **extra,
    }


@require_GET
@login_required_htmx
def quiz_start(request: HttpRequest, quiz_pk: int) -> TemplateResponse:
    """What the quiz is (questions, attempts left, time limit, due) and Start."""
    assignment = student_quiz(request, quiz_pk)
    return TemplateResponse(request, TEMPLATES + "quiz_start.html", start_context(request, assignment))


@require_POST
@login_required_htmx
def quiz_begin(request: HttpRequest, quiz_pk: int) -> HttpResponse:
    """Start an attempt (or carry on with the open one) and go to it."""
    assignment = student_quiz(request, quiz_pk)
    try:
        attempt = actions.start_attempt(assignment=assignment, student=request.user)
    except actions.QuizRefused as refused:
        context = start_context(request, assignment, refused=str(refused))
        return TemplateResponse(request, TEMPLATES + "quiz_start.html", context, status=403)
    return redirect(attempt_url(attempt))


def attempt_context(attempt: QuizAttempt, **extra) -> dict:
    now = timezone.now()
    assignment = attempt.assignment
    used = QuizAttempt.objects.filter(assignment=assignment, student=attempt.student_id).count()
    left = attempts_left(assignment, used)
    questions = attempt_questions(attempt, now=now, due=class_latest_due(assignment), left=left)
    shown = rules.shown(assignment, attempt, checked=False, now=now, due=class_latest_due(assignment),
                        attempts_left=left)
    return {
        "attempt": attempt,
        "assignment": assignment,
        "lesson": assignment.lesson,
        "questions": questions,
        "answered": sum(q.saved is not None for q in questions),
        "running": sum(q.saved is not None and q.saved.running for q in questions),
        "left": left,
        "score_shown": attempt.is_submitted and not shown.nothing,
        "at_once": assignment.feedback == Assignment.Feedback.AT_ONCE,
        "now": now,
        **extra,
    }


@require_GET
@login_required_htmx
def quiz_attempt(request: HttpRequest, attempt_pk: int) -> TemplateResponse:
    """The attempt: every question in one form while it is open; the results once submitted."""
    attempt = lazily_submitted(own_attempt(request, attempt_pk), timezone.now())
    actions.settle_running(attempt=attempt)  # programs back since: graded now, not at the sweep
    template = TEMPLATES + ("quiz_results.html" if attempt.is_submitted else "quiz_attempt.html")
    return vary_on_htmx(TemplateResponse(request, template, attempt_context(attempt)))


def answer_data(post: QueryDict, prefix: str) -> QueryDict:
    """One question's fields of the form (named `<prefix><field>`), as the question reads them."""
    data = QueryDict(mutable=True)
    for key in post:
        if key.startswith(prefix):
            data.setlist(key[len(prefix):], post.getlist(key))
    return data


def has_answer(data: QueryDict) -> bool:
    return any(value.strip() for key in data for value in data.getlist(key))


def every_blank_filled(block: Block, data: QueryDict) -> bool:
    """A fill-in-the-code question's program runs with every blank filled (others: True)."""
    if block.kind != "code_blanks":
        return True
    names = blank_names(block.kind_spec.values_of(block)["code"])
    return all(data.get(f"blank-{name}", "").strip() for name in names)


def attempt_question(attempt: QuizAttempt, block_pk: int) -> Block:
    if block_pk not in attempt.order:
        raise Http404("That question is not part of this attempt.")
    return get_object_or_404(Block.objects.select_related("lesson__course"), pk=block_pk)


def question_refused(request: HttpRequest, attempt: QuizAttempt, block: Block, message: str, *, status: int):
    if wants_partial(request):
        return refusal(request, message, into=f"quiz-q{block.pk}-message", status=status)
    messages.error(request, message)
    return redirect(f"{attempt_url(attempt)}#quiz-q{block.pk}")


def _save(request: HttpRequest, attempt_pk: int, block_pk: int, *, check: bool) -> HttpResponse:
    attempt = own_attempt(request, attempt_pk)
    block = attempt_question(attempt, block_pk)
    if check and attempt.assignment.feedback != Assignment.Feedback.AT_ONCE:
        return question_refused(request, attempt, block, _("This quiz's answers are checked after submitting."),
                                status=400)
    data = answer_data(request.POST, f"q{block.pk}-")
    if not check and wants_partial(request) and not every_blank_filled(block, data):
        # A change in one blank of a program while others are empty: not an answer yet.
        context = attempt_context(attempt)
        question = next(q for q in context["questions"] if q.block.pk == block.pk)
        return TemplateResponse(request, TEMPLATES + "question.html#quiz-saved",
                                context | {"question": question, "incomplete": True})
    try:
        actions.save_answer(attempt=attempt, block=block, check=check, data=data,
                            wait_seconds=settings.RUN_WAIT_SECONDS)
    except Malformed as refused:
        return question_refused(request, attempt, block, str(refused), status=400)
    except VariantNotReady as refused:
        return question_refused(request, attempt, block, str(refused), status=503)
    except RunRefused as refused:
        return question_refused(request, attempt, block, str(refused), status=429)
    except actions.QuizRefused as refused:
        return question_refused(request, attempt, block, str(refused), status=409)
    if not wants_partial(request):
        messages.success(request, _("Your answer is saved."))
        return redirect(f"{attempt_url(attempt)}#quiz-q{block.pk}")
    context = attempt_context(attempt)
    question = next(q for q in context["questions"] if q.block.pk == block.pk)
    partial = "#quiz-question" if check else "#quiz-saved"
    extra = {"question": question, "editable": True, "checked_now": check}
    return TemplateResponse(request, TEMPLATES + "question.html" + partial, context | extra)


@require_POST
@login_required_htmx
def quiz_answer(request: HttpRequest, attempt_pk: int, block_pk: int) -> HttpResponse:
    """Save one question's answer (htmx, when it changes; replaces the one saved before)."""
    return _save(request, attempt_pk, block_pk, check=False)


@require_POST
@login_required_htmx
def quiz_check(request: HttpRequest, attempt_pk: int, block_pk: int) -> HttpResponse:
    """Feedback "at once": save one question's answer as final, and show it graded."""
    return _save(request, attempt_pk, block_pk, check=True)


@require_GET
@login_required_htmx
def quiz_question(request: HttpRequest, attempt_pk: int, block_pk: int) -> HttpResponse:
    """One question of the attempt (htmx: a checked or submitted answer whose program was
    running asks for it until it is graded); without htmx, the attempt's page at it."""
    attempt = own_attempt(request, attempt_pk)
    block = attempt_question(attempt, block_pk)
    if not wants_partial(request):
        return redirect(f"{attempt_url(attempt)}#quiz-q{block.pk}")
    attempt = lazily_submitted(attempt, timezone.now())
    actions.settle_running(attempt=attempt)
    context = attempt_context(attempt)
    question = next((q for q in context["questions"] if q.block.pk == block.pk), None)
    if question is None:
        raise Http404("That question is no longer part of the lesson.")
    extra = {"question": question, "editable": not attempt.is_submitted}
    return vary_on_htmx(TemplateResponse(request, TEMPLATES + "question.html#quiz-question", context | extra))


@require_POST
@login_required_htmx
def quiz_save(request: HttpRequest, attempt_pk: int) -> HttpResponse:
    """The whole form (without JavaScript): every question with an answer is saved; one that
    cannot be read says why and keeps what was saved before. `finish`: then to Submit."""
    attempt = own_attempt(request, attempt_pk)
    problems, given = [], []
    blocks = Block.objects.select_related("lesson__course").in_bulk(attempt.order)
    checked = set(attempt.answers.filter(checked_at__isnull=False).values_list("block_id", flat=True))
    for pk in attempt.order:
        data = answer_data(request.POST, f"q{pk}-")
        if pk not in blocks or pk in checked or not has_answer(data):
            continue  # a question checked before is final: the form still holds it
        block = blocks[pk]
        try:  # read here first, so that one bad answer keeps the others
            read_answer(block.kind, block.kind_spec.values_of(block), data, user_id=request.user.pk, block_id=pk)
        except Malformed as refused:
            problems.append(_("Question “%(title)s”: %(why)s") % {"title": block.title or block.key, "why": refused})
            continue
        given.append((block, data))
    try:
        actions.save_answers(attempt=attempt, given=given, wait_seconds=settings.RUN_WAIT_SECONDS)
    except (VariantNotReady, RunRefused) as refused:
        problems.append(str(refused))
    except actions.QuizRefused as refused:
        messages.error(request, str(refused))
        return redirect(attempt_url(attempt))
    now = timezone.now()
    if attempt.ends_at is not None and now >= attempt.ends_at:
        # Sent at the end (the countdown sends the form at zero): saved, and submitted now.
        actions.submit_attempt(attempt=attempt, now=now)
        messages.info(request, _("Time is over: your attempt is submitted with your answers."))
        return redirect(attempt_url(attempt))
    for problem in problems:
        messages.error(request, problem)
    if not problems:
        messages.success(request, _("Your answers are saved."))
    if "finish" in request.POST and not problems:
        return redirect(reverse("tutor:quiz_submit", args=[attempt.pk]))
    return redirect(attempt_url(attempt))


@require_http_methods(["GET", "POST"])
@login_required_htmx
def quiz_submit(request: HttpRequest, attempt_pk: int) -> HttpResponse:
    """GET: are you sure (how many answered)? POST: submit, then the results."""
    attempt = lazily_submitted(own_attempt(request, attempt_pk), timezone.now())
    if request.method == "GET":
        if attempt.is_submitted:
            return redirect(attempt_url(attempt))
        return TemplateResponse(request, TEMPLATES + "quiz_submit.html", attempt_context(attempt))
    # A program still running is waited for briefly; one still running after is graded by
    # the worker when it ends (actions.settle_answer), and the score counts it then.
    actions.settle_running(attempt=attempt, wait_seconds=settings.RUN_WAIT_SECONDS)
    actions.submit_attempt(attempt=attempt)
    messages.success(request, _("Your attempt is submitted."))
    return redirect(attempt_url(attempt))
