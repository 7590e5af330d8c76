"""The LMS's way in (OIDC login, launch, keys), the teacher's Deep Linking picker, and the
teacher's page of grades on their way to the LMS."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import authenticate, login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiRegistration
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem as AgsLineItem

from course.models import Lesson
from lti import accounts, claims, cookies, framing, grades, launch, roster
from lti.models import ClassLink, ScoreSync
from tutor import languages
from tutor.assignments.models import Assignment
from tutor.models import Cohort
from tutor.views.teaching import taught_class

DEEP_LINK_SESSION_KEY = "lti-deep-link"


def refused(request: HttpRequest, message: str, status: int = 403) -> TemplateResponse:
    return TemplateResponse(request, "lti/refused.html", {"message": message}, status=status)


@csrf_exempt  # the LMS posts here; the state and nonce are the launch's CSRF protection
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def oidc_login(request: HttpRequest, registration_uuid) -> HttpResponse:
    checked = cookies.check_first(request, registration_uuid)  # framed: will cookies come back?
    if checked is not None:
        return checked
    try:
        response = launch.oidc_login(request, registration_uuid)
    except launch.LaunchRefused as error:
        return refused(request, str(error), status=400)
    if cookies.TEST_COOKIE in request.COOKIES:
        response.delete_cookie(cookies.TEST_COOKIE)
    return response


def state_cookie_missing(
    request: HttpRequest, error: "launch.StateCookieMissing"
) -> TemplateResponse:
    """The launch's state cookie did not come back: said in plain words, with the button that
    opens the same launch in a new window (where the cookie is first-party), framed by the LMS."""
    registration, url = error.login or (None, "")
    response = TemplateResponse(
        request,
        "lti/refused.html",
        {
            "message": f"Parsnip could not accept this launch from your LMS: {error}",
            "cookies_missing": True,
            "lms_name": registration.name if registration else "your LMS",
            "new_window_url": url,
        },
        status=403,
    )
    if registration is not None:
        cookies.allow_framing(response, registration)
    return response


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    return JsonResponse(Key.objects.as_jwks())


@csrf_exempt  # the id token, signed by the LMS and bound to the state cookie, is the proof
@xframe_options_exempt
@require_POST
def launch_view(request: HttpRequest) -> HttpResponse:
    try:
        lti_launch = launch.validate(request)
    except launch.StateCookieMissing as error:
        return state_cookie_missing(request, error)
    except launch.LaunchRefused as error:
        return refused(
            request,
            _("Parsnip could not accept this launch from your LMS: %(error)s") % {"error": error},
        )
    if not (lti_launch.is_resource_launch or lti_launch.is_deep_link_launch):
        # Before anything is stored: a submission review or data privacy launch signs nobody in.
        return refused(request, _("Parsnip does not handle this kind of LMS message."), status=400)
    if lti_launch.is_deep_link_launch and not launch.is_instructor(lti_launch):
        return refused(request, _("Only a teacher of the LMS course can add Parsnip links to it."))
    try:
        with transaction.atomic():  # a refused link leaves no account, class or seat behind
            user, link, context = launch.sign_in_data(lti_launch)
            lesson = None
            if lti_launch.is_resource_launch:
                lesson, _assignment = launch.lesson_of_link(lti_launch, context)
                if lesson is None:
                    raise launch.LinkRefused(
                        _(
                            "This link does not point at a Parsnip lesson. Ask your teacher to add it again."
                        )
                    )
    except launch.LaunchRefused as error:
        return refused(request, str(error), status=error.status)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    framing.allow_framing_by(request, lti_launch.registration)
    presentation = lti_launch.get_launch_data().get(claims.LAUNCH_PRESENTATION) or {}
    languages.launched_in(request, user, presentation.get("locale"))
    if lti_launch.is_deep_link_launch:
        request.session[DEEP_LINK_SESSION_KEY] = {
            "registration": lti_launch.registration.pk,
            "deployment_id": lti_launch.deployment.deployment_id,
            "context": context.pk if context is not None else None,
            "settings": lti_launch.get_launch_data()[
                "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
            ],
        }
        return redirect("lti:deep_link")
    if link is not None and launch.is_instructor(lti_launch) and link.cohort.is_taught_by(user):
        # The teacher's first view of a linked lesson is their class's view of it.
        return redirect("tutor:class_lesson", pk=link.cohort.pk, lesson_pk=lesson.pk)
    if link is not None:
        grades.progress_changed(None, user_id=user.pk, lesson_id=lesson.pk)  # a column exists now
    if accounts.is_made_by_lms(user) and not user.lesson_progress.exists():
        messages.info(
            request,
            _(
                "Had a Parsnip account before? Link it (once): Link my Parsnip account, at the top "
                "of the Classes page."
            ),
        )
        request.session["lti-link-next"] = lesson.get_absolute_url()
    return redirect(lesson.get_absolute_url())


def deep_link_request(request: HttpRequest) -> dict:
    data = request.session.get(DEEP_LINK_SESSION_KEY)
    if not data or not request.user.is_authenticated:
        raise PermissionDenied("Open the picker from your LMS (Add a Parsnip activity).")
    return data


@login_required
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def deep_link(request: HttpRequest) -> HttpResponse:
    """The teacher picks a lesson; the LMS gets a link to it with a gradebook column whose
    maximum is what Parsnip grades it out of."""
    data = deep_link_request(request)
    lessons = (
        Lesson.objects.published().select_related("course").order_by("course__title", "position")
    )
    # Only the LMS course's own class's assignments: their learners are that class's.
    assignments = (
        Assignment.objects.filter(
            cohort__in=Cohort.objects.visible_to(request.user),
            cohort__lms_links__context_id=data.get("context"),
        )
        .select_related("lesson", "cohort")
        .order_by("cohort__name", "due_at")
    )
    error = ""
    if request.method == "POST":
        kind, _colon, pk = request.POST.get("target", "").partition(":")
        chosen = None
        if pk.isdigit() and kind == "lesson":
            chosen = lessons.filter(pk=int(pk)).first()
        elif pk.isdigit() and kind == "assignment":
            chosen = assignments.filter(pk=int(pk)).first()
        if chosen is None:
            error = _("Choose a lesson or an assignment.")
        else:
            return deep_link_answer(request, data, chosen)
    return TemplateResponse(
        request,
        "lti/deep_link.html",
        {"lessons": lessons, "assignments": assignments, "error": error},
        status=400 if error else 200,
    )


class LinkWithDueDate(DeepLinkResource):
    """pylti1p3's content item, with the Deep Linking `submission.endDateTime` (the due
    date the LMS shows) that it cannot express."""

    def __init__(self, due_at=None):
        super().__init__()
        self.due_at = due_at

    def to_dict(self):
        item = super().to_dict()
        if self.due_at is not None:
            item["submission"] = {"endDateTime": self.due_at.isoformat()}
        return item


def deep_link_answer(
    request: HttpRequest, data: dict, chosen: Lesson | Assignment
) -> TemplateResponse:
    """The signed answer to the LMS: a link to the lesson or assignment, with a gradebook
    column graded out of what Parsnip grades it on."""
    from pylti1p3.deep_link import DeepLink

    if isinstance(chosen, Assignment):
        title = f"{chosen.lesson.title} ({chosen.cohort.name})"
        maximum, custom = (
            len(grades.assignment_items(chosen)),
            {launch.CUSTOM_ASSIGNMENT: str(chosen.pk)},
        )
        resource_id = f"parsnip-assignment-{chosen.pk}"
    else:
        title = chosen.title
        maximum, custom = grades.lesson_items(chosen), {launch.CUSTOM_LESSON: str(chosen.pk)}
        resource_id = f"parsnip-lesson-{chosen.pk}"
    column = (
        AgsLineItem()
        .set_score_maximum(maximum)
        .set_label(title)
        .set_resource_id(resource_id)
        .set_tag(resource_id)
    )
    resource = (
        LinkWithDueDate(chosen.due_at if isinstance(chosen, Assignment) else None)
        .set_url(request.build_absolute_uri(reverse("lti:launch")))
        .set_title(title)
        .set_custom_params(custom)
        .set_lineitem(column)
    )
    registration = get_object_or_404(LtiRegistration, pk=data["registration"]).to_registration()
    message = DeepLink(registration, data["deployment_id"], data["settings"])
    del request.session[DEEP_LINK_SESSION_KEY]
    return_url = data["settings"]["deep_link_return_url"]
    response = TemplateResponse(
        request,
        "lti/deep_link_return.html",
        {
            "return_url": return_url,
            "jwt": message.get_response_jwt([resource]),
            "title": title,
        },
    )
    # This one form goes to the LMS: the page's policy allows posting there, nowhere else.
    parts = urlsplit(return_url)
    response._csp_config = {
        **settings.SECURE_CSP,
        "form-action": ["'self'", f"{parts.scheme}://{parts.netloc}"],
    }
    return response


@staff_member_required
@require_GET
def setup(request: HttpRequest) -> TemplateResponse:
    """Every registered LMS and the values its admin pastes into it."""
    registrations = LtiRegistration.objects.prefetch_related("deployments").order_by("name")
    rows = [
        (registration, launch.registration_urls(registration, request.build_absolute_uri))
        for registration in registrations
    ]
    return TemplateResponse(
        request, "lti/setup.html", {"rows": rows, "has_key": Key.objects.active().exists()}
    )


@login_required
@require_GET
def class_grades(request: HttpRequest, pk: int) -> TemplateResponse:
    """Each student's grade per linked lesson and LMS course: sent, pending or failed, and
    what the LMS answered; Re-sync per student and for the class."""
    cohort = taught_class(request, pk)
    syncs = (
        ScoreSync.objects.filter(line_item__context__class_link__cohort=cohort)
        .select_related("user", "line_item__lesson", "line_item__context")
        .order_by("line_item__lesson__title", "line_item__context__title", "user__username")
    )
    links = list(ClassLink.objects.filter(cohort=cohort).select_related("context"))
    tally = syncs.aggregate(
        failed=Count("pk", filter=Q(status=ScoreSync.Status.FAILED)),
        pending=Count(
            "pk", filter=Q(status__in=[ScoreSync.Status.PENDING, ScoreSync.Status.SENDING])
        ),
        sent=Count("pk", filter=Q(status=ScoreSync.Status.SENT)),
    )
    return TemplateResponse(
        request,
        "lti/class_grades.html",
        {
            "cohort": cohort,
            "syncs": syncs,
            "links": links,
            "readable": any(link.context.memberships_url for link in links),
            "tally": tally,
        },
    )


@login_required
@require_POST
def resync_class(request: HttpRequest, pk: int) -> HttpResponseRedirect:
    cohort = taught_class(request, pk)
    count = grades.resync(ScoreSync.objects.filter(line_item__context__class_link__cohort=cohort))
    messages.success(
        request,
        ngettext(
            "%(n)s grade queued to be sent again.", "%(n)s grades queued to be sent again.", count
        )
        % {"n": count},
    )
    return redirect("lti:class_grades", pk=cohort.pk)


@login_required
@require_POST
def resync_one(request: HttpRequest, pk: int, sync_pk: int) -> HttpResponseRedirect:
    cohort = taught_class(request, pk)
    sync = get_object_or_404(ScoreSync, pk=sync_pk, line_item__context__class_link__cohort=cohort)
    grades.resync(ScoreSync.objects.filter(pk=sync.pk))
    messages.success(
        request,
        _("%(student)s’s grade queued to be sent again.")
        % {"student": sync.user.get_full_name() or sync.user.username},
    )
    return redirect("lti:class_grades", pk=cohort.pk)


@login_required
@require_POST
def sync_roster(request: HttpRequest, pk: int) -> HttpResponseRedirect:
    cohort = taught_class(request, pk)
    links = list(roster.readable().filter(cohort=cohort))
    if not links:
        messages.error(request, _("None of this class’s LMS courses lets Parsnip read its roster."))
    for link in links:
        roster.enqueue_sync(link.pk)
    if links:
        messages.success(request, _("The roster is being read from the LMS; reload in a moment."))
    return redirect("lti:class_grades", pk=cohort.pk)


@login_required
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def link_account(request: HttpRequest) -> HttpResponse:
    """Sign in once with the Parsnip account you had: your LMS identity then opens it."""
    if not accounts.is_made_by_lms(request.user):
        return refused(
            request, _("Only an account your LMS made can be linked to another."), status=400
        )
    error = ""
    if request.method == "POST":
        username, password = (
            request.POST.get("username", "").strip(),
            request.POST.get("password", ""),
        )
        existing = (
            authenticate(request, username=username, password=password)
            if username and password
            else None
        )
        if existing is None:
            error = _("That username and password do not match a Parsnip account.")
        else:
            try:
                accounts.link_account(lms_account=request.user, existing=existing)
            except accounts.LinkRefused as refusal:
                error = str(refusal)
            else:
                next_url = request.session.pop("lti-link-next", None)
                framed = request.session.get(framing.SESSION_KEY)
                login(request, existing, backend="django.contrib.auth.backends.ModelBackend")
                if framed:
                    request.session[framing.SESSION_KEY] = framed
                messages.success(
                    request,
                    _("Linked: your LMS now opens Parsnip as %(name)s.")
                    % {"name": existing.get_username()},
                )
                return redirect(next_url or "tutor:catalogue")
    return TemplateResponse(
        request, "lti/link_account.html", {"error": error}, status=400 if error else 200
    )
