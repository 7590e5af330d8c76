"""An LTI 1.3 launch, validated by pylti1p3 through django-lti, and what it makes in Parsnip:
the person signed in (an account made for them the first time), their role in the LMS
course as teacher (the class's teacher, or a co-teacher after the first) or student, the
LMS course as a Parsnip class, the link's lesson."""

import hashlib

from django.contrib.auth.models import Group, User
from django.db import IntegrityError, transaction
from lti_tool.models import LtiContext, LtiDeployment, LtiLaunch, LtiRegistration, LtiUser
from lti_tool.utils import DjangoToolConfig, sync_data_from_launch
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from course.models import Lesson
from lti import cookies, http
from lti.launch_store import DatabaseLaunchStorage
from lti.models import ClassLink, LineItem, LinkedResource
from tutor.actions.classes import add_co_teacher, create_class
from tutor.assignments.models import Assignment
from tutor.models import Membership
from tutor.roles import TEACHERS_GROUP

INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
CUSTOM_LESSON = "parsnip_lesson"  # the custom parameter a Parsnip link carries: the lesson's pk
CUSTOM_ASSIGNMENT = "parsnip_assignment"  # or an assignment's pk


class LaunchRefused(Exception):
    """The launch is not honoured; the message says why, for the person who clicked."""


class StateCookieMissing(LaunchRefused):
    """The state cookie set at login did not come back with the launch: most often a browser
    that blocks Parsnip's cookies inside the LMS's iframe. `login` is the registration and the
    URL that opens the same launch in a new window, when the login is known."""

    def __init__(self, message: str, login: tuple[LtiRegistration, str] | None):
        super().__init__(message)
        self.login = login


class ToolConfig(DjangoToolConfig):
    """django-lti's configuration, except that a deployment id the admin did not register
    is refused (django-lti would record it, inactive, and so let anyone add rows)."""

    def find_deployment(self, iss, deployment_id):
        return self._known_deployment(
            registration__issuer=iss,
            deployment_id=deployment_id,
            **({"registration__uuid": self.registration_uuid} if self.registration_uuid else {}),
        )

    def find_deployment_by_params(self, iss, deployment_id, client_id, *args, **kwargs):
        return self._known_deployment(
            registration__issuer=iss, registration__client_id=client_id, deployment_id=deployment_id
        )

    def _known_deployment(self, **lookups):
        from pylti1p3.deployment import Deployment

        self.deployment = LtiDeployment.objects.filter(
            registration__is_active=True, is_active=True, **lookups
        ).first()
        if self.deployment is None:
            return None  # pylti1p3: "Unable to find deployment"
        return Deployment().set_deployment_id(self.deployment.deployment_id)


class KeysetKeepingLaunch(DjangoMessageLaunch):
    """pylti1p3's launch, with the LMS's public keys fetched with a timeout and kept in
    Django's cache for `LTI_KEYSET_CACHE_SECONDS`: a class launching at once makes one call
    to the LMS, not thirty, and a slow LMS keyset does not slow every launch. A token signed
    with a key id the kept set lacks fetches the set again, once (the LMS rotated its keys);
    one the fresh set lacks too is refused as before."""

    def __init__(self, request, tool_config, **kwargs):
        super().__init__(request, tool_config, requests_session=http.TimeoutSession(), **kwargs)
        self._keyset_was_kept = False

    def fetch_public_key(self, key_set_url):
        kept = http.cached_keyset(key_set_url)
        if kept is not None:
            self._keyset_was_kept = True
            return kept
        keyset = super().fetch_public_key(key_set_url)  # pylti1p3's own cache is not set
        if isinstance(keyset, dict) and isinstance(keyset.get("keys"), list):
            http.keep_keyset(key_set_url, keyset)  # an error page's JSON is not kept
        return keyset

    def get_public_key(self):
        try:
            return super().get_public_key()
        except LtiException as error:
            if not self._keyset_was_kept or str(error) != "Unable to find public key":
                raise
        http.forget_keyset(self._registration.get_key_set_url())
        self._registration.set_key_set(None)
        self._keyset_was_kept = False
        return super().get_public_key()


