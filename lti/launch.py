"""An LTI 1.3 launch, validated by pylti1p3 through django-lti, and what it makes in Parsnip:
the person signed in (an account made for them the first time), their role in the LMS
course as teacher (the class's teacher, or a co-teacher after the first) or student, the
LMS course as a Parsnip class, the link's lesson."""

import hashlib
from urllib.parse import parse_qs, urlsplit

import jwt
from django.contrib.auth.models import Group, User
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from lti_tool.models import (
    LtiContext,
    LtiDeployment,
    LtiLaunch,
    LtiMembership,
    LtiRegistration,
    LtiUser,
)
from lti_tool.utils import DjangoToolConfig, sync_data_from_launch
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from course.models import Lesson
from lti import claims, cookies, http, roles
from lti.launch_store import DatabaseLaunchStorage
from lti.models import ClassLink, LineItem, LinkedResource
from tutor.actions.classes import add_co_teacher, create_class
from tutor.assignments.models import Assignment
from tutor.models import Cohort, Membership
from tutor.roles import TEACHERS_GROUP

CUSTOM_LESSON = "parsnip_lesson"  # the custom parameter a Parsnip link carries: the lesson's pk
CUSTOM_ASSIGNMENT = "parsnip_assignment"  # or an assignment's pk



# An LMS's clock and ours may differ by a little: a token issued "in the future" or expired
# by up to this much is still taken (PyJWT's leeway, for `iat`, `nbf` and `exp` alike).
CLOCK_LEEWAY = 60  # seconds

class LaunchRefused(Exception):
    """The launch is not honoured; the message says why, for the person who clicked."""

    status = 403  # the refusal page's HTTP status


class LinkRefused(LaunchRefused):
    """The launch is good but its link opens nothing this course may open."""

    status = 404


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


