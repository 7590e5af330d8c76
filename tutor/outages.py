"""A request during a database or Redis outage (a restart, a failover, SQLite locked by a
backup) waits a moment or says plainly to try again: never a server error page.

- `OutageMiddleware`: a view that fails on a lost connection before it wrote anything is
  run once more, on a fresh connection from the pool (which checks what it hands out); a
  read outside a transaction that fails so (after the click's writes were committed, say)
  is sent again on a fresh connection.
- `server_error` (the site's handler500): any request that still fails on an outage is
  answered "busy, try again" with 503 and Retry-After -- for htmx, a refusal in the page's
  busy line (`#busy-message`, base.html), which a waiting panel's poll asks again after;
  for a plain request, a page of its own that needs no database.
"""

import logging
import sys

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views import defaults

from course.htmx import refusal
from tutor.connections import DATABASE_OUTAGES, forget_broken_connection, is_outage

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
BUSY_INTO = "busy-message"
# Statements that change nothing: a view that ran only these may run again.
_READS = ("SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "SET ", "SHOW")


class _Statements:
    """An execute wrapper for one request: notes the first statement that may have changed
    something (noted before it runs: a write whose answer was lost may still have been
    committed), and sends again, on a new connection, a read outside any transaction that
    failed on a lost connection (a read changes nothing: the click's writes before it stay
    done, and the learner gets their answer instead of a "try again" that would make them
    do it twice)."""

    READ_AGAIN_AT_MOST = 3

    def __init__(self) -> None:
        self.wrote = False
        self.read_again = 0

    def __call__(self, execute, sql, params, many, context):
        read = str(sql).lstrip()[:10].upper().startswith(_READS)
        if not read:
            self.wrote = True
        try:
            return execute(sql, params, many, context)
        except DATABASE_OUTAGES as error:
            db, cursor = context["connection"], context["cursor"]
            if (not read or db.in_atomic_block or db.vendor == "sqlite"
                    or self.read_again >= self.READ_AGAIN_AT_MOST
                    or getattr(cursor.cursor, "name", None)):  # a server-side cursor's rows
                raise
            self.read_again += 1
            logger.warning("a read lost its database connection (%s); once more", error)
            forget_broken_connection()
            db.ensure_connection()
            cursor.cursor = db.create_cursor()
            return execute(sql, params, many, context)


def _rendered(response: HttpResponse) -> HttpResponse:
    # A TemplateResponse renders (and runs its lazy queries) inside the retry.
    if callable(getattr(response, "render", None)):
        response = response.render()
    return response


class OutageMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse:
        statements = _Statements()
        with connection.execute_wrapper(statements):
            try:
                return _rendered(view(request, *args, **kwargs))
            except DATABASE_OUTAGES as error:
                # SQLite locked: it has already waited its busy timeout; the answer is "busy".
                if statements.wrote or connection.in_atomic_block or connection.vendor == "sqlite":
                    raise
                logger.warning("%s %s: the database connection was lost (%s); once more",
                               request.method, request.path, error)
            forget_broken_connection()
            return _rendered(view(request, *args, **kwargs))


def busy(request: HttpRequest) -> HttpResponse:
    """503: the site is busy for a moment (its database or Redis away); try again."""
    message = _("Parsnip is busy for a moment. Please try again in a few seconds.")
    if request.headers.get("HX-Request") == "true":
        response = refusal(request, message, into=BUSY_INTO, status=503).render()
    else:
        # A page of its own: base.html would ask the database who is logged in.
        response = HttpResponse(render_to_string("busy.html", {"message": message}), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an outage is "busy, try again"; anything else Django's own error page."""
    error = sys.exc_info()[1]
    if error is not None and is_outage(error):
        return busy(request)
    return defaults.server_error(request)