def oidc_login(request, registration_uuid):
    """The first step: the LMS sends the browser here; it goes back to the LMS with a state
    (kept in a cookie) and a nonce (kept server side), which the launch must then match."""
    tool_conf = ToolConfig(registration_uuid)
    login = DjangoOIDCLogin(request, tool_conf, launch_data_storage=DatabaseLaunchStorage())
    params = request.POST if request.method == "POST" else request.GET
    target = params.get("target_link_uri")
    if not target:
        raise LaunchRefused("The LMS did not say which Parsnip page to open.")
    cookies.remember_login(login, registration_uuid, request)
    try:
        return login.redirect(target)
    except (LtiException, OIDCException) as error:
        raise LaunchRefused(f"This LMS is not registered with Parsnip ({error}).") from error


def validate(request) -> LtiLaunch:
    """The launch's id token, checked: signature and key id against the platform's keys,
    issuer, audience, expiry, nonce (once only), state against its cookie, deployment."""
    message_launch = KeysetKeepingLaunch(
        request, ToolConfig(), launch_data_storage=DatabaseLaunchStorage()
    )
    try:
        message_launch.validate()
    except LtiException as error:
        if str(error) == "State not found":  # pylti1p3's words for a state with no cookie
            login = cookies.login_of_state(request.POST.get("state", ""))
            raise StateCookieMissing(str(error), login) from error
        raise LaunchRefused(str(error)) from error
    except Exception as error:  # pylti1p3 lets PyJWT's and requests' errors through
        raise LaunchRefused(f"The launch could not be checked ({type(error).__name__}).") from error
    return LtiLaunch(message_launch)


def is_instructor(launch: LtiLaunch) -> bool:
    return any(
        role.endswith("#Instructor") or role == "Instructor" for role in launch.roles_claim or []
    )


@transaction.atomic
def sign_in_data(launch: LtiLaunch) -> tuple[User, ClassLink | None, LtiContext | None]:
    """Record the launch (django-lti's rows) and make Parsnip's: the account, the class,
    the membership. Returns the Parsnip user, the class link and the LMS course."""
    sync_data_from_launch(launch)
    lti_user = launch.user
    user = account_for(lti_user)
    teacher = is_instructor(launch)
    if teacher:
        user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    context = launch.context if launch.context_claim else None
    link = None
    if context is not None:
        link = ClassLink.objects.select_related("cohort").filter(context=context).first()
        if link is None and teacher:
            try:
                with transaction.atomic():
                    cohort = create_class(
                        teacher=user, name=(context.title or context.label or "LMS course")[:100]
                    )
                    link = ClassLink.objects.create(context=context, cohort=cohort)
            except IntegrityError:  # two teachers' first launches at once: the other made it
                # (and this teacher becomes its co-teacher, below)
                link = ClassLink.objects.select_related("cohort").get(context=context)
            # Learners who launched before any teacher join the class now.
            for learner in User.objects.filter(
                lti_users__memberships__context=context, lti_users__memberships__is_learner=True
            ).distinct():
                Membership.objects.get_or_create(cohort=link.cohort, student=learner)
        if link is not None and teacher:
            # A second instructor of the LMS course teaches its class too.
            add_co_teacher(cohort=link.cohort, teacher=user)
        if link is not None and not teacher:
            Membership.objects.get_or_create(cohort=link.cohort, student=user)
    return user, link, context


