"""A launch's claims as Parsnip reads them: checked for their shape and normalised once,
where they enter, before anything is stored (django-lti stores them as they come, and a
list where an object belongs, or a name longer than its column, was a 500 half-way).

The signature says the LMS sent them; this says they are what LTI says they are. What each
claim is then trusted for is in docs/lti.md's threat model."""

import unicodedata
from urllib.parse import urlsplit

from django.utils.translation import gettext as _

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
ROLES = f"{LTI}roles"
CONTEXT = f"{LTI}context"
RESOURCE_LINK = f"{LTI}resource_link"
CUSTOM = f"{LTI}custom"
TARGET_LINK_URI = f"{LTI}target_link_uri"
LAUNCH_PRESENTATION = f"{LTI}launch_presentation"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"

OBJECTS = (CONTEXT, RESOURCE_LINK, CUSTOM, LAUNCH_PRESENTATION, AGS, NRPS, DEEP_LINKING)
# Parsnip uses neither; unkept, they are neither stored nor a column to overflow.
UNUSED_PERSONAL = ("email", "picture")


class BadClaim(ValueError):
    """A claim is not what LTI says it is; the message names it."""


def text(value, limit: int) -> str:
    """A name or title as shown: NFC, no control characters, at most `limit` characters."""
    value = unicodedata.normalize("NFC", value)
    value = "".join(" " if unicodedata.category(c) == "Cc" else c for c in value)
    return " ".join(value.split())[:limit]


def identifier(claims: dict, key: str, name: str) -> None:
    value = claims.get(key)
    if not isinstance(value, str) or not value or len(value) > 255:
        raise BadClaim(_("%(name)s must be a string of 1 to 255 characters.") % {"name": name})


def service_url(value, name: str, limit: int) -> str:
    """An LMS service address: http(s), with a host, short enough to keep."""
    if not isinstance(value, str):
        raise BadClaim(_("%(name)s must be a URL.") % {"name": name})
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname or len(value) > limit:
        raise BadClaim(
            _("%(name)s must be an http(s) URL of at most %(limit)d characters.")
            % {"name": name, "limit": limit}
        )
    return value


def normalise(body: dict) -> None:
    """Check and normalise the claims Parsnip reads, in place (django-lti reads the same
    dict). Raises BadClaim, before anything is stored."""
    roles = body.get(ROLES)
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise BadClaim(_("The roles claim must be a list of role names."))
    body[ROLES] = [role.strip() for role in roles]
    for claim in OBJECTS:
        if claim in body and not isinstance(body[claim], dict):
            raise BadClaim(_("The claim %(claim)s must be a JSON object.") % {"claim": claim})
    identifier(body, "sub", _("The user (sub)"))
    for key in UNUSED_PERSONAL:
        body.pop(key, None)
    for key in ("name", "given_name", "family_name"):
        if key in body:
            if not isinstance(body[key], str | None):
                raise BadClaim(_("The claim %(claim)s must be a string.") % {"claim": key})
            body[key] = text(body[key] or "", 150)
    if context := body.get(CONTEXT):
        identifier(context, "id", _("The course (context) id"))
        for key, limit in (("title", 500), ("label", 255)):
            if not isinstance(context.get(key) or "", str):
                raise BadClaim(_("The course's %(claim)s must be a string.") % {"claim": key})
            context[key] = text(context.get(key) or "", limit)
    elif CONTEXT in body:
        del body[CONTEXT]  # an empty object is no course
    if link := body.get(RESOURCE_LINK):
        identifier(link, "id", _("The link (resource_link) id"))
        for key in ("title", "description"):
            if key in link and not isinstance(link[key], str | None):
                raise BadClaim(_("The link's %(claim)s must be a string.") % {"claim": key})
        link["title"] = text(link.get("title") or "", 500)
    if nrps := body.get(NRPS):
        service_url(nrps.get("context_memberships_url"), _("The roster (NRPS) URL"), 200)
    if ags := body.get(AGS):
        if "lineitems" in ags:
            service_url(ags["lineitems"], _("The gradebook (AGS lineitems) URL"), 200)
        if "lineitem" in ags:
            service_url(ags["lineitem"], _("The gradebook column (AGS lineitem) URL"), 1000)
        if not isinstance(ags.get("scope", []), list):
            raise BadClaim(_("The gradebook (AGS) scope must be a list."))
    if presentation := body.get(LAUNCH_PRESENTATION):
        # The LMS's language for this launch ("de-DE", "es_MX"): Parsnip's pages speak it.
        if not isinstance(presentation.get("locale") or "", str):
            raise BadClaim(_("The launch's locale must be a string."))
        presentation["locale"] = text(presentation.get("locale") or "", 35)
    if settings := body.get(DEEP_LINKING):
        service_url(settings.get("deep_link_return_url"), _("The Deep Linking return URL"), 2000)
