"""The trail's endpoints: the editor's batches (the learner's own), the replay (the learner's
own, and their teacher's), and watching a student's code live (their teacher's).

Every permission is checked here: a learner reaches only their own trail (another's is 404);
a teacher only their class's students' (403 for non-teachers, 404 for another teacher's class,
as tutor.views.teaching does).
"""

import re

from django import forms
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from course.htmx import login_required_htmx, vary_on_htmx, wants_partial
from course.models import Block, Lesson
from tutor.forms import LinesField
from tutor.live.views import POLL_SECONDS
from tutor.roles import taught_class
from tutor.trail import actions, encoding, replay
from tutor.trail.models import Trail

TEMPLATE = "tutor/trail/replay.html"
WATCH_TEMPLATE = "tutor/trail/watch.html"
MAX_CODE_CHARS = 20_000  # as the editors' forms
MAX_BATCH_CHARS = 100_000  # a few seconds of editing: a whole code pasted twice


class BatchForm(forms.Form):
    """A batch as the editor sends it (FormData: line breaks arrive as CRLF)."""

    edits = forms.CharField(required=False, strip=False, max_length=MAX_BATCH_CHARS)
    code = LinesField(required=False, strip=False, max_length=MAX_CODE_CHARS)
    # The text the edits start from, sent with a page's first batch.
    base = LinesField(required=False, strip=False, max_length=MAX_CODE_CHARS)

    def clean(self):
        # A batch always says where the editor ended: one without is not the editor's.
        if "code" not in self.data:
            raise forms.ValidationError(gettext("A batch must carry the code it ended with."))
        return super().clean()

    def clean_edits(self):
        try:
            return encoding.parse_batch(self.cleaned_data["edits"] or "[]")
        except encoding.BadSteps as bad:
            raise forms.ValidationError(str(bad)) from None


def code_block_or_404(request: HttpRequest, block_pk: int) -> Block:
    """A block with a code editor, in a lesson the user may see."""
    return get_object_or_404(
        Block.objects.filter(
            lesson__in=Lesson.objects.visible_to(request.user),
            kind__in=["snippet", "code_exercise"],
        ).select_related("lesson__course", "snippet", "code_exercise"),
        pk=block_pk,
    )


@require_POST
@login_required_htmx
def trail_record(request: HttpRequest, block_pk: int) -> HttpResponse:
    """A batch of the learner's edits (static/js/trail.js sends one every few seconds)."""
    block = code_block_or_404(request, block_pk)
    form = BatchForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(
            " ".join(e for errors in form.errors.values() for e in errors)
        )
    try:
        actions.record_edits(
            user=request.user,
            block=block,
            edits=form.cleaned_data["edits"],
            code=form.cleaned_data["code"],
            base=form.cleaned_data["base"] if "base" in request.POST else None,
        )
    except actions.RecordingRefused as refused:
        return HttpResponse(str(refused), status=429, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


STEP = re.compile(r"-?[0-9]{1,12}")  # ASCII digits: isdigit() takes "²", which int() refuses


def step_number(request: HttpRequest) -> int | None:
    """The step asked for (past either end: that end), or None when it is not a number."""
    raw = request.GET.get("step", "0")
    return int(raw) if STEP.fullmatch(raw) else None


def replay_response(
    request: HttpRequest, trail: Trail, *, base_url: str, context: dict
) -> HttpResponse:
    number = step_number(request)
    if number is None:
        return HttpResponseBadRequest(gettext("The step must be a number, such as ?step=3."))
    shown = replay.step_of(trail, number)
    context = context | {
        "trail": trail,
        "shown": shown,
        "submission": replay.submission_at(trail, shown),
        "base_url": base_url,
        "marks": replay.marks_in_words(trail),
        "speeds": replay.SPEEDS,
    }
    template = f"{TEMPLATE}#replay-step" if wants_partial(request) else TEMPLATE
    response = TemplateResponse(request, template, context)
    if wants_partial(request):
        response["HX-Replace-Url"] = f"{base_url}?step={shown.number}"
    return vary_on_htmx(response)


@require_GET
@login_required_htmx
def my_trail(request: HttpRequest, block_pk: int) -> HttpResponse:
    """The learner's own trail on a block, step by step."""
    trail = get_object_or_404(
        Trail.objects.select_related("block__lesson__course"),
        user=request.user,
        block_id=block_pk,
        block__lesson__in=Lesson.objects.visible_to(request.user),
    )
    base_url = reverse("tutor:my_trail", args=[block_pk])
    return replay_response(
        request, trail, base_url=base_url, context={"student": request.user, "cohort": None}
    )


def students_trail(request: HttpRequest, pk: int, student_pk: int, block_pk: int):
    cohort = taught_class(request, pk)
    student = get_object_or_404(User, pk=student_pk, memberships__cohort=cohort)
    block = get_object_or_404(Block.objects.select_related("lesson__course"), pk=block_pk)
    return cohort, student, block


@require_GET
@login_required_htmx
def class_trail(request: HttpRequest, pk: int, student_pk: int, block_pk: int) -> HttpResponse:
    """A student's trail on a block, for their teacher."""
    cohort, student, block = students_trail(request, pk, student_pk, block_pk)
    trail = get_object_or_404(
        Trail.objects.select_related("block__lesson__course"), user=student, block=block
    )
    base_url = reverse("tutor:class_trail", args=[cohort.pk, student.pk, block.pk])
    return replay_response(
        request, trail, base_url=base_url, context={"student": student, "cohort": cohort}
    )


@require_GET
@never_cache  # the code as it is now
@login_required_htmx  # polled by htmx
def trail_watch(request: HttpRequest, pk: int, student_pk: int, block_pk: int) -> TemplateResponse:
    """A student's code as it is now, read-only, refreshed with the live view's poll."""
    cohort, student, block = students_trail(request, pk, student_pk, block_pk)
    trail = Trail.objects.filter(user=student, block=block).first()
    context = {
        "cohort": cohort,
        "student": student,
        "item": block,
        "trail": trail,
        "lines": list(enumerate((trail.text if trail else "").split("\n"), start=1)),
        "poll_seconds": POLL_SECONDS,
        "watch_url": reverse("tutor:trail_watch", args=[cohort.pk, student.pk, block.pk]),
        "live_url": reverse("tutor:live_view", args=[cohort.pk, block.lesson_id]),
    }
    template = f"{WATCH_TEMPLATE}#watched-code" if wants_partial(request) else WATCH_TEMPLATE
    return vary_on_htmx(TemplateResponse(request, template, context))
