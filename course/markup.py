"""Markdown for content: rendered with Python-Markdown, sanitised with nh3.

Glossary references are written `[[slug]]` or `[[slug|shown text]]`; they become links
to the term's page that carry an HTMX-loaded definition preview. Code is highlighted
server-side with Pygments (CSS classes only: the stylesheet is static/css/pygments.css).
"""

import functools
import html
import re
from collections.abc import Iterable, Mapping

import markdown
import nh3
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

TERM_LINK = re.compile(r"\[\[([a-z0-9][a-z0-9-]*)(?:\|([^\]\n]+))?\]\]")
LINKED_TERM = re.compile(r'data-term="([a-z0-9-]+)"')

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h3", "h4",
    "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "strong", "sub", "sup", "table",
    "tbody", "td", "th", "thead", "tr", "ul",
}
# What content may write. No hx-*, data-*, on*, style, id or class (but a code block's
# language): content cannot add behaviour or restyle the page. Glossary links, which do
# carry htmx attributes, are added by this module after sanitising (see _render).
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "code": {"class"},
    "td": {"align"},
    "th": {"align"},
}
CODE_LANGUAGE = re.compile(r"language-[A-Za-z0-9_+#.-]+")
# Where a [[slug]] link goes until the HTML is sanitised: private-use characters that
# content cannot bring in (they are removed from it first).
_LINK_OPEN, _LINK_CLOSE = "\ue000", "\ue001"
_LINK_SLOT = re.compile(f"{_LINK_OPEN}(\\d+){_LINK_CLOSE}")


def _attribute_value(element: str, attribute: str, value: str) -> str | None:
    """nh3's last word on each allowed attribute: None drops it.

    A value holding "<" or ">" is dropped, so in the sanitised HTML a ">" always ends a
    tag and the text between tags can be linked safely (_in_text)."""
    if attribute not in ALLOWED_ATTRIBUTES.get(element, ()) and (element, attribute) != ("a", "rel"):
        return None  # nh3 also lets lang and title through on every tag (rel is its link_rel)
    if any(char in value for char in "<>" + _LINK_OPEN + _LINK_CLOSE):
        return None
    if attribute == "class":
        return value if CODE_LANGUAGE.fullmatch(value) else None
    return value


def linked_term_slugs(text: str) -> list[str]:
    """The glossary slugs a Markdown text links to with [[slug]], in order, once each."""
    return list(dict.fromkeys(match.group(1) for match in TERM_LINK.finditer(text)))


def term_link(slug: str, text: str) -> str:
    """A link to a term's page; hovering or focusing it loads the definition preview.

    The preview replaces the page's single `#term-preview` popover (static/js/parsnip.js
    shows it next to the link and hides it again).
    """
    url = reverse("course:term_detail", args=[slug])
    preview = reverse("course:term_preview", args=[slug])
    return (
        f'<a class="term-link" href="{url}" data-term="{slug}" hx-get="{preview}" '
        f'hx-trigger="mouseenter delay:150ms, focus" hx-target="#term-preview" '
        f'hx-swap="outerHTML">{html.escape(text)}</a>'
    )


def _replace_term_links(
    text: str, terms: Mapping[str, str], links: list[str], link: bool = True
) -> str:
    """[[slug]] references become a slot (filled with a link once the HTML is sanitised, so
    no htmx attribute ever passes the sanitiser) or, for an unknown term, its words."""

    def replace(match: re.Match) -> str:
        slug, shown = match.group(1), match.group(2)
        name = shown or terms.get(slug) or slug
        if slug not in terms or not link:
            return html.escape(name)
        links.append(term_link(slug, name))
        return f"{_LINK_OPEN}{len(links) - 1}{_LINK_CLOSE}"

    text = text.replace(_LINK_OPEN, "").replace(_LINK_CLOSE, "")
    return TERM_LINK.sub(replace, text)


