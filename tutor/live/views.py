"""The live view of a class during a lesson (teachers), and the hand a learner raises.

Every teacher page here checks, in the view, that the user teaches the class (403 for
students, 404 for another teacher's class), as tutor.views.teaching does. The board is
the region htmx polls every few seconds (`live-board` in templates/tutor/live/live.html);
without JavaScript the page has a Refresh link. `?assignment=<pk>` (a hidden field in the
forms) makes it the live view of one of the class's assignments of the lesson: the same
board, with where each student stands on the assignment.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from course.htmx import login_required_htmx, refusal, vary_on_htmx, wants_partial
from course.models import Lesson
from tutor.assignments.models import Assignment
from tutor.live import actions
from tutor.live.board import build_board, settings_of
from tutor.live.forms import ClearHandsForm, HandForm, LiveSettingsForm
from tutor.live.hands import hand_state
from tutor.models import Cohort
from tutor.practice import practice_blocks
from tutor.roles import require_teacher

TEMPLATE = "tutor/live/live.html"
HAND_TEMPLATE = "tutor/live/hand.html"
POLL_SECONDS = 3


def taught_class(request: HttpRequest, pk: int) -> Cohort:
    """The class `pk`, with its live settings, if the user teaches it (or is an admin):
    403 for non-teachers, else 404."""
    require_teacher(request)
    return get_object_or_404(
        Cohort.objects.visible_to(request.user).select_related("live_settings"), pk=pk
    )


def taught_lesson(lesson_pk: int) -> Lesson:
    return get_object_or_404(Lesson.objects.published().select_related("course"), pk=lesson_pk)


def scoped_assignment(cohort: Cohort, lesson: Lesson, raw: str | None) -> Assignment | None:
    """The assignment `raw` names (a query parameter or a form's field): one of the class's
    assignments of the lesson, else 404; None when it names none."""
    if not raw:
        return None
    if not raw.isdigit():
        raise Http404("No such assignment.")
    return get_object_or_404(Assignment.objects.filter(cohort=cohort, lesson=lesson), pk=int(raw))


def live_url(cohort: Cohort, lesson: Lesson, assignment: Assignment | None = None) -> str:
    url = reverse("tutor:live_view", args=[cohort.pk, lesson.pk])
    return url if assignment is None else f"{url}?assignment={assignment.pk}"


def board_response(
    request: HttpRequest,
    cohort: Cohort,
    lesson: Lesson,
    *,
    assignment: Assignment | None = None,
    form: LiveSettingsForm | None = None,
    status: int = 200,
) -> TemplateResponse:
    context = {
        "cohort": cohort,
        "lesson": lesson,
        "assignment": assignment,
        "board": build_board(cohort, lesson, now=timezone.now(), assignment=assignment),
        "live_url": live_url(cohort, lesson, assignment),
        "clear_url": reverse("tutor:live_hands_clear", args=[cohort.pk, lesson.pk]),
        # Each student's page is this prefix and their pk: one reverse() a refresh, not one a row.
        "student_url_prefix": reverse("tutor:class_student", args=[cohort.pk, 0]).removesuffix(
            "0/"
        ),
        "poll_seconds": POLL_SECONDS,
        "settings_form": form or LiveSettingsForm(instance=settings_of(cohort)),
    }
    template = f"{TEMPLATE}#live-board" if wants_partial(request) else TEMPLATE
    return vary_on_htmx(TemplateResponse(request, template, context, status=status))


@require_GET
@never_cache  # the class as it is now, never a copy from before
@login_required_htmx  # polled by htmx
def live_view(request: HttpRequest, pk: int, lesson_pk: int) -> TemplateResponse:
    """Who is on which block, what they last did, who is stuck, whose hand is up; with
    ?assignment=, where each stands on it. A fixed number of queries whatever the class
    size (tutor.live.board)."""
    cohort = taught_class(request, pk)
    lesson = taught_lesson(lesson_pk)
    assignment = scoped_assignment(cohort, lesson, request.GET.get("assignment"))
    return board_response(request, cohort, lesson, assignment=assignment)


@require_POST
@login_required_htmx
def hands_clear(request: HttpRequest, pk: int, lesson_pk: int) -> HttpResponse:
    """The teacher clears one student's hand, or every hand of the class in the lesson."""
    cohort = taught_class(request, pk)
    lesson = taught_lesson(lesson_pk)
    assignment = scoped_assignment(cohort, lesson, request.POST.get("assignment"))
    form = ClearHandsForm(request.POST)
    try:
        if not form.is_valid():
            raise actions.HandRefused(next(iter(form.errors.values()))[0])
        cleared = actions.clear_hands(
            cohort=cohort,
            lesson=lesson,
            student_pk=None if form.cleaned_data["all"] else form.cleaned_data["student"],
        )
    except actions.HandRefused as refused:
        if wants_partial(request):
            return refusal(request, str(refused), into="live-message", status=refused.status)
        messages.error(request, str(refused))
        return redirect(live_url(cohort, lesson, assignment))
    if not wants_partial(request):
        messages.success(
            request, ngettext("Cleared %(n)s hand.", "Cleared %(n)s hands.", cleared) % {"n": cleared}
        )
        return redirect(live_url(cohort, lesson, assignment))
    return board_response(request, cohort, lesson, assignment=assignment)


@require_POST
@login_required
def live_settings(request: HttpRequest, pk: int, lesson_pk: int) -> HttpResponse:
    """The class's rules for "stuck", from the live page (a plain form)."""
    cohort = taught_class(request, pk)
    lesson = taught_lesson(lesson_pk)
    assignment = scoped_assignment(cohort, lesson, request.POST.get("assignment"))
    form = LiveSettingsForm(request.POST, instance=settings_of(cohort))
    if not form.is_valid():
        return board_response(
            request, cohort, lesson, assignment=assignment, form=form, status=400
        )
    actions.save_settings(
        cohort=cohort,
        stuck_failures=form.cleaned_data["stuck_failures"],
        stuck_minutes=form.cleaned_data["stuck_minutes"],
    )
    messages.success(
        request, _("Saved: the live view uses the new rules for every lesson of this class.")
    )
    return redirect(live_url(cohort, lesson, assignment))


# Learners: the hand -------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@never_cache
@login_required_htmx
def hand(request: HttpRequest, lesson_pk: int) -> HttpResponse:
    """Raise or lower the learner's hand in a lesson (POST). A raised hand's button asks
    again now and then (GET, htmx), so it shows when the teacher has cleared it."""
    lesson = get_object_or_404(
        Lesson.objects.visible_to(request.user).select_related("course"), pk=lesson_pk
    )
    back = f"{lesson.get_absolute_url()}#raise-hand"
    if request.method == "POST":
        form = HandForm(request.POST)
        try:
            if not form.is_valid():
                raise actions.HandRefused(_("Send hand=raise or hand=lower."))
            if form.cleaned_data["hand"] == "raise":
                block = None
                if form.cleaned_data["block"] is not None:
                    block = next(
                        (b for b in practice_blocks(lesson) if b.pk == form.cleaned_data["block"]), None
                    )
                    if block is None:
                        raise actions.HandRefused(_("That item is not in this lesson."))
                actions.raise_hand(user=request.user, lesson=lesson, block=block)
            else:
                actions.lower_hand(user=request.user, lesson=lesson)
        except actions.HandRefused as refused:
            if wants_partial(request):
                return refusal(
                    request, str(refused), into="raise-hand-message", status=refused.status
                )
            messages.error(request, str(refused))
            return redirect(back)
    if not wants_partial(request):
        return redirect(back)
    context = {"hand": hand_state(request.user, lesson)}
    return vary_on_htmx(TemplateResponse(request, f"{HAND_TEMPLATE}#raise-hand", context))
