"""`{{ moment|when }}`: a time as the site shows times, named in its time zone, with the
machine-readable time (a filter, not an include: a class's table shows hundreds); the zone
is the viewer's browser's, else the one given (`{{ due|when:cohort.time_zone }}`), else the
page's (tutor/time_zones.py). `{{ due|time_left }}`: "due in 3 days", "2 hours left"."""

import functools
import zoneinfo
from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from tutor import time_zones
from tutor.clusters.comments import teacher_name
from tutor.teaching import name_of
from tutor.time_zones import zone_for

register = template.Library()


@functools.lru_cache(maxsize=4096)  # a class's table repeats its due dates on every row
def _when(moment: datetime, zone: str, language: str) -> SafeString:
    # `language` is part of the key: the day's and month's names are the page's language's.
    local = timezone.localtime(moment, zoneinfo.ZoneInfo(zone))
    return format_html(
        '<time datetime="{}">{}</time>', local.isoformat(), date_format(local, "D j M Y, H:i T")
    )


@register.filter
def person(user) -> str:
    """A student as teachers' pages name them everywhere: "Ada Lovelace (ada)", or "ada"."""
    return name_of(user)


@register.filter
def set_by(cohort) -> str:
    """Who set an assignment, for whom: "set by Ms Ada Lovelace for Year 10 Local models"."""
    return _("set by %(teacher)s for %(class)s") % {
        "teacher": teacher_name(cohort.teacher),
        "class": cohort.name,
    }


@register.filter
def when(moment: datetime | None, fallback: str = "") -> SafeString | str:
    if moment is None:
        return ""
    return _when(moment, zone_for(fallback or None), get_language())


@register.filter
def time_left(due: datetime | None) -> str:
    return "" if due is None else time_zones.time_left(due, timezone.now())