def account_for(lti_user: LtiUser) -> User:
    """The Parsnip account of an LMS user: the one they linked, else one made now (no
    password: they sign in through the LMS). Names come from the LMS, e-mail does not (an
    address is one account's only, and the LMS's is not checked by Parsnip)."""
    if lti_user.auth_user_id:
        return lti_user.auth_user
    registration = lti_user.registration
    # Per registration, not per issuer: two schools on one hosted LMS share its issuer.
    digest = hashlib.sha256(f"{registration.uuid}\n{lti_user.sub}".encode()).hexdigest()[:16]
    given, _, family = (lti_user.name or "").partition(" ")
    if LtiUser.objects.filter(auth_user__username=f"lms-{digest}").exclude(pk=lti_user.pk).exists():
        raise LaunchRefused(
            "This LMS account's Parsnip name is taken; ask Parsnip's administrator."
        )
    user, _ = User.objects.get_or_create(
        username=f"lms-{digest}",
        defaults={
            "first_name": (lti_user.given_name or given)[:150],
            "last_name": (lti_user.family_name or family)[:150],
        },
    )
    if user.has_usable_password() or not user.password:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    LtiUser.objects.filter(pk=lti_user.pk).update(auth_user=user)
    lti_user.auth_user = user
    return user


def lesson_of_link(
    launch: LtiLaunch, context: LtiContext | None
) -> tuple[Lesson | None, Assignment | None]:
    """The lesson (and assignment) a resource link opens: the one it was linked to (Deep
    Linking puts it in a custom parameter); the link remembers it, with its gradebook column."""
    custom = launch.get_claim("https://purl.imsglobal.org/spec/lti/claim/custom") or {}
    resource_link = launch.resource_link
    known = (
        LinkedResource.objects.select_related("lesson", "assignment")
        .filter(resource_link=resource_link)
        .first()
    )
    lesson = assignment = None
    if str(custom.get(CUSTOM_ASSIGNMENT, "")).isdigit():
        assignment = (
            Assignment.objects.select_related("lesson")
            .filter(pk=int(custom[CUSTOM_ASSIGNMENT]))
            .first()
        )
        lesson = assignment.lesson if assignment else None
    elif str(custom.get(CUSTOM_LESSON, "")).isdigit():
        lesson = Lesson.objects.published().filter(pk=int(custom[CUSTOM_LESSON])).first()
    if lesson is None and known is not None:
        lesson, assignment = known.lesson, known.assignment
    if lesson is None:
        return None, None
    line_item = None
    if context is not None:
        line_item = column_for(
            context, lesson, assignment, url=(launch.ags_claim or {}).get("lineitem", "")
        )
    LinkedResource.objects.update_or_create(
        resource_link=resource_link,
        defaults={"lesson": lesson, "assignment": assignment, "line_item": line_item},
    )
    return lesson, assignment


def column_for(
    context: LtiContext, lesson: Lesson, assignment: Assignment | None = None, *, url: str = ""
) -> LineItem | None:
    """The LMS course's one gradebook column for the lesson or assignment (None when the LMS
    gives Parsnip no grade service there)."""
    from lti.grades import assignment_items, lesson_items

    if not (context.lineitems_url or url):
        return None
    maximum = len(assignment_items(assignment)) if assignment else lesson_items(lesson)
    line_item, _ = LineItem.objects.get_or_create(
        context=context,
        lesson=lesson,
        assignment=assignment,
        defaults={"url": url, "score_maximum": maximum},
    )
    if url and not line_item.url:
        LineItem.objects.filter(pk=line_item.pk).update(url=url)
        line_item.url = url
    return line_item


def registration_urls(registration: LtiRegistration, build) -> dict[str, str]:
    """What the LMS's admin pastes, each an absolute URL (`build` makes one from a path)."""
    from django.urls import reverse

    return {
        "Login initiation URL (OpenID Connect)": build(
            reverse("lti:login", args=[registration.uuid])
        ),
        "Redirect URI / launch URL": build(reverse("lti:launch")),
        "Deep Linking URL": build(reverse("lti:launch")),
        "Public keyset URL (JWKS)": build(reverse("lti:jwks")),
        "Client ID (the LMS gives it)": registration.client_id or "—",
    }
