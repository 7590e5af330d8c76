"""Template tags for content: Markdown prose, glossary links, highlighted code."""

from collections.abc import Iterable

from django import template
from django.utils.safestring import SafeString, mark_safe

from course import markup
from course.models import GlossaryTerm

register = template.Library()


@register.simple_tag(takes_context=True)
def prose(context: template.Context, text: str) -> SafeString:
    """Markdown prose. On a lesson page the view's `glossary_linker` links first mentions."""
    linker = context.get("glossary_linker")
    if linker is not None:
        return linker.render(text)
    return markup.render_markdown(text, terms=context.get("term_names"))


@register.simple_tag(takes_context=True)
def preview_prose(context: template.Context, text: str) -> SafeString:
    """Markdown prose with term references shown as words, not links."""
    return markup.render_markdown(text, terms=context.get("term_names"), link_terms=False)


@register.simple_tag(takes_context=True)
def plain(context: template.Context, text: str) -> SafeString:
    return markup.render_plain_text(text, terms=context.get("term_names"))


@register.simple_tag
def term_link(term: GlossaryTerm) -> SafeString:
    return mark_safe(markup.term_link(term.slug, term.term))


@register.filter
def highlight(code: str, language: str = "python") -> SafeString:
    return markup.highlight_code(code, language)


@register.filter
def highlight_line(code: str, language: str = "python") -> SafeString:
    return markup.highlight_line(code, language)


@register.filter
def as_lines(value: str | Iterable[str]) -> str:
    """Example-card lines, written in content either as a block of text or as a list."""
    if isinstance(value, str):
        return value.rstrip("\n")
    return "\n".join(str(line) for line in value)
