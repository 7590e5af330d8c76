"""Which language the pages speak: the learner's choice, their class's, their LMS's, the browser's.

A choice is kept in the session (`SESSION_KEY`), filled at sign-in from the account's setting,
else the class's default language; an LTI launch puts its locale claim there when the account
has chosen none. The language switch (`choose`) saves the account's setting and the session's
choice, and sets Django's language cookie, which is all an anonymous visitor has. Without any
of these the browser's Accept-Language decides (Django's own `get_language_from_request`).
Reading the session costs no query the request does not already make.
"""

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import JavaScriptCatalog

from tutor.models import AccountSettings, Cohort

SESSION_KEY = "parsnip_language"


def supported(code: str | None) -> str | None:
    """The site language `code` names ("de-AT" and "de_at" name "de"), or None."""
    if not code or len(code) > 35:
        return None
    try:
        return translation.get_supported_language_variant(code.replace("_", "-").lower())
    except LookupError:
        return None


# How long a browser keeps a language's JavaScript strings (they change with a release only).
CATALOG_SECONDS = 3600


@require_GET
def javascript_catalog(request: HttpRequest, language: str) -> HttpResponse:
    """The strings static/js/*.js translate (Django's catalog: gettext, ngettext, interpolate),
    in the language the URL names, so that a browser keeps it: every page loads it as a
    deferred script, and htmx starts only once every deferred script has run."""
    if supported(language) != language:
        raise Http404("No such language.")
    with translation.override(language):
        response = JavaScriptCatalog.as_view()(request)
    patch_cache_control(response, public=True, max_age=CATALOG_SECONDS)
    return response


class LanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware (Content-Language, Vary: Accept-Language), with the session's
    choice first."""

    def process_request(self, request: HttpRequest) -> None:
        chosen = supported(request.session.get(SESSION_KEY)) if _has_session(request) else None
        language = chosen or translation.get_language_from_request(request)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


def _has_session(request: HttpRequest) -> bool:
    # A visitor without a session cookie has no choice in it: don't make the page vary on Cookie.
    return settings.SESSION_COOKIE_NAME in request.COOKIES


def remember(request: HttpRequest, language: str) -> None:
    """This browser's pages are in `language` from the next request on (and this one's rest)."""
    request.session[SESSION_KEY] = language
    translation.activate(language)
    request.LANGUAGE_CODE = language


def signed_in(sender, request: HttpRequest, user, **kwargs) -> None:
    """At sign-in, the account's own language, else the first of its classes' defaults."""
    language = (
        AccountSettings.objects.filter(user=user).values_list("language", flat=True).first()
        or Cohort.objects.joined_by(user)
        .exclude(language="")
        .values_list("language", flat=True)
        .first()
    )
    if supported(language):
        remember(request, supported(language))


def launched_in(request: HttpRequest, user, locale: str | None) -> None:
    """An LMS launched `user` with its `locale` claim: the pages speak it, unless the learner chose
    their own language in Parsnip."""
    language = supported(locale)
    if language and not AccountSettings.objects.filter(user=user).exclude(language="").exists():
        remember(request, language)


def _back_to(request: HttpRequest) -> str:
    """The page the switch was on (a local address), else the home page."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


@require_POST
def choose(request: HttpRequest) -> HttpResponse:
    """The language switch: pages in the chosen language from now on, back on the same page.
    A signed-in learner's choice is their account's setting (it follows them to other browsers)."""
    response = HttpResponseRedirect(_back_to(request))
    language = supported(request.POST.get("language"))
    if language is None or language != request.POST.get("language"):
        return response  # not a language the site speaks: the page as it was
    if request.user.is_authenticated:
        AccountSettings.objects.update_or_create(user=request.user, defaults={"language": language})
    remember(request, language)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response
