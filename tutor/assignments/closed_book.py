"""Closed-book assignments: from opening to due, a student of the class reaches only the
assignment's own lesson and its items (every other page answers a plain refusal), in one
session (a new sign-in ends the old one), from the allowed addresses if the teacher listed any.
Signing in lands on the assignment's lesson, and the site's header offers only it (`header`).

The windows a student is in are kept in their session (read at sign-in, again each
RECHECK_SECONDS), so a page costs no query for it; a refusal and taking the seat do.
"""

import ipaddress
import time
from datetime import datetime
from importlib import import_module
from urllib.parse import urlsplit

from django.apps import apps
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.sessions.backends.base import SessionBase, UpdateError
from django.contrib.sessions.models import Session
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.utils.translation import gettext
from django_htmx.http import reswap, retarget

from course.htmx import REFUSAL_TEMPLATE, wants_partial
from tutor.assignments.models import Assignment, ClosedBookSeat, Extension

SESSION_KEY = "closed_book"
# Kept in a session the seat moved away from, once signed out: the log-in page says why.
MOVED_KEY = "closed_book_moved"
RECHECK_SECONDS = 60
# Pages anyone signed in may still reach: signing out and in (and the browser's reports of
# what the CSP refused, which are no page).
# The language switch and the JavaScript catalog the open pages load are no other page.
ALWAYS_OPEN = {"login", "logout", "csp_report", "set_language", "javascript_catalog"}


# The block an item's URL acts in and its lesson, by the name of its argument (the model is
# looked up by name, so this stays true when a kind's models move).
ITEM_OF_ARGUMENT = {
    "snippet_id": ("course", "Snippet", "block_id"),
    "prediction_id": ("tutor", "Prediction", "snippet__block_id"),
    "run_id": ("tutor", "Run", "snippet__block_id"),
    "submission_id": ("tutor", "Submission", "exercise__block_id"),
    "block_pk": ("course", "Block", "pk"),
}


def item_of(url_name: str, kwargs: dict) -> tuple[int | None, int | None]:
    """The lesson and the block the URL's item belongs to: (lesson, None) for a URL about a
    whole lesson, (None, None) when it names no item of a lesson."""
    if "lesson_pk" in kwargs and not url_name.startswith(("class_", "live_")):
        return kwargs["lesson_pk"], None
    if "quiz_pk" in kwargs:  # a quiz's pages belong to its lesson (tutor/quizzes/)
        found = apps.get_model("tutor", "Assignment").objects.filter(pk=kwargs["quiz_pk"])
        return (found.values_list("lesson_id", flat=True).first(), None)
    if "attempt_pk" in kwargs:
        found = apps.get_model("tutor", "QuizAttempt").objects.filter(pk=kwargs["attempt_pk"])
        lesson = found.values_list("assignment__lesson_id", flat=True).first()
        return (lesson, kwargs.get("block_pk"))
    if "stepping_id" in kwargs:
        stepping = apps.get_model("tutor", "Stepping").objects.filter(pk=kwargs["stepping_id"])
        found = stepping.values_list(
            Coalesce(F("snippet__block__lesson_id"), F("exercise__block__lesson_id")),
            Coalesce(F("snippet__block_id"), F("exercise__block_id")),
        ).first()
        return found or (None, None)
    if "exercise_id" in kwargs:
        model = "OrderingExercise" if url_name.startswith("ordering") else "CodeExercise"
        found = apps.get_model("course", model).objects.filter(pk=kwargs["exercise_id"])
        return found.values_list("block__lesson_id", "block_id").first() or (None, None)
    for argument, (app, model, block) in ITEM_OF_ARGUMENT.items():
        if argument in kwargs:
            lesson = "lesson_id" if block == "pk" else block.replace("_id", "__lesson_id")
            found = apps.get_model(app, model).objects.filter(pk=kwargs[argument])
            return found.values_list(lesson, block).first() or (None, None)
    return None, None


