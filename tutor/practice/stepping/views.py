"""Step through a program: start (POST), wait for the trace, and the step pages.

Each step has its own URL, /trace/<stepping>/step/<n>/, a whole page that works without
JavaScript (links, and a GET form for the slider); with htmx, a link or the slider swaps
only the step region (`step-region` in templates/tutor/stepping/page.html) and pushes
the step's URL. Pages only read: how far the learner got is recorded by a small POST the
step region sends when it loads (`stepping_reached`); without JavaScript, the start POST
is the record that they opened it.
"""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, push_url

from course.htmx import login_required_htmx, refusal, vary_on_htmx, wants_partial
from tutor.actions.runs import RunRefused
from tutor.models import Run
from tutor.practice.code_exercise.models import Submission
from tutor.practice.code_exercise.state import practice_of as exercise_practice_of
from tutor.practice.code_exercise.views import exercise_url
from tutor.practice.snippet.state import practice_of
from tutor.practice.snippet.views import snippet_or_404, snippet_url
from tutor.practice.stepping import actions, steps
from tutor.practice.stepping.models import Stepping

TEMPLATE = "tutor/stepping/page.html"


class SnippetStepForm(forms.Form):
    """Step through the snippet, or (with `run`) the learner's own run of their version."""

    run = forms.IntegerField(required=False, min_value=1)


class TestStepForm(forms.Form):
    test = forms.CharField(max_length=200)


class StepForm(forms.Form):
    step = forms.IntegerField(
        min_value=1,
        error_messages={
            "required": "Say which step: a number from 1.",
            "invalid": "A step is a whole number, from 1.",
            "min_value": "Steps start at 1.",
        },
    )


def first_error(form: forms.Form) -> str:
    return next(iter(form.errors.values()))[0]


def refuse(
    request: HttpRequest, message: str, *, into: str, status: int, back: str
) -> HttpResponse:
    """The site's one refusal for htmx; without it, back where the learner was, with the
    message at the top."""
    if wants_partial(request):
        return refusal(request, message, into=into, status=status)
    messages.warning(request, message)
    return redirect(back)


def begin(request: HttpRequest, *, back: str, into: str, **how) -> HttpResponse:
    """Start (or reopen) the stepping and go to it: the whole page, even from a panel."""
    try:
        stepping = actions.start_stepping(user=request.user, **how)
    except RunRefused as refused:
        return refuse(request, str(refused), into=into, status=429, back=back)
    url = reverse("tutor:stepping_detail", args=[stepping.pk])
    if wants_partial(request):
        return HttpResponseClientRedirect(url)
    return redirect(url)


@require_POST
@login_required_htmx
def start_snippet(request: HttpRequest, snippet_id: int) -> HttpResponse:
    """ "Step through" on a snippet after its reveal (opening where the output leaves a
    wrong prediction), or on the learner's own run of their edited version."""
    snippet = snippet_or_404(request, snippet_id)
    into, back = f"snippet-{snippet.block.key}-message", snippet_url(snippet)
    practice = practice_of(request.user, snippet)
    if not practice.revealed:
        return refuse(
            request,
            "Predict what it prints and reveal the answer first; then step through it.",
            into=into,
            status=403,
            back=back,
        )
    form = SnippetStepForm(request.POST)
    if not form.is_valid():
        return refuse(request, first_error(form), into=into, status=400, back=back)
    run_id = form.cleaned_data["run"]
    if run_id:
        run = Run.objects.filter(
            pk=run_id, user=request.user, snippet=snippet, purpose=Run.Purpose.RUN
        ).first()
        if run is None:
            return refuse(
                request,
                "That run is not one of yours on this snippet.",
                into=into,
                status=400,
                back=back,
            )
        return begin(
            request,
            back=back,
            into=into,
            code=run.code,
            stdin=run.stdin,
            origin=Stepping.Origin.OWN,
            snippet=snippet,
        )
    comparison = practice.comparison
    prediction = (
        practice.prediction.text if comparison is not None and not comparison.is_right else ""
    )
    return begin(
        request,
        back=back,
        into=into,
        code=snippet.code,
        stdin=snippet.stdin,
        origin=Stepping.Origin.SNIPPET,
        snippet=snippet,
        prediction=prediction,
    )