class CheckedLaunch(KeysetKeepingLaunch):
    """pylti1p3's launch, checked as LTI 1.3 and OpenID Connect say where pylti1p3 does not:

    - the state must match this browser's state cookie (pylti1p3 also let a state through
      once a launch had used it, cookie or not);
    - the nonce must be the one the login made *for that state*, and both are used at once
      (pylti1p3 checked only that the nonce existed: a token minted for another browser's
      login passed with this browser's good state), after the signature is checked (so a
      forged token cannot use up someone's nonce);
    - `aud` must name Parsnip's client id; when it lists several audiences, `azp` must be
      there and be Parsnip's (OIDC Core 3.1.3.7); `azp`, when present, must be Parsnip's;
    - `exp` and `iat` are required (PyJWT checks them only when present);
    - `target_link_uri` is required and must be this Parsnip's launch URL, the one the login
      was for;
    - the claims Parsnip reads are checked and normalised (lti.claims).
    The login's launch data is not kept (Parsnip never restores a launch)."""

    def __init__(self, request, tool_config, **kwargs):
        super().__init__(request, tool_config, **kwargs)
        self._django_request = request
        self._login_params: dict = {}

    def validate(self):
        if self._restored:
            raise LtiException("Can't validate restored launch")
        self._validated = True
        try:
            return (
                self.validate_state()
                .validate_jwt_format()
                .validate_audience()
                .validate_registration()
                .validate_jwt_signature()
                .validate_nonce()
                .validate_deployment()
                .validate_message()
                .validate_target_link_uri()
                .validate_claims()
            )
        except Exception:
            self._validated = False
            raise

    def validate_state(self):
        state = self._get_request_param("state")
        if not state:
            raise LtiException("Missing state param")
        if self._cookie_service.get_cookie(state) != state:
            raise LtiException("State not found")
        return self

    def audiences(self) -> list:
        aud = self._get_jwt_body().get("aud")
        return [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []

    def get_client_id(self):
        """The client id the token is for: `azp` when it says, else its one audience."""
        azp = self._get_jwt_body().get("azp")
        audiences = self.audiences()
        return azp if azp else audiences[0] if len(audiences) == 1 else None

    def validate_audience(self):
        audiences, azp = self.audiences(), self._get_jwt_body().get("azp")
        if not audiences or not all(isinstance(a, str) for a in audiences):
            raise LtiException(_("The token names no audience (aud)."))
        if len(audiences) > 1 and not azp:
            raise LtiException(
                _("The token names several audiences (aud) and no authorised party (azp).")
            )
        if azp and azp not in audiences:
            raise LtiException(_("The token's authorised party (azp) is not among its audiences."))
        return self

    def validate_registration(self):
        try:
            super().validate_registration()
        except LtiException:
            if len(self.audiences()) > 1:
                raise LtiException(
                    _("The token is authorised for another tool (azp) than Parsnip.")
                ) from None
            raise
        return self

    def validate_jwt_signature(self):
        public_key, key_alg = self.get_public_key()
        try:
            jwt.decode(
                self._get_id_token(),
                public_key,
                algorithms=[key_alg],
                audience=self._registration.get_client_id(),
                issuer=self._registration.get_issuer(),
                options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
                leeway=CLOCK_LEEWAY,
            )
        except jwt.InvalidTokenError as e:
            raise LtiException(f"Can't decode id_token: {e}") from e
        return self

    def validate_nonce(self):
        nonce = self._get_jwt_body().get("nonce")
        if not nonce or not isinstance(nonce, str):
            raise LtiException('"nonce" is empty')
        storage = self._session_service.data_storage
        taken = storage.take_launch(nonce, self._get_request_param("state"))
        if taken is None:
            raise LtiException("Invalid Nonce")
        self._login_params = taken.get(cookies.STATE_PARAMS_KEY, {}).get("params", {})
        return self

    def validate_target_link_uri(self):
        target = self._get_jwt_body().get(claims.TARGET_LINK_URI)
        if not target:
            raise LtiException(_("The token has no target_link_uri."))
        asked = self._login_params.get("target_link_uri")
        if not is_launch_url(self._django_request, target) or (asked and asked != target):
            raise LtiException(
                _("The token's target_link_uri is not the Parsnip launch its login asked for.")
            )
        return self

    def validate_claims(self):
        try:
            claims.normalise(self._get_jwt_body())
        except claims.BadClaim as error:
            raise LtiException(str(error)) from error
        return self


class BoundNonceLogin(DjangoOIDCLogin):
    """pylti1p3's OIDC login, keeping the nonce it makes bound to the state it makes."""

    def _prepare_redirect_url(self, launch_url: str) -> str:
        url = super()._prepare_redirect_url(launch_url)
        sent = parse_qs(urlsplit(url).query)
        self._launch_data_storage.bind_nonce(sent["nonce"][0], sent["state"][0])
        return url


def is_launch_url(request: HttpRequest, url) -> bool:
    """`url` is this Parsnip's launch URL, the one every registration is given (the redirect
    URI the LMS has registered): this host, that path, no query. https always; http only
    when this request came by http (a development server, the tests)."""
    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return False
    here = urlsplit(request.build_absolute_uri("/"))
    # Behind a TLS proxy this request may look like http on port 80 while the LMS rightly
    # says https: a port is compared only where one is written.
    default = {"https": 443, "http": 80}.get(parts.scheme)
    return (
        parts.scheme in ("https", here.scheme)
        and default is not None
        and not parts.username
        and not parts.password
        and (parts.hostname or "") == (here.hostname or "")
        and (port or default) == (here.port or default)
        and parts.path == reverse("lti:launch")
        and not parts.query
        and not parts.fragment
    )


def oidc_login(request, registration_uuid):
    """The first step: the LMS sends the browser here; it goes back to the LMS with a state
    (kept in a cookie) and a nonce bound to it (kept server side), which the launch must
    then match. The LMS's answer may go only to this Parsnip's launch URL."""
    tool_conf = ToolConfig(registration_uuid)
    login = BoundNonceLogin(request, tool_conf, launch_data_storage=DatabaseLaunchStorage())
    params = request.POST if request.method == "POST" else request.GET
    target = params.get("target_link_uri")
    if not target:
        raise LaunchRefused(gettext("The LMS did not say which Parsnip page to open."))
    if not is_launch_url(request, target):
        raise LaunchRefused(
            _("The LMS asked to open %(target)s, which is not a Parsnip launch address.")
            % {"target": target[:200]}
        )
    cookies.remember_login(login, registration_uuid, request)
    try:
        return login.redirect(target)
    except (LtiException, OIDCException) as error:
        raise LaunchRefused(
            gettext("This LMS is not registered with Parsnip (%(error)s).") % {"error": error}
        ) from error


def validate(request) -> LtiLaunch:
    """The launch's id token, checked (CheckedLaunch): signature and key id against the
    platform's keys, issuer, audience, expiry, nonce and state (this browser's, once),
    deployment, target, and the claims Parsnip reads."""
    message_launch = CheckedLaunch(
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
        raise LaunchRefused(
            gettext("The launch could not be checked (%(error)s).") % {"error": type(error).__name__}
        ) from error
    return LtiLaunch(message_launch)


def is_instructor(launch: LtiLaunch) -> bool:
    """The launch's roles give the teaching of its LMS course (lti.roles: context roles only)."""
    return roles.teaches(launch.roles_claim or [])


def record_roles(lti_user: LtiUser, context: LtiContext, role_names: list[str]) -> None:
    """The person's roles in the LMS course as they are now, on django-lti's membership."""
    LtiMembership.objects.update_or_create(
        user=lti_user,
        context=context,
        defaults={**roles.membership_flags(role_names), "is_active": True},
    )


def seated_learners(context: LtiContext):
    """The people the LMS lists in the course (active) with a seat in its class."""
    from django.db.models import Q

    return User.objects.filter(
        Q(lti_users__memberships__is_learner=True)
        | Q(
            lti_users__memberships__is_mentor=False,
            lti_users__memberships__is_content_developer=False,
            lti_users__memberships__is_administrator=False,
        ),
        lti_users__memberships__context=context,
        lti_users__memberships__is_active=True,
        lti_users__memberships__is_instructor=False,
    ).distinct()


def take_course_role(cohort: Cohort, user: User, role_names: list[str]) -> bool:
    """What the LMS now says of `user` in the course of `cohort`, made true in the class:
    teaching it, they co-teach it (and are a Parsnip teacher); not teaching it, they stop
    co-teaching it (the LMS took the role away), and take a seat if their roles give one.
    The class's own teacher is settled by `hand_over_if_demoted`. Returns whether a seat
    was taken now."""
    if roles.teaches(role_names):
        user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
        add_co_teacher(cohort=cohort, teacher=user)
        return False
    cohort.co_teachers.remove(user)
    if cohort.teacher_id == user.pk or not roles.has_a_seat(role_names):
        return False
    _, created = Membership.objects.get_or_create(cohort=cohort, student=user)
    return created


def hand_over_if_demoted(link: ClassLink) -> None:
    """The class's teacher, listed by the LMS in its course without teaching it, hands the
    class to a co-teacher the LMS lists as teaching the course, and takes a seat in it. With
    nobody to take it the class stays theirs (a class has a teacher) until one comes: their
    first launch, or the roster read that lists them."""
    cohort = link.cohort
    demoted = LtiMembership.objects.filter(
        context=link.context,
        user__auth_user=cohort.teacher_id,
        is_active=True,
        is_instructor=False,
    ).exists()
    if not demoted:
        return
    successor = (
        cohort.co_teachers.filter(
            lti_users__memberships__context=link.context,
            lti_users__memberships__is_instructor=True,
            lti_users__memberships__is_active=True,
        )
        .order_by("pk")
        .first()
    )
    if successor is None:
        return
    former = cohort.teacher_id
    Cohort.objects.filter(pk=cohort.pk).update(teacher=successor)
    cohort.teacher = successor
    cohort.co_teachers.remove(successor)
    Membership.objects.get_or_create(cohort=cohort, student_id=former)
    drop_unearned_teaching(User.objects.get(pk=former))


def drop_unearned_teaching(user: User) -> None:
    """An account the LMS made is a Parsnip teacher (the Teachers group) only while the LMS
    has them teach a course or they teach a class: the group an institution role once gave
    (before roles were read by course) goes at their next launch."""
    from lti.accounts import is_made_by_lms

    if not is_made_by_lms(user):
        return  # a Parsnip account's group is the admin's to give and take
    teaching = (
        LtiMembership.objects.filter(
            user__auth_user=user, is_instructor=True, is_active=True
        ).exists()
        or Cohort.objects.filter(teacher=user).exists()
        or Cohort.objects.filter(co_teachers=user).exists()
    )
    if not teaching:
        user.groups.remove(*Group.objects.filter(name=TEACHERS_GROUP))


@transaction.atomic
def sign_in_data(launch: LtiLaunch) -> tuple[User, ClassLink | None, LtiContext | None]:
    """Record the launch (django-lti's rows) and make Parsnip's: the account, the class,
    the membership. Returns the Parsnip user, the class link and the LMS course. Roles are
    read from the launch's course only (lti.roles), and taken away when the LMS does."""
    sync_data_from_launch(launch)
    lti_user = launch.user
    user = account_for(lti_user)
    role_names = launch.roles_claim or []
    teacher = roles.teaches(role_names)
    if teacher:
        user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    context = launch.context if launch.context_claim else None
    link = None
    if context is not None:
        record_roles(lti_user, context, role_names)
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
            for learner in seated_learners(context):
                Membership.objects.get_or_create(cohort=link.cohort, student=learner)
        if link is not None:
            take_course_role(link.cohort, user, role_names)
            hand_over_if_demoted(link)
    if not teacher:
        drop_unearned_teaching(user)
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
            gettext("This LMS account’s Parsnip name is taken; ask Parsnip’s administrator.")
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
    if not isinstance(custom, dict):
        custom = {}
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
    if assignment is not None and not is_course_assignment(assignment, context):
        # The custom parameter is typed in the LMS by anyone who edits the link: it may
        # name any class's assignment, whose name and due date would become this course's
        # column. As the picker does, only the launch's own class's assignments open.
        raise LinkRefused(
            _(
                "This link points at an assignment of another class, not of this LMS "
                "course's. Ask your teacher to add it again from Parsnip's picker."
            )
        )
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


def is_course_assignment(assignment: Assignment, context: LtiContext | None) -> bool:
    """The assignment is set for a class the LMS course is linked to."""
    return (
        context is not None
        and ClassLink.objects.filter(context=context, cohort_id=assignment.cohort_id).exists()
    )


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
        gettext("Login initiation URL (OpenID Connect)"): build(
            reverse("lti:login", args=[registration.uuid])
        ),
        gettext("Redirect URI / launch URL"): build(reverse("lti:launch")),
        gettext("Deep Linking URL"): build(reverse("lti:launch")),
        gettext("Public keyset URL (JWKS)"): build(reverse("lti:jwks")),
        gettext("Client ID (the LMS gives it)"): registration.client_id or "—",
    }
