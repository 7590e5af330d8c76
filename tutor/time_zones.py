"""Which time zone times are shown and typed in: the viewer's browser's, else their class's.

Times stay in UTC in the database. The browser says its zone in a cookie (`tz`, set by
static/js/parsnip.js from `Intl.DateTimeFormat`); the middleware activates it for the
request. Without it (no JavaScript yet, or none at all) a class's own zone is used: a
teacher's pages about a class activate it (`use_class_zone`), and a student's due dates name
their class's zone (the `when` filter's argument). None of this costs a query.
"""

import re
import zoneinfo
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime, timedelta
from functools import cache
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import ngettext

COOKIE = "tz"
_browser_zone: ContextVar[str | None] = ContextVar("browser_zone", default=None)


@cache
def zone_names() -> list[str]:
    """Every zone a class may choose (the IANA names this machine knows)."""
    return sorted(zoneinfo.available_timezones())


_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*")


def valid_zone(name: str | None) -> str | None:
    """``name`` when it is a zone this machine knows, else None. Asks zoneinfo for that one
    zone (it keeps each it loaded): listing them all takes 85 ms, on a request's way."""
    if not name or len(name) > 64 or not _ZONE_NAME.fullmatch(name):
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None
    return name


def browser_zone() -> str | None:
    """The zone the viewer's browser said, for this request (None: not known)."""
    return _browser_zone.get()


def use_class_zone(zone: str) -> None:
    """For the rest of this request, times are shown and typed in the class's zone, unless
    the browser said its own."""
    if browser_zone() is None and valid_zone(zone):
        timezone.activate(zoneinfo.ZoneInfo(zone))


def zone_for(fallback: str | None) -> str:
    """The zone to show a time in: the browser's, else `fallback` (a class's), else the site's."""
    return browser_zone() or valid_zone(fallback) or timezone.get_current_timezone_name()


class BrowserTimeZoneMiddleware:
    """Activates the zone the browser's cookie names, for the request only."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zone = valid_zone(unquote(request.COOKIES.get(COOKIE, "")))
        token = _browser_zone.set(zone)
        if zone:
            timezone.activate(zoneinfo.ZoneInfo(zone))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
            _browser_zone.reset(token)


def time_left(due: datetime, now: datetime) -> str:
    """How far away a due date is, as a student counts: "due in 3 days", "2 hours left",
    "20 minutes left", "1 day late"."""
    delta = due - now
    late = delta < timedelta(0)
    delta = abs(delta)
    if delta >= timedelta(days=2) or (delta >= timedelta(days=1) and not late):
        n = delta.days
        if late:
            return ngettext("%(n)d day late", "%(n)d days late", n) % {"n": n}
        return ngettext("due in %(n)d day", "due in %(n)d days", n) % {"n": n}
    if delta >= timedelta(hours=1):
        n = int(delta.total_seconds() // 3600)
        if late:
            return ngettext("%(n)d hour late", "%(n)d hours late", n) % {"n": n}
        return ngettext("%(n)d hour left", "%(n)d hours left", n) % {"n": n}
    n = max(1, int(delta.total_seconds() // 60))
    if late:
        return ngettext("%(n)d minute late", "%(n)d minutes late", n) % {"n": n}
    return ngettext("%(n)d minute left", "%(n)d minutes left", n) % {"n": n}
