"""Feedback text for learners: short sentences where `code` is written in backticks."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_BACKTICKED = re.compile(r"`([^`\n]+)`")


@register.filter
def backticks(text: str) -> SafeString:
    """Escape the text, then show `spans` in backticks as code."""
    return mark_safe(_BACKTICKED.sub(r"<code>\1</code>", escape(text)))
