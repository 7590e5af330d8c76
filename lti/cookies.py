"""A launch inside the LMS's iframe needs Parsnip's cookies there (the launch's state
cookie, then the session). A browser that blocks third-party cookies refuses them, and the
launch would fail on a state that matches no cookie. So a framed login first sets a test
cookie and comes back for it (a redirect: no JavaScript): when it does not come back, the
learner gets a page saying so, with a button that opens the same launch in a new window,
where Parsnip's cookies are first-party and the launch works. A launch refused for a missing
state cookie offers the same button (the login's parameters are kept server side, under the
state, by `remember_login`).

pylti1p3 has such a check (`OIDCLogin.enable_check_cookies`), but its page is inline script
and style, which Parsnip's Content-Security-Policy refuses; its `lti1p3_new_window`
parameter is kept, meaning the same thing: a login opened in a window of its own."""

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from lti_tool.models import LtiRegistration

from lti import framing

NEW_WINDOW = "lti1p3_new_window"  # pylti1p3's name: this login is not framed, check nothing
CHECKED = "parsnip_cookie_check"  # the login came back after setting the test cookie
TEST_COOKIE = "lti1p3-parsnip-cookie-check"
LOGIN_PARAMS = [
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "lti_deployment_id",
    "client_id",
]
STATE_PARAMS_KEY = "parsnip_login"


def login_params(request: HttpRequest) -> dict[str, str]:
    """The OIDC login's parameters as the LMS sent them (a GET, or a POST)."""
    data = request.POST if request.method == "POST" else request.GET
    return {key: data[key] for key in LOGIN_PARAMS if data.get(key)}


def login_url(registration_uuid, params: dict[str, str], **more: str) -> str:
    return f"{reverse('lti:login', args=[registration_uuid])}?{urlencode({**params, **more})}"


def new_window_url(registration_uuid, params: dict[str, str]) -> str:
    """The same login, to open in a window of its own (no cookie check there)."""
    return login_url(registration_uuid, params, **{NEW_WINDOW: "1"})


def is_framed(request: HttpRequest) -> bool:
    """The browser says this page loads in a frame (Fetch Metadata; every current browser
    sends it). One that says nothing gets no check: the state refusal still offers the way."""
    return request.headers.get("Sec-Fetch-Dest") in ("iframe", "frame")


def set_test_cookie(request: HttpRequest, response: HttpResponse) -> None:
    """As pylti1p3 sets its state cookie: what the browser does with one, it does with the other."""
    secure = request.is_secure()
    response.set_cookie(
        TEST_COOKIE,
        "1",
        max_age=300,
        path="/",
        httponly=True,
        secure=secure,
        samesite="None" if secure else None,
    )


def check_first(request: HttpRequest, registration_uuid) -> HttpResponse | None:
    """For a framed login: the redirect that sets the test cookie, or, when it did not come
    back, the page that says so. None: go on with the login (not framed, in a window of its
    own, cookies kept, or an unknown LMS, which the login then refuses)."""
    data = request.POST if request.method == "POST" else request.GET
    if not is_framed(request) or data.get(NEW_WINDOW):
        return None
    registration = LtiRegistration.objects.filter(uuid=registration_uuid, is_active=True).first()
    if registration is None:
        return None
    params = login_params(request)
    if not request.GET.get(CHECKED):
        response = redirect(login_url(registration_uuid, params, **{CHECKED: "1"}))
        set_test_cookie(request, response)
        return response
    if TEST_COOKIE in request.COOKIES:
        return None
    return blocked_page(request, registration, new_window_url(registration_uuid, params))


def blocked_page(request: HttpRequest, registration: LtiRegistration, url: str) -> HttpResponse:
    response = TemplateResponse(
        request,
        "lti/cookies_blocked.html",
        {"lms_name": registration.name or "your LMS", "new_window_url": url},
    )
    allow_framing(response, registration)
    return response


def allow_framing(response: HttpResponse, registration: LtiRegistration) -> None:
    """This page is shown inside the LMS's iframe: that LMS (only) may frame it."""
    policy = dict(getattr(response, "_csp_config", None) or settings.SECURE_CSP)
    policy["frame-ancestors"] = ["'self'", *framing.origins_of(registration)]
    response._csp_config = policy
    response.xframe_options_exempt = True


def remember_login(login, registration_uuid, request: HttpRequest) -> None:
    """Keep the login's parameters under its state (pylti1p3 stores them in the launch
    storage, server side): a launch refused for its state cookie can offer the new window."""
    login.pass_params_to_launch(
        {
            STATE_PARAMS_KEY: {
                "registration": str(registration_uuid),
                "params": login_params(request),
            }
        }
    )


def login_of_state(state: str) -> tuple[LtiRegistration, str] | None:
    """The registration and new-window URL of the login that made `state`, if it is known."""
    from lti.launch_store import DatabaseLaunchStorage

    if not state or not state.startswith("state-"):
        return None
    stored = DatabaseLaunchStorage().get_value(f"lti1p3-{state}") or {}
    login = stored.get(STATE_PARAMS_KEY) if isinstance(stored, dict) else None
    if not login:
        return None
    registration = LtiRegistration.objects.filter(
        uuid=login["registration"], is_active=True
    ).first()
    if registration is None:
        return None
    return registration, new_window_url(registration.uuid, login["params"])
