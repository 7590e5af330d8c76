"""A request during a database or Redis outage (a restart, a failover, SQLite locked by a
backup) waits a moment or says plainly to try again: never a server error page.

- `StatementsMiddleware` (near the top) and `OutageMiddleware` (last): a view that fails on a lost connection before it wrote anything is
  run once more, on a fresh connection from the pool (which checks what it hands out); a
  statement outside a transaction that fails so (after the click's writes were committed,
  say) is sent again on a fresh connection when that cannot do anything twice.
- `server_error` (the site's handler500): any request that still fails on an outage is
  answered "busy, try again" with 503 and Retry-After -- for htmx, a refusal in the page's
  busy line (`#busy-message`, base.html), which a waiting panel's poll asks again after;
  for a plain request, a page of its own that needs no database.
"""

import logging
import sys

from asgiref.sync import iscoroutinefunction
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


# PostgreSQL's "terminating connection due to administrator command" (a fast shutdown or
# restart, pg_terminate_backend): the statement it answers was not carried out.
ADMIN_SHUTDOWN = "57P01"


def _not_carried_out(error: BaseException, *, closed_before: bool) -> bool:
    """Whether a statement that failed so certainly changed nothing: the connection was
    closed before it was sent, or the server said it was shutting down instead."""
    return closed_before or getattr(error.__cause__, "sqlstate", None) == ADMIN_SHUTDOWN


class _Statements:
    """An execute wrapper for one request. It notes the first statement that may have
    changed something (noted before it runs: a write whose answer was lost may still have
    been committed). And a statement outside any transaction that failed on a lost
    connection is sent again on a new one, if that cannot do anything twice: a read, or a
    write the server certainly did not carry out. The click's writes before it stay done,
    and the learner gets their answer instead of a "try again" that would make them do it
    twice."""

    SEND_AGAIN_AT_MOST = 3

    def __init__(self) -> None:
        self.wrote = False
        self.sent_again = 0

    def __call__(self, execute, sql, params, many, context):
        read = str(sql).lstrip()[:10].upper().startswith(_READS)
        if not read:
            self.wrote = True
        db, cursor = context["connection"], context["cursor"]
        closed_before = bool(getattr(db.connection, "closed", False))
        opens_transaction = db.in_atomic_block and _transaction_not_begun(db)
        try:
            return execute(sql, params, many, context)
        except DATABASE_OUTAGES as error:
            if (db.vendor == "sqlite" or self.sent_again >= self.SEND_AGAIN_AT_MOST
                    or getattr(cursor.cursor, "name", None)):  # a server-side cursor's rows
                raise
            not_carried_out = _not_carried_out(error, closed_before=closed_before)
            if db.in_atomic_block:
                # Only a transaction's first statement, a read or one not carried out: the
                # transaction had done nothing yet (a lock it took went with the connection).
                if not (opens_transaction and (read or not_carried_out) and db.pool):
                    raise
                self.sent_again += 1
                logger.warning("a transaction lost its database connection before it began "
                               "(%s); on a new one", error)
                _new_connection_in_transaction(db)
            else:
                if not (read or not_carried_out):
                    raise
                self.sent_again += 1
                logger.warning("a statement lost its database connection (%s); once more", error)
                forget_broken_connection()
                db.ensure_connection()
            cursor.cursor = db.create_cursor()
            return execute(sql, params, many, context)


def _transaction_not_begun(db) -> bool:
    """In an atomic block, on PostgreSQL, before its first statement (psycopg begins the
    transaction with it)."""
    raw = db.connection
    if db.vendor != "postgresql" or raw is None or raw.autocommit:
        return False
    from psycopg.pq import TransactionStatus

    return raw.info.transaction_status == TransactionStatus.IDLE


def _new_connection_in_transaction(db) -> None:
    """Swap a pooled connection that died before its transaction began for a new one from
    the pool, keeping Django's transaction state (the atomic block goes on as if nothing
    happened: it had done nothing yet)."""
    broken = db.connection
    try:
        broken._pool.putconn(broken)  # the pool drops it: it is broken
    except Exception:
        pass
    db.connection = db.pool.getconn()
    db.connection.autocommit = False


def _rendered(response: HttpResponse) -> HttpResponse:
    # A TemplateResponse renders (and runs its lazy queries) inside the retry.
    if callable(getattr(response, "render", None)):
        response = response.render()
    return response


class StatementsMiddleware:
    """Near the top: every statement of the request (the session and the user read by the
    middleware, the view, its template) goes through one `_Statements`."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.statements = _Statements()
        with connection.execute_wrapper(request.statements):
            return self.get_response(request)


class OutageMiddleware:
    """Last (its process_view calls the view, after every other middleware's): a view that
    lost its connection before the request wrote anything runs once more."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        if iscoroutinefunction(view):
            # An async view (/health/) is Django's to call (and await); its checks use
            # connections of their own.
            return None
        statements = getattr(request, "statements", None) or _Statements()
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