def _in_text(rendered: str, replace) -> str:
    """Apply `replace` to the text between tags only, never inside a tag (sanitised HTML:
    no ">" inside attribute values, no comments), skipping links and code."""
    skip_depth = 0
    out = []
    for part in _TAG.split(rendered):
        if part.startswith("<"):
            name = re.match(r"</?\s*([a-zA-Z0-9]+)", part)
            if name and name.group(1).lower() in _SKIP_INSIDE:
                skip_depth += -1 if part.startswith("</") else 1
            out.append(part)
        elif skip_depth > 0:
            out.append(part)
        else:
            out.append(replace(part))
    return "".join(out)


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

    def replace(match: re.Match) -> str:
        key = match.group(1).lower()
        slug = remaining.pop(key, None)
        if slug is None:
            return match.group(0)
        return term_link(slug, html.unescape(match.group(1)))

    return _in_text(rendered, lambda part: pattern.sub(replace, part) if remaining else part)


@functools.lru_cache(maxsize=4096)
def _render(
    text: str,
    terms: tuple[tuple[str, str], ...],
    autolink: tuple[tuple[str, str], ...],
    link_terms: bool = True,
) -> str:
    links: list[str] = []
    source = _replace_term_links(text, dict(terms), links, link=link_terms)
    rendered = markdown.markdown(source, extensions=["fenced_code", "tables", "sane_lists"])
    cleaned = nh3.clean(
        rendered,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_attribute_value,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
    # The [[slug]] links go in now, between tags; inside a link or code they stay words.
    cleaned = _in_text(cleaned, lambda part: _LINK_SLOT.sub(lambda m: links[int(m.group(1))], part))
    cleaned = _LINK_SLOT.sub(lambda m: _link_words(links[int(m.group(1))]), cleaned)
    # A term already linked with [[slug]] is not linked a second time.
    already = set(LINKED_TERM.findall(cleaned))
    return _autolink_first_mentions(
        cleaned, {name: slug for name, slug in autolink if slug not in already}
    )


def _link_words(link: str) -> str:
    return link[link.index(">") + 1 : -len("</a>")]


def render_markdown(
    text: str,
    *,
    terms: Mapping[str, str] | None = None,
    autolink: Iterable[tuple[str, str]] = (),
    link_terms: bool = True,
) -> SafeString:
    """Render Markdown to safe HTML.

    `terms` maps every known glossary slug to its name, so [[slug]] links resolve;
    `autolink` gives (slug, name) pairs whose first plain mention becomes a link.
    With `link_terms=False`, [[slug]] references become their plain name (for the
    preview popover, where a link inside a link's preview would only get in the way).
    """
    terms_key = tuple(sorted((terms or {}).items()))
    autolink_key = tuple(sorted({name.lower(): slug for slug, name in autolink}.items()))
    return mark_safe(_render(text or "", terms_key, autolink_key, link_terms))


def render_plain_text(text: str, *, terms: Mapping[str, str] | None = None) -> SafeString:
    """Markdown reduced to its words (escaped), for excerpts in lists."""
    rendered = render_markdown(text, terms=terms, link_terms=False)
    return mark_safe(" ".join(nh3.clean(rendered, tags=set()).split()))


class GlossaryLinker:
    """Renders one page's prose, in page order, linking each term where it is first mentioned.

    Later mentions stay plain: a paragraph where every other phrase is a link reads badly,
    and the page lists all of its terms at the end anyway.
    """

    def __init__(
        self, *, terms: Mapping[str, str], autolink: Iterable[tuple[str, str]], link: bool = True
    ):
        self.terms = dict(terms)
        self.pending = dict(autolink) if link else {}
        self.link = link

    def render(self, text: str) -> SafeString:
        """With `link=False` every term stays its words (where the glossary is closed)."""
        rendered = render_markdown(
            text, terms=self.terms, autolink=self.pending.items(), link_terms=self.link
        )
        for slug in LINKED_TERM.findall(rendered):
            self.pending.pop(slug, None)
        return rendered


_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)
_INLINE_FORMATTER = HtmlFormatter(nowrap=True)


def _lexer(language: str):
    try:
        return get_lexer_by_name(language or "text", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


@functools.lru_cache(maxsize=1024)
def highlight_code(code: str, language: str = "python") -> SafeString:
    """A code block as highlighted HTML (Pygments escapes the code)."""
    return mark_safe(highlight(code, _lexer(language), _FORMATTER))


@functools.lru_cache(maxsize=4096)
def highlight_line(code: str, language: str = "python") -> SafeString:
    """One line of code as highlighted inline HTML, without a wrapping block."""
    return mark_safe(highlight(code, _lexer(language), _INLINE_FORMATTER).rstrip("\n"))
