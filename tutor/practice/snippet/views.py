"""Predict, reveal, run and change a snippet.

Every region these views swap is a partial of templates/tutor/snippet_practice.html,
which the lesson page includes once per snippet. A plain (no-JS) POST redirects back to
the snippet on the lesson page; the answer never reaches the page before the learner's
own reveal.
"""

from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from course.htmx import login_required_htmx, refusal, wants_partial
from course.kinds.snippet import Snippet
from course.models import Lesson
from tutor import run_notices
from tutor.actions.runs import RunRefused, limits_for, queue_run
from tutor.assignments.closing import closed_to
from tutor.languages import supported
from tutor.models import Run
from tutor.practice import with_lesson_progress
from tutor.practice.snippet.actions import (
    BrowserRunsRefused,
    PredictionRefused,
    SelfCheckRefused,
    discard_draft,
    record_browser_runs,
    record_self_check,
    retry_reveal,
    run_own_version,
    save_draft,
    settle_predictions,
    submit_prediction,
)
from tutor.practice.snippet.browser import browser_python
from tutor.practice.snippet.forms import (
    BrowserRunsForm,
    CodeForm,
    DraftForm,
    PredictionForm,
    SelfCheckForm,
)
from tutor.practice.snippet.models import Prediction
from tutor.practice.snippet.state import SnippetPractice, practice_after_reveal, practice_of
from tutor.trail import actions as trail

TEMPLATE = "tutor/snippet_practice.html"


ALREADY_PREDICTED = gettext_lazy(
    "You had already predicted this snippet (in another tab, or before going back), so "
    "that first prediction is the one that counts, and it is shown here. The one you just "
    "sent is kept in your history but does not count."
)


# Helpers ------------------------------------------------------------------------------


def snippet_or_404(request: HttpRequest, snippet_id: int) -> Snippet:
    """The snippet, if its lesson is one the user may see (a draft's: staff only)."""
    return get_object_or_404(
        Snippet.objects.select_related("block__lesson__course"),
        pk=snippet_id,
        block__lesson__in=Lesson.objects.visible_to(request.user),
    )


def snippet_url(snippet: Snippet, **query) -> str:
    """The snippet on its lesson page."""
    url = snippet.block.lesson.get_absolute_url()
    if query:
        url += "?" + urlencode(query)
    return f"{url}#snippet-{snippet.block.key}"


def wait_for(run: Run, *, seconds: float | None = None) -> Run:
    """Give a run the chance to finish inside this request: a click waits briefly, a
    poll from the page (htmx) waits longer. Sleeping costs nothing (tutor/run_notices.py)."""
    if run.is_final:
        return run
    return run.wait_until_final(settings.RUN_WAIT_SECONDS if seconds is None else seconds)


def long_poll_seconds(request: HttpRequest) -> float:
    """A GET from the polling panel waits for the worker's notice; other GETs do not."""
    return (
        settings.RUN_LONG_POLL_SECONDS if request.method == "GET" and wants_partial(request) else 0
    )


def render_partial(
    request: HttpRequest, partial: str, practice: SnippetPractice, *, status: int = 200
) -> TemplateResponse:
    snippet = practice.snippet
    context = {"practice": practice, "snippet": snippet, "block": snippet.block}
    return TemplateResponse(request, f"{TEMPLATE}#{partial}", context, status=status)


def refuse(request: HttpRequest, snippet: Snippet, message: str, *, status: int) -> HttpResponse:
    """A clear message: into the snippet's message line for htmx, on a small page otherwise."""
    if wants_partial(request):
        return refusal(request, message, into=f"snippet-{snippet.block.key}-message", status=status)
    context = {
        "snippet": snippet,
        "block": snippet.block,
        "message": message,
        "back_url": snippet_url(snippet),
    }
    return TemplateResponse(request, f"{TEMPLATE}#snippet-message", context, status=status)


def first_error(form: forms.Form) -> str:
    return next(iter(form.errors.values()))[0]


# Views --------------------------------------------------------------------------------