def joined_with_check(code: str, check: str) -> tuple[str, int]:
    """The learner's code followed by a check's source, and the check's first line."""
    code = code.rstrip("\n")
    first = code.count("\n") + 2 if code else 1
    return (f"{code}\n{check}" if code else check), first


def with_arguments(code: str, args: list) -> tuple[str, int]:
    """The learner's code after a first line that gives it a test's command-line arguments
    (the tracer runs a program with none), and the code's first line: the trace shows
    where sys.argv came from, and opens at the learner's own code."""
    given = [str(arg) for arg in args]
    return f"import sys; sys.argv[1:] = {given!r}  # the test's arguments\n{code}", 2


@require_POST
@login_required_htmx
def start_test(request: HttpRequest, submission_id: int) -> HttpResponse:
    """ "Step through" a test the learner's submission failed and they may see (a visible
    one, or a hidden one once the exercise's hidden tests show: solved, or due): their code
    with the test's input, or their code followed by the check (opening at its first step)."""
    submission = get_object_or_404(
        Submission.objects.select_related("exercise__block__lesson__course"),
        pk=submission_id,
        user=request.user,
    )
    exercise = submission.exercise
    into, back = (
        f"exercise-{exercise.block.key}-message",
        exercise_url(exercise, submission=submission.pk),
    )
    form = TestStepForm(request.POST)
    if not form.is_valid():
        return refuse(request, "Say which test to step through.", into=into, status=400, back=back)
    name = form.cleaned_data["test"]
    failed = {
        result.get("name")
        for result in submission.results.get("results", [])
        if not result.get("passed")
    }
    test = next((t for t in exercise.tests.all() if t.name == name), None)
    if test is not None and test.hidden and not hidden_tests_shown(request.user, exercise):
        test = None
    if test is None or name not in failed:
        return refuse(
            request,
            "You can step through a test your code failed (a hidden one once it shows in"
            " full); that one is not.",
            into=into,
            status=400,
            back=back,
        )
    code, first = submission.code, None
    if test.is_check:
        code, first = joined_with_check(code, test.check_code)
    elif test.args:
        code, first = with_arguments(code, test.args)
    return begin(
        request,
        back=back,
        into=into,
        code=code,
        stdin=test.stdin,
        from_line=first,
        origin=Stepping.Origin.TEST,
        exercise=exercise,
        test_name=name,
    )


def hidden_tests_shown(user, exercise) -> bool:
    return exercise_practice_of(user, exercise).hidden_tests_shown


def own_stepping_or_404(
    request: HttpRequest, stepping_id: int, *, with_trace: bool = True, with_run: bool = False
) -> Stepping:
    """The learner's own stepping (another's is not found). The trace's steps are not read
    with it (a step page reads the two it shows: Trace.steps); `with_trace=False` leaves
    out its index too, for a write that needs only its size; `with_run` brings the trace's
    run (to wait for it)."""
    rows = Stepping.objects.select_related(
        "trace", "snippet__block__lesson", "exercise__block__lesson"
    ).defer("trace__steps_text")
    if with_run:
        rows = rows.select_related("trace__run")
    if not with_trace:
        rows = rows.defer("trace__data", "trace__steps_index")
    return get_object_or_404(rows, pk=stepping_id, user=request.user)


def back_url(stepping: Stepping) -> str:
    if stepping.exercise is not None:
        return exercise_url(stepping.exercise)
    if stepping.snippet is not None:
        return snippet_url(stepping.snippet)
    return reverse("tutor:catalogue")


def opening_step(stepping: Stepping, data) -> int:
    if stepping.prediction:
        return steps.first_differing_step(data, stepping.prediction)
    if stepping.from_line:
        return steps.first_step_from_line(data, stepping.from_line)
    return 1


def step_url(stepping: Stepping, number: int) -> str:
    return reverse("tutor:step_detail", args=[stepping.pk, number])


