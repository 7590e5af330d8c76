"""Markdown for content: rendered with Python-Markdown, sanitised with nh3.

Glossary references are written `[[slug]]` or `[[slug|shown text]]`; they become links
to the term's page that carry an HTMX-loaded definition preview.
"""

import functools
import html
import re
from collections.abc import Iterable, Mapping

import markdown
import nh3
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

TERM_LINK = re.compile(r"\[\[([a-z0-9][a-z0-9-]*)(?:\|([^\]\n]+))?\]\]")

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h3", "h4",
    "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "strong", "sub", "sup", "table",
    "tbody", "td", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "class", "hx-get", "hx-trigger", "hx-target", "hx-swap",
          "data-term", "aria-describedby"},
    "abbr": {"title"},
    "code": {"class"},
    "td": {"align"},
    "th": {"align"},
}


def linked_term_slugs(text: str) -> list[str]:
    """The glossary slugs a Markdown text links to with [[slug]], in order, once each."""
    return list(dict.fromkeys(match.group(1) for match in TERM_LINK.finditer(text)))


def term_link(slug: str, text: str) -> str:
    url = reverse("course:term_detail", args=[slug])
    preview = reverse("course:term_preview", args=[slug])
    return (
        f'<a class="term-link" href="{url}" data-term="{slug}" hx-get="{preview}" '
        f'hx-trigger="mouseenter delay:150ms, focus" hx-target="#term-preview" '
        f'hx-swap="innerHTML">{html.escape(text)}</a>'
    )


def _replace_term_links(text: str, terms: Mapping[str, str]) -> str:
    def replace(match: re.Match) -> str:
        slug, shown = match.group(1), match.group(2)
        name = shown or terms.get(slug) or slug
        if slug not in terms:
            return html.escape(name)
        # Markdown passes raw inline HTML through; nh3 cleans it afterwards.
        return term_link(slug, name)

    return TERM_LINK.sub(replace, text)


_SKIP_INSIDE = {"a", "code", "pre"}
_TAG = re.compile(r"(<[^>]+>)")


def _autolink_first_mentions(rendered: str, names: Mapping[str, str]) -> str:
    """Link the first plain-text mention of each term (not inside links or code)."""
    if not names:
        return rendered
    remaining = dict(names)
    pattern = re.compile(
        r"(?<![\w.-])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w-])",
        re.IGNORECASE,
    )
    skip_depth = 0
    out = []
    for part in _TAG.split(rendered):
        if part.startswith("<"):
            name = re.match(r"</?\s*([a-zA-Z0-9]+)", part)
            if name and name.group(1).lower() in _SKIP_INSIDE:
                skip_depth += -1 if part.startswith("</") else 1
            out.append(part)
            continue
        if skip_depth > 0 or not remaining:
            out.append(part)
            continue

        def replace(match: re.Match) -> str:
            key = match.group(1).lower()
            slug = remaining.pop(key, None)
            if slug is None:
                return match.group(0)
            return term_link(slug, html.unescape(match.group(1)))

        out.append(pattern.sub(replace, part))
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _render(text: str, terms: tuple[tuple[str, str], ...], autolink: tuple[tuple[str, str], ...]) -> str:
    source = _replace_term_links(text, dict(terms))
    rendered = markdown.markdown(source, extensions=["fenced_code", "tables", "sane_lists"])
    cleaned = nh3.clean(
        rendered,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
    return _autolink_first_mentions(cleaned, dict(autolink))


def render_markdown(
    text: str,
    *,
    terms: Mapping[str, str] | None = None,
    autolink: Iterable[tuple[str, str]] = (),
) -> SafeString:
    """Render Markdown to safe HTML.

    `terms` maps every known glossary slug to its name, so [[slug]] links resolve;
    `autolink` gives (slug, name) pairs whose first plain mention becomes a link.
    """
    terms_key = tuple(sorted((terms or {}).items()))
    autolink_key = tuple(sorted({name.lower(): slug for slug, name in autolink}.items()))
    return mark_safe(_render(text or "", terms_key, autolink_key))
