"""Parsnip inside an LMS's iframe: after a launch, that browser's pages may be framed by the
LMS it came from (its origin, registered by the admin) and by nothing else. Every other
visitor's pages stay unframeable (`frame-ancestors 'none'`, X-Frame-Options DENY)."""

from urllib.parse import urlsplit

from django.conf import settings
from lti_tool.models import LtiRegistration

SESSION_KEY = "lti-frame-origins"


def origins_of(registration: LtiRegistration) -> list[str]:
    """Where the LMS's pages are served from: its issuer's and its login endpoint's origins."""
    origins = []
    for url in (registration.issuer, registration.auth_url):
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            origin = f"{parts.scheme}://{parts.netloc}"
            if origin not in origins:
                origins.append(origin)
    return origins


def allow_framing_by(request, registration: LtiRegistration) -> None:
    request.session[SESSION_KEY] = {
        "registration": registration.pk,
        "origins": origins_of(registration),
    }


class LmsFramingMiddleware:
    """Placed after django's CSP middleware (so it answers first) and after the clickjacking one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        framing = getattr(request, "session", None) and request.session.get(SESSION_KEY)
        if framing and framing.get("origins"):
            # Checked again on each response: a registration made inactive stops framing at once.
            if LtiRegistration.objects.filter(pk=framing["registration"], is_active=True).exists():
                policy = dict(getattr(response, "_csp_config", None) or settings.SECURE_CSP)
                policy["frame-ancestors"] = ["'self'", *framing["origins"]]
                response._csp_config = policy
                response.xframe_options_exempt = True
        return response