@require_POST
@login_required_htmx
def prediction_create(request: HttpRequest, snippet_id: int) -> HttpResponse:
    """Store the prediction (typed, or said out loud) and reveal the real output."""
    snippet = snippet_or_404(request, snippet_id)
    if closed := closed_to(request.user, snippet.block):
        return refuse(request, snippet, closed, status=403)
    form = PredictionForm(request.POST)
    if not form.is_valid():
        return refuse(request, snippet, first_error(form), status=400)
    try:
        prediction, run = submit_prediction(
            user=request.user,
            snippet=snippet,
            text=form.cleaned_data["text"].replace("\r\n", "\n"),
            said_out_loud=form.cleaned_data["mode"] == "aloud",
        )
    except PredictionRefused as refusal:
        if wants_partial(request):
            return refuse(request, snippet, str(refusal), status=429)
        messages.warning(request, str(refusal))
        return redirect(snippet_url(snippet))
    run = wait_for(run)
    if run.is_final:
        # Given by the learner's own request (the worker gives the others'), so the badge
        # this answer brings already counts it.
        settle_predictions(predictions=[prediction], run=run)
    # Sent from a page that was out of date (another tab, or Back after a reveal): say
    # so, rather than show the first prediction as if it answered this one.
    notice = "" if prediction.is_first else ALREADY_PREDICTED
    if not wants_partial(request):
        if notice:
            messages.info(request, notice)
        return redirect(snippet_url(snippet))
    practice = practice_after_reveal(request.user, snippet, prediction=prediction, reveal=run)
    response = render_partial(request, "snippet-practice", practice)
    response.context_data["notice"] = notice
    return with_lesson_progress(request, response, snippet.block.lesson)


def own_prediction_or_404(request: HttpRequest, prediction_id: int) -> Prediction:
    return get_object_or_404(
        Prediction.objects.select_related("snippet__block__lesson__course"),
        pk=prediction_id,
        user=request.user,
    )


def verdict_pending(prediction: Prediction | None, *, fresh: bool = False) -> bool:
    if prediction is None:
        return False
    if fresh:
        return Prediction.objects.pending().filter(pk=prediction.pk).exists()
    return prediction.verdict == Prediction.Verdict.PENDING


def answer_response(request: HttpRequest, prediction: Prediction) -> HttpResponse:
    snippet = prediction.snippet
    if not wants_partial(request):
        return redirect(snippet_url(snippet))
    practice = practice_of(request.user, snippet)
    reveal = practice.reveal
    if (
        practice.waiting
        and reveal
        and wait_for(reveal, seconds=long_poll_seconds(request)).is_final
    ):
        practice = practice_of(request.user, snippet)
    if practice.answer_known and verdict_pending(practice.prediction):
        # The worker announces the output, then gives the verdicts, then announces again:
        # wait for that, so the badge this answer brings counts the prediction.
        # A poll never writes: if the worker stopped between the two, the repair sweep
        # gives the verdict (tutor.tasks.fail_stale_runs) and a later poll shows it.
        run_notices.wait(
            practice.reveal.pk,
            lambda: not verdict_pending(practice.prediction, fresh=True),
            long_poll_seconds(request),
        )
        practice = practice_of(request.user, snippet)
    response = render_partial(request, "snippet-answer", practice)
    return with_lesson_progress(request, response, snippet.block.lesson)


@require_GET
@never_cache  # practice state: never a stale copy on Back
@login_required_htmx
def prediction_detail(request: HttpRequest, prediction_id: int) -> HttpResponse:
    """The answer under a prediction; htmx polls it until the real output is known."""
    return answer_response(request, own_prediction_or_404(request, prediction_id))


@require_POST
@login_required_htmx
def reveal_retry(request: HttpRequest, prediction_id: int) -> HttpResponse:
    """Run the snippet again after the sandbox could not; the prediction stays as it was."""
    prediction = own_prediction_or_404(request, prediction_id)
    wait_for(retry_reveal(prediction=prediction))
    return answer_response(request, prediction)


@require_POST
@login_required_htmx
def self_check(request: HttpRequest, prediction_id: int) -> HttpResponse:
    """After saying it out loud and seeing the output: the learner's honest "I got it" or "I didn't"."""
    prediction = own_prediction_or_404(request, prediction_id)
    snippet = prediction.snippet
    form = SelfCheckForm(request.POST)
    try:
        if not form.is_valid():
            raise SelfCheckRefused(first_error(form))
        record_self_check(prediction=prediction, got_it=form.cleaned_data["got_it"] == "yes")
    except SelfCheckRefused as refusal:
        if wants_partial(request):
            return refuse(request, snippet, str(refusal), status=400)
        messages.warning(request, str(refusal))
        return redirect(snippet_url(snippet))
    return answer_response(request, prediction)


def revealed_or_refuse(request: HttpRequest, snippet: Snippet) -> HttpResponse | None:
    if practice_of(request.user, snippet).revealed:
        return None
    return refuse(
        request,
        snippet,
        _("Predict what it prints and reveal the answer first; then the code is yours to change."),
        status=403,
    )


