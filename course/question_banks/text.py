"""A bank's texts as the content files' Markdown, safely.

Moodle keeps question text and feedback as HTML (or its own auto-format, plain text or
Markdown). HTML is first sanitised with nh3 to the tags Parsnip's Markdown may produce
(course.markup.ALLOWED_TAGS: no script, style, iframe, image, event handler or style
attribute survives), then written as Markdown with markdownify. What cannot come along
(an image, a file of the bank) is said in the question's changes.
"""

import html
import re

import nh3
from django.utils.translation import gettext as _
from markdownify import markdownify

from course.markup import ALLOWED_ATTRIBUTES, ALLOWED_TAGS

HTML, MOODLE, PLAIN, MARKDOWN = "html", "moodle_auto_format", "plain_text", "markdown"
FORMATS = (HTML, MOODLE, PLAIN, MARKDOWN)
_LOST = re.compile(r"<\s*(img|video|audio|iframe|object|embed|svg|math)\b", re.IGNORECASE)
_TERM_OPEN = re.compile(r"\[\[")


def _without_term_links(text: str) -> str:
    """`[[` is a glossary link in the content format; a bank's text means two brackets."""
    return _TERM_OPEN.sub(r"[\\[", text)


def markdown_of(text: str, text_format: str, changes: list[str], *, one_line: bool = False) -> str:
    """`text` in `text_format` as Markdown; what is lost is added to `changes`."""
    if text_format == MARKDOWN:
        written = text
    else:
        if text_format == PLAIN:
            text = html.escape(text).replace("\n", "<br>")
        elif text_format == MOODLE and not re.search(r"<(p|br|div)\b", text, re.IGNORECASE):
            text = text.replace("\n", "<br>")
        lost = sorted({match.group(1).lower() for match in _LOST.finditer(text)})
        if lost:
            changes.append(
                _("its %(what)s could not come along: add what they showed again in Markdown")
                % {"what": ", ".join(f"<{tag}>" for tag in lost)}
            )
        if "@@PLUGINFILE@@" in text:
            changes.append(_("links to files kept in Moodle no longer lead anywhere"))
        attributes = {tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()}
        cleaned = nh3.clean(text, tags=ALLOWED_TAGS | {"span", "div"}, attributes=attributes)
        written = markdownify(
            cleaned, heading_style="ATX", bullets="-", code_language="", newline_style="backslash"
        )
    written = re.sub(r"[ \t]+\n", "\n", written)
    written = re.sub(r"\n{3,}", "\n\n", written).strip()
    if one_line:
        written = " ".join(written.split())
    return _without_term_links(written)
