from django.conf import settings
from django.contrib.auth import login
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from tutor.forms import SignupForm


def safe_next(request: HttpRequest, default: str = "/") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Everyone who signs up is a student; teachers and admins are made by an admin."""
    if request.user.is_authenticated:
        return redirect(safe_next(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:
            # Someone took the name or the address between the form's check and now.
            form.add_error(None, _("That username or e-mail address was just taken. Please try again."))
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(safe_next(request))
    return TemplateResponse(
        request, "registration/signup.html", {"form": form, "next": safe_next(request, "")}
    )


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """What django-axes answers a log-in from a username and address that failed too often
    (settings.AXES_LOCKOUT_CALLABLE): the log-in page, saying so and what to do."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {
        "locked_out": True,
        "minutes": minutes,
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "next": safe_next(request, ""),
    }
    # Rendered now: axes hands this back from its middleware, after responses are rendered.
    return render(request, "registration/locked_out.html", context, status=429)
