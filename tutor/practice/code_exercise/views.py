"""Write code: submit, see what the tests found, keep a draft.

Every region these views swap is a partial of templates/tutor/code_exercise_practice.html,
which the lesson page includes once per exercise. A plain (no-JS) POST redirects back to
the exercise on the lesson page. The reference solution never leaves the server, and a
hidden test's input and expected values reach a learner only once they have solved it.
"""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from course.htmx import login_required_htmx, refusal, wants_partial
from course.kinds.code_exercise import CodeExercise
from course.models import Lesson
from tutor.actions.runs import RunRefused
from tutor.assignments.closing import closed_to
from tutor.practice import with_lesson_progress
from tutor.practice.code_exercise import actions
from tutor.practice.code_exercise.forms import ExerciseCodeForm
from tutor.practice.code_exercise.models import Submission
from tutor.practice.code_exercise.state import ExercisePractice, practice_of
from tutor.trail import actions as trail

TEMPLATE = "tutor/code_exercise_practice.html"


def exercise_or_404(request: HttpRequest, exercise_id: int) -> CodeExercise:
    """The exercise, if its lesson is one the user may see (a draft's: staff only)."""
    return get_object_or_404(
        CodeExercise.objects.select_related("block__lesson__course").prefetch_related("tests"),
        pk=exercise_id,
        block__lesson__in=Lesson.objects.visible_to(request.user),
    )


def exercise_url(exercise: CodeExercise, **query) -> str:
    url = exercise.block.lesson.get_absolute_url()
    if query:
        url += "?" + urlencode(query)
    return f"{url}#exercise-{exercise.block.key}"


def render_partial(
    request: HttpRequest, partial: str, practice: ExercisePractice, *, status: int = 200, **extra
) -> TemplateResponse:
    exercise = practice.exercise
    context = {"practice": practice, "exercise": exercise, "block": exercise.block, **extra}
    return TemplateResponse(request, f"{TEMPLATE}#{partial}", context, status=status)


def refuse(request: HttpRequest, exercise: CodeExercise, message: str, *, status: int) -> HttpResponse:
    """A clear message: into the exercise's message line for htmx (the site's one refusal
    shape); otherwise back to the exercise, with the reason at the top of the lesson page."""
    if wants_partial(request):
        return refusal(request, message, into=f"exercise-{exercise.block.key}-message", status=status)
    messages.warning(request, message)
    return redirect(exercise_url(exercise))


def wait_for(submission: Submission, *, seconds: float) -> Submission:
    """Give the grading the chance to finish inside this request (sleeping costs nothing:
    tutor/run_notices.py); a slower one is polled for."""
    if submission.run is not None and not submission.run.is_final and seconds > 0:
        submission.run.wait_until_final(seconds)
        submission.refresh_from_db()
    return submission


@require_POST
@login_required_htmx
def submission_create(request: HttpRequest, exercise_id: int) -> HttpResponse:
    """Submit the learner's code: every test runs against it in the sandbox."""
    exercise = exercise_or_404(request, exercise_id)
    if closed := closed_to(request.user, exercise.block):
        return refuse(request, exercise, closed, status=403)
    form = ExerciseCodeForm(request.POST)
    if not form.is_valid():
        return refuse(request, exercise, next(iter(form.errors.values()))[0], status=400)
    code = form.cleaned_data["code"]
    try:
        submission = actions.submit_code(user=request.user, exercise=exercise, code=code)
    except RunRefused as refusal:
        actions.save_draft(user=request.user, exercise=exercise, code=code)  # never lost
        return refuse(request, exercise, str(refusal), status=429)
    trail.record_moment(user=request.user, block=exercise.block, what=trail.SUBMIT, code=code, carried=request.POST)
    wait_for(submission, seconds=settings.RUN_WAIT_SECONDS)
    if not wants_partial(request):
        return redirect(exercise_url(exercise, submission=submission.pk))
    practice = practice_of(request.user, exercise, submission_id=submission.pk)
    response = render_partial(request, "exercise-results", practice)
    return with_lesson_progress(request, response, exercise.block.lesson)


@require_GET
@never_cache  # practice state: never a stale copy on Back
@login_required_htmx
def submission_detail(request: HttpRequest, submission_id: int) -> HttpResponse:
    """One of the learner's submissions; htmx polls it until it is graded."""
    submission = get_object_or_404(
        Submission.objects.select_related("run", "exercise__block__lesson__course"),
        pk=submission_id,
        user=request.user,
    )
    exercise = submission.exercise
    if not wants_partial(request):
        return redirect(exercise_url(exercise, submission=submission.pk))
    wait_for(submission, seconds=settings.RUN_LONG_POLL_SECONDS)
    practice = practice_of(request.user, exercise_or_404(request, exercise.pk), submission_id=submission.pk)
    response = render_partial(request, "exercise-results", practice)
    return with_lesson_progress(request, response, exercise.block.lesson)


@require_POST
@login_required_htmx
def exercise_draft_save(request: HttpRequest, exercise_id: int) -> HttpResponse:
    """Keep the code as the learner types (autosaved), or go back to the starter code."""
    exercise = exercise_or_404(request, exercise_id)
    form = ExerciseCodeForm(request.POST, draft=True)
    if not form.is_valid():
        return refuse(request, exercise, next(iter(form.errors.values()))[0], status=400)
    if form.cleaned_data["reset"]:
        actions.discard_draft(user=request.user, exercise=exercise)
        note = _("Back to the code you started from.")
    else:
        draft = actions.save_draft(user=request.user, exercise=exercise, code=form.cleaned_data["code"])
        note = _("Saved.") if draft else _("Same as the code you started from: nothing to save.")
    if form.cleaned_data["leaving"]:
        return HttpResponse(status=204)
    if not wants_partial(request):
        messages.success(request, note)
        return redirect(exercise_url(exercise))
    return render_partial(request, "exercise-saved", practice_of(request.user, exercise), note=note)
