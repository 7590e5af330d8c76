"""The site's htmx conventions, in one place for both apps (`tutor` imports this module;
it imports neither app).

- Responses use django-htmx's helpers (`retarget`, `reswap`, `HttpResponseClientRedirect`),
  never hand-written HX-* headers.
- Page or partial: a URL answers with its page, or with the region htmx swaps when
  `wants_partial(request)`; `vary_on_htmx(response)` keeps caches from mixing the two.
- A refusal (a 4xx: bad input, a rate limit, a conflict) to a request htmx sent is
  `refusal(request, message, into="<id>", status=...)`: templates/refusal.html's message,
  swapped into the element `into` (the panel's message line) by the one rule in
  static/js/parsnip.js. A plain (no-JavaScript) POST's refusal stays the view's own: a
  redirect with a message, or the page again.
- Logging in first: `@login_required_htmx` on a view htmx calls. A request htmx sent from an
  expired session takes the whole page to the log-in page (HX-Redirect), which then comes
  back to the page the user was on; the log-in page is never swapped into a panel.
  `log_in_first(request, then=url)` is the same answer where the view chooses the way back.
"""

from collections.abc import Callable
from functools import wraps
from urllib.parse import quote, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, resolve_url
from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

REFUSAL_TEMPLATE = "refusal.html"


def wants_partial(request: HttpRequest) -> bool:
    """htmx asks for the region it swaps, not the page."""
    # A history restore asks for the whole page even though it comes from htmx.
    return bool(request.htmx) and not request.htmx.history_restore_request


def vary_on_htmx[R: HttpResponse](response: R) -> R:
    """The same URL answers a page or a partial: a cache must keep them apart."""
    patch_vary_headers(response, ["HX-Request"])
    return response


def refusal(request: HttpRequest, message: str, *, into: str, status: int) -> TemplateResponse:
    """A request htmx sent that is refused: `message`, with a 4xx `status`, replacing the
    content of the element whose id is `into` (it keeps its own role, say `status` or
    `alert`, so the message is announced)."""
    response = TemplateResponse(request, REFUSAL_TEMPLATE, {"message": message}, status=status)
    return reswap(retarget(response, f"#{into}"), "innerHTML")


def login_url(then: str | None) -> str:
    """The log-in page, coming back to `then` (a path on this site) once logged in."""
    url = resolve_url(settings.LOGIN_URL)
    return f"{url}?next={quote(then)}" if then else url


def log_in_first(request: HttpRequest, *, then: str | None) -> HttpResponse:
    """To the log-in page, and back to `then` after: the whole page, even from a panel."""
    url = login_url(then)
    return HttpResponseClientRedirect(url) if wants_partial(request) else redirect(url)


def current_page(request: HttpRequest) -> str | None:
    """The page an htmx request was sent from (HX-Current-URL), as a path with its query and
    fragment, if it is a page of this site; otherwise None."""
    def ours(url: str) -> bool:
        return url_has_allowed_host_and_scheme(
            url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )

    url = request.htmx.current_url
    if not url or not ours(url):
        return None
    parts = urlsplit(url)
    path = urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))
    return path if ours(path) else None  # not "//elsewhere", read as another host


def login_required_htmx(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Django's `login_required`, except that a request htmx sent (a click or a poll in a
    panel) by someone not logged in (an expired session, say) is answered with HX-Redirect:
    the page goes to the log-in page, which comes back to the page the user was on."""
    plain = login_required(view)

    @wraps(plain)
    def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if wants_partial(request) and not request.user.is_authenticated:
            return log_in_first(request, then=current_page(request))
        return plain(request, *args, **kwargs)

    return checked