@require_GET
@never_cache
@login_required_htmx
def stepping_detail(request: HttpRequest, stepping_id: int) -> HttpResponse:
    """The stepping: to its opening step once traced; until then a page that waits (htmx
    polls it; without JavaScript it refreshes itself)."""
    stepping = own_stepping_or_404(request, stepping_id, with_run=True)
    trace = stepping.trace
    if not trace.is_ready and not trace.failed:
        # A poll waits for the worker's notice; the page itself only briefly.
        seconds = (
            settings.RUN_LONG_POLL_SECONDS if wants_partial(request) else settings.RUN_WAIT_SECONDS
        )
        if seconds > 0:
            trace.run.wait_until_final(seconds)
            trace.refresh_from_db()
    if trace.is_ready and trace.steps_total:
        url = step_url(stepping, opening_step(stepping, trace.steps()))
        return HttpResponseClientRedirect(url) if wants_partial(request) else redirect(url)
    context = {
        "stepping": stepping,
        "trace": trace,
        "back_url": back_url(stepping),
        "problem": (steps.stopped_words(trace.data) or "The program has no step to show.")
        if trace.is_ready
        else "",
    }
    partial = "#stepping-waiting" if wants_partial(request) else ""
    return vary_on_htmx(TemplateResponse(request, TEMPLATE + partial, context))


@require_POST
@login_required_htmx
def stepping_retry(request: HttpRequest, stepping_id: int) -> HttpResponse:
    """Trace it again, after the worker could not."""
    stepping = own_stepping_or_404(request, stepping_id, with_trace=False)
    trace = stepping.trace
    try:
        actions.trace_for(
            code=trace.code, stdin=trace.stdin, user=request.user, snippet=stepping.snippet
        )
    except RunRefused as refused:
        return refuse(
            request,
            str(refused),
            into="stepping-message",
            status=429,
            back=reverse("tutor:stepping_detail", args=[stepping.pk]),
        )
    return redirect(reverse("tutor:stepping_detail", args=[stepping.pk]))


def render_step(request: HttpRequest, stepping: Stepping, number: int) -> HttpResponse:
    trace = stepping.trace
    if not trace.is_ready or not trace.steps_total:
        return redirect(reverse("tutor:stepping_detail", args=[stepping.pk]))
    if not 1 <= number <= trace.steps_total:
        raise Http404("There is no such step.")
    view = steps.step_view(trace.steps(), trace.code, number)  # parses this step and the one before
    context = {
        "stepping": stepping,
        "trace": trace,
        "view": view,
        "back_url": back_url(stepping),
        "row": steps.ROW,
        "arrow_width": steps.ARROW_WIDTH,
        "link_width": steps.LINK_WIDTH,
        "partial": wants_partial(request),  # then the words go to the live region out of band
    }
    partial = "#step-region" if wants_partial(request) else ""
    response = TemplateResponse(request, TEMPLATE + partial, context)
    if wants_partial(request):
        push_url(response, step_url(stepping, number))
    return vary_on_htmx(response)


@require_GET
@never_cache
@login_required_htmx
def step_detail(request: HttpRequest, stepping_id: int, number: int) -> HttpResponse:
    """One step: the code, the frames and objects, the output so far."""
    return render_step(request, own_stepping_or_404(request, stepping_id), number)


@require_GET
@never_cache
@login_required_htmx
def step_goto(request: HttpRequest, stepping_id: int) -> HttpResponse:
    """The slider's form: ?step=n; to that step's own URL (htmx: the step region, with its
    URL pushed)."""
    stepping = own_stepping_or_404(request, stepping_id)
    form = StepForm(request.GET)
    if not form.is_valid():
        return refuse(
            request,
            first_error(form),
            into="stepping-message",
            status=400,
            back=reverse("tutor:stepping_detail", args=[stepping.pk]),
        )
    number = min(form.cleaned_data["step"], max(1, stepping.trace.steps_total))
    if wants_partial(request):
        return render_step(request, stepping, number)
    return redirect(step_url(stepping, number))


@require_POST
@login_required_htmx
def stepping_reached(request: HttpRequest, stepping_id: int) -> HttpResponse:
    """The step region loaded step n: keep the furthest step the learner reached."""
    stepping = own_stepping_or_404(request, stepping_id, with_trace=False)
    form = StepForm(request.POST)
    if not form.is_valid():
        return refuse(
            request,
            first_error(form),
            into="stepping-message",
            status=400,
            back=reverse("tutor:stepping_detail", args=[stepping.pk]),
        )
    actions.record_reached(stepping=stepping, step=form.cleaned_data["step"])
    if wants_partial(request):
        return HttpResponse(status=204)
    return redirect(
        step_url(stepping, max(1, min(form.cleaned_data["step"], stepping.trace.steps_total)))
    )