def windows_of(user) -> list[dict]:
    """The closed-book assignments of the user's classes not yet due for them (one query): a
    student's extension is their due date."""
    extended = Extension.objects.filter(assignment=OuterRef("pk"), student=user.pk).values("due_at")
    rows = (
        Assignment.objects.for_student(user)
        .filter(closed_book=True)
        .annotate(due=Coalesce(Subquery(extended[:1]), F("due_at")))
        .filter(due__gt=timezone.now())
        .values_list(
            "pk",
            "opens_at",
            "due",
            "lesson_id",
            "lesson__slug",
            "lesson__course__slug",
            "lesson__title",
            "allowed_addresses",
            "whole_lesson",
        )
    )
    windows = [
        {
            "pk": pk,
            "opens": opens.timestamp(),
            "due": due.timestamp(),
            "lesson": lesson,
            "slug": slug,
            "course": course,
            "title": title,
            "allowed": allowed,
            "blocks": None if whole else [],
        }
        for pk, opens, due, lesson, slug, course, title, allowed, whole in rows
    ]
    # An assignment that names its items: only those take work (one more query, then).
    if named := {w["pk"]: w for w in windows if w["blocks"] is not None}:
        for assignment, block in Assignment.blocks.through.objects.filter(
            assignment__in=named
        ).values_list("assignment_id", "block_id"):
            named[assignment]["blocks"].append(block)
    return windows


def remember_windows(session: SessionBase, user) -> list[dict]:
    session[SESSION_KEY] = {"checked": time.time(), "windows": windows_of(user)}
    return session[SESSION_KEY]["windows"]


def running_window(request: HttpRequest) -> dict | None:
    kept = request.session.get(SESSION_KEY)
    if kept is None or time.time() - kept["checked"] > RECHECK_SECONDS:
        windows = remember_windows(request.session, request.user)
    else:
        windows = kept["windows"]
    now = time.time()
    return next((w for w in windows if w["opens"] <= now < w["due"]), None)


def address_allowed(window: dict, address: str | None) -> bool:
    networks = [line.strip() for line in window["allowed"].splitlines() if line.strip()]
    if not networks:
        return True
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(network, strict=False) for network in networks)


def take_seat(request: HttpRequest, window: dict, *, user=None, signing_in: bool = False) -> bool:
    """This session holds the student's seat: signing in takes it (and ends the session
    that had it); a session that finds it held by another live session is refused."""
    key = request.session.session_key
    seat, made = ClosedBookSeat.objects.get_or_create(
        assignment_id=window["pk"],
        student=user or request.user,
        defaults={"session_key": key or "", "address": request.META.get("REMOTE_ADDR")},
    )
    if not made and seat.session_key != key:
        if (
            not signing_in
            and Session.objects.filter(
                session_key=seat.session_key, expire_date__gt=timezone.now()
            ).exists()
        ):
            return False
        if seat.session_key:
            moved_away(seat.session_key, window)  # the old one ends
        seat.session_key, seat.address = key, request.META.get("REMOTE_ADDR")
        seat.save(update_fields=["session_key", "address"])
    request.session[f"{SESSION_KEY}_seat"] = window["pk"]
    return True


