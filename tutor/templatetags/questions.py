"""Template filters for questions: an option's text as inline Markdown."""

import re

from django import template
from django.utils.safestring import SafeString, mark_safe

from course import markup

register = template.Library()

_ONE_PARAGRAPH = re.compile(r"\A\s*<p>(.*)</p>\s*\Z", re.DOTALL)


@register.simple_tag(takes_context=True)
def inline_prose(context: template.Context, text: str) -> SafeString:
    """Markdown for a line inside a label: one paragraph's content without its <p>."""
    rendered = markup.render_markdown(text, terms=context.get("term_names"))
    found = _ONE_PARAGRAPH.match(rendered)
    if found and "<p>" not in found.group(1):
        return mark_safe(found.group(1))
    return rendered