@require_POST
@login_required_htmx
def run_create(request: HttpRequest, snippet_id: int) -> HttpResponse:
    """Run the learner's version of the snippet through the queue and the worker."""
    snippet = snippet_or_404(request, snippet_id)
    if refused := revealed_or_refuse(request, snippet):
        return refused
    if closed := closed_to(request.user, snippet.block):
        return refuse(request, snippet, closed, status=403)
    form = CodeForm(request.POST)
    if not form.is_valid():
        return refuse(request, snippet, first_error(form), status=400)
    code = form.cleaned_data["code"]
    save_draft(user=request.user, snippet=snippet, code=code)  # kept even if the run is refused
    stdin, own_prediction = form.cleaned_data["stdin"], form.cleaned_data["prediction"]
    try:
        if own_prediction.strip():
            run = run_own_version(
                user=request.user,
                snippet=snippet,
                code=code,
                stdin=stdin,
                prediction=own_prediction,
            )
        else:
            run = queue_run(code=code, stdin=stdin, user=request.user, snippet=snippet)
    except RunRefused as refusal:
        if wants_partial(request):
            return refuse(request, snippet, str(refusal), status=429)
        messages.warning(request, str(refusal))
        return redirect(snippet_url(snippet))
    trail.record_moment(
        user=request.user, block=snippet.block, what=trail.RUN, code=code, carried=request.POST
    )
    wait_for(run)
    if not wants_partial(request):
        return redirect(snippet_url(snippet, run=run.pk))
    return render_partial(request, "snippet-output", SnippetPractice(snippet, run=run))


@require_GET
def browser_python_modules(request: HttpRequest) -> HttpResponse:
    """The browser's Python modules, with their explanations' words in the language the page
    names (`?l=`, else the request's); the page asks with their digest (`?v=`), so a copy
    may be kept for good."""
    language = supported(request.GET.get("l")) or translation.get_language()
    text, digest = browser_python(language)
    response = HttpResponse(text, content_type="application/json")
    if request.GET.get("v") == digest:
        response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


MAX_BROWSER_REPORT_BYTES = 2_000_000  # ten runs of long code, input and output fit


@require_POST
@login_required_htmx
def browser_runs_record(request: HttpRequest, snippet_id: int) -> HttpResponse:
    """Record the runs the learner's browser made of their version (static/js/browser-run.js
    sends them in batches): only for a snippet of a lesson they may see, revealed, open to
    them, within the sizes a run may have and the number a minute Parsnip records. The
    answer is JSON for the script: the recorded runs' ids, or why not."""
    try:
        size = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        size = MAX_BROWSER_REPORT_BYTES + 1
    if size > MAX_BROWSER_REPORT_BYTES:
        return JsonResponse({"error": _("That report is too large.")}, status=413)
    snippet = snippet_or_404(request, snippet_id)
    if not practice_of(request.user, snippet).revealed:
        return JsonResponse({"error": _("Reveal the snippet's answer first.")}, status=403)
    if closed := closed_to(request.user, snippet.block):
        return JsonResponse({"error": closed}, status=403)
    form = BrowserRunsForm(request.POST, output_bytes=limits_for(snippet).output_bytes)
    if not form.is_valid():
        return JsonResponse({"error": first_error(form)}, status=400)
    try:
        runs = record_browser_runs(user=request.user, snippet=snippet, runs=form.cleaned_data["runs"])
    except BrowserRunsRefused as refusal:
        return JsonResponse({"error": str(refusal)}, status=429)
    return JsonResponse({"recorded": [run.pk for run in runs]})


@require_GET
@never_cache  # practice state: never a stale copy on Back
@login_required_htmx
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    """One of the learner's runs; htmx polls it until it is final."""
    run = get_object_or_404(
        Run.objects.select_related("snippet__block__lesson__course"),
        pk=run_id,
        user=request.user,
        purpose=Run.Purpose.RUN,
        snippet__isnull=False,
    )
    if not wants_partial(request):
        return redirect(snippet_url(run.snippet, run=run.pk))
    wait_for(run, seconds=long_poll_seconds(request))
    return render_partial(request, "snippet-output", SnippetPractice(run.snippet, run=run))


@require_POST
@login_required_htmx
def draft_save(request: HttpRequest, snippet_id: int) -> HttpResponse:
    """Keep the learner's edited code (autosaved as they type), or reset to the original."""
    snippet = snippet_or_404(request, snippet_id)
    if refused := revealed_or_refuse(request, snippet):
        return refused
    form = DraftForm(request.POST)
    if not form.is_valid():
        return refuse(request, snippet, first_error(form), status=400)
    if form.cleaned_data["reset"]:
        discard_draft(user=request.user, snippet=snippet)
        draft, note = None, _("Back to the original code.")
    else:
        code = form.cleaned_data["code"].replace("\r\n", "\n")
        draft = save_draft(user=request.user, snippet=snippet, code=code)
        note = _("Saved.") if draft else _("Same as the original: nothing to save.")
    if form.cleaned_data["leaving"]:
        return HttpResponse(status=204)
    if not wants_partial(request):
        messages.success(request, note)
        return redirect(snippet_url(snippet))
    practice = SnippetPractice(snippet, draft=draft)
    response = render_partial(request, "snippet-saved", practice)
    response.context_data["note"] = note
    return response