def moved_away(session_key: str, window: dict) -> None:
    """The session that held the seat ends: signed out, keeping only why (its next page,
    the log-in page, says so rather than appearing bare)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    old = store(session_key=session_key)
    if not old.exists(session_key):
        return
    old.clear()
    old[MOVED_KEY] = {"title": window["title"], "at": time.time()}
    try:
        old.save(must_create=False)
    except UpdateError:  # gone meanwhile (it expired, or signed out): ended anyway
        pass


def say_why_signed_out(request: HttpRequest) -> None:
    """The first request of a session the seat moved away from: whatever page it lands on
    (the log-in page, mostly: the lesson's clicks ask for it) says why, once."""
    moved = request.session.pop(MOVED_KEY)
    messages.warning(
        request,
        f"You were signed out here because you signed in on another device during the "
        f"closed-book assignment “{moved['title']}”: it is open in one place at a time. "
        "To carry on here, sign in again (the other device is then signed out). A prediction "
        "you typed here and had not sent is kept in this browser: it is back in its box when "
        "the lesson opens.",
    )


def signed_in(sender, request: HttpRequest, user, **kwargs) -> None:
    """user_logged_in: read the student's windows; one running now moves their seat here."""
    if request is None or not hasattr(request, "session"):
        return
    windows = remember_windows(request.session, user)
    now = time.time()
    for window in windows:
        if window["opens"] <= now < window["due"]:
            if request.session.session_key is None:
                request.session.save()
            take_seat(request, window, user=user, signing_in=True)


def lesson_url(window: dict) -> str:
    return f"/learn/{window['course']}/{window['slug']}/"


def is_open(window: dict, namespace: str, name: str, kwargs: dict) -> bool:
    """The page is the assignment's lesson or one of its items: when the assignment names
    its items, only those (the lesson's other items are there to read, not to work on)."""
    if namespace != "tutor":
        return False
    if name == "lesson_detail":
        return (kwargs.get("course_slug"), kwargs.get("lesson_slug")) == (
            window["course"],
            window["slug"],
        )
    lesson, block = item_of(name, kwargs)
    if lesson != window["lesson"]:
        return False
    named = window.get("blocks")  # absent from a session kept before items were named
    return named is None or block is None or block in named


def opens(window: dict, url: str) -> bool:
    """Where signing in would send the student is a page of the assignment's lesson."""
    try:
        match = resolve(urlsplit(url).path)
    except Resolver404:
        return False
    return is_open(window, match.namespace, match.url_name or "", match.kwargs)


def header(request: HttpRequest) -> dict:
    """Context processor: while a closed-book window runs, the site's header offers only the
    assignment and signing out (the middleware found the window: no query)."""
    window = getattr(request, "closed_book", None)
    if window is None or not request.user.is_authenticated:
        return {}
    return {"closed_book_window": {"title": window["title"], "url": lesson_url(window)}}


def refuse(request: HttpRequest, window: dict, why: str, *, user=None) -> HttpResponse:
    ClosedBookSeat.objects.filter(assignment_id=window["pk"], student=user or request.user).update(
        refusals=F("refusals") + 1,
        last_refused=request.get_full_path()[:200],
        refused_at=timezone.now(),
    )
    context = {
        "why": why,
        "title": window["title"],
        "lesson_url": lesson_url(window),
        "due": datetime.fromtimestamp(window["due"], tz=timezone.get_current_timezone()),
    }
    return TemplateResponse(
        request, "tutor/assignments/closed_book_refusal.html", context, status=403
    )


class ClosedBookMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.user.is_authenticated and MOVED_KEY in request.session:
            say_why_signed_out(request)
        response = self.get_response(request)
        match = request.resolver_match
        if (
            request.method == "POST"
            and match is not None
            and match.url_name == "login"
            and response.status_code == 302
            and request.user.is_authenticated
        ):
            # Signed in during a closed-book window: to the assignment's lesson, not to a
            # page (the home page, by default) that would refuse them.
            window = running_window(request)
            if window is not None and not opens(window, response["Location"]):
                response["Location"] = lesson_url(window)
        return response

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or request.resolver_match is None:
            return None
        window = running_window(request)
        if window is None:
            return None
        request.closed_book = window  # the header offers only what is open (header())
        match = request.resolver_match
        name = match.url_name or ""
        if name in ALWAYS_OPEN:
            return None
        if not address_allowed(window, request.META.get("REMOTE_ADDR")):
            return refuse(
                request,
                window,
                gettext("This closed-book assignment is open only from the room’s computers."),
            )
        if request.session.get(f"{SESSION_KEY}_seat") != window["pk"] and not take_seat(
            request, window
        ):
            logout(request)  # this session is not the one the assignment is open in
            return refuse(
                request,
                window,
                gettext(
                    "This closed-book assignment is open in another session: sign in again here to move it."
                ),
                user=user,
            )
        if is_open(window, match.namespace, name, view_kwargs):
            return None
        if match.namespace == "tutor" and item_of(name, view_kwargs)[0] == window["lesson"]:
            why = gettext(
                "This item of “%(title)s” is not part of the closed-book assignment: only "
                "the items it names take work until it is due."
            ) % {"title": window["title"]}
            refused = refuse(request, window, why)
            if wants_partial(request):
                # On the assignment's own page: the item's panel says why, in place.
                refused = TemplateResponse(
                    request, REFUSAL_TEMPLATE, {"message": why}, status=403
                )
                refused = reswap(retarget(refused, "closest .practice-slot"), "innerHTML")
            return refused
        return refuse(
            request,
            window,
            gettext("During this closed-book assignment only “%(title)s” is open.")
            % {"title": window["title"]},
        )
