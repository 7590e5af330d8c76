"""Template tags for the lesson's admin page (templates/admin/course/block_inline.html)."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from course.admin_errors import error_count as count_errors

register = template.Library()

# The context variable LessonAdmin.render_change_form sets: each kind inline already
# rendered without rows, by (inline class, saved block?), with the prefix and block it had.
BLANK_INLINES = "blank_kind_inlines"


@register.simple_tag(takes_context=True)
def kind_inline(context: template.Context, inline_admin_formset) -> SafeString:
    """A kind's inline under a block (a snippet's, an exercise's).

    Every block carries every kind's inline (the page shows the block's own: a kind chosen
    on the page brings its inline at once), so a lesson of n blocks renders n of each, most
    without a row: only their prefix ("blocks-3-snippet") and the block they point at differ.
    Such an inline is rendered once a page and copied with those two changed."""
    formset = inline_admin_formset.formset
    render = context.template.engine.get_template(inline_admin_formset.opts.template)
    cache = context.get(BLANK_INLINES)
    if cache is None or formset.forms or formset.non_form_errors():
        with context.push(inline_admin_formset=inline_admin_formset):
            return render.render(context)
    key = (type(inline_admin_formset.opts), formset.instance.pk is None, formset.is_bound)
    if key not in cache:
        with context.push(inline_admin_formset=inline_admin_formset):
            html = render.render(context)
        cache[key] = (html, formset.prefix, formset.instance.pk)
        return html
    html, prefix, pk = cache[key]
    html = html.replace(prefix, formset.prefix)
    if pk is not None:
        # The blank row's hidden link to its block: <input ... name="P-__prefix__-block" value="12">
        link = f'name="{formset.prefix}-__prefix__-{formset.fk.name}" value="'
        html = html.replace(f'{link}{pk}"', f'{link}{formset.instance.pk}"')
    return mark_safe(html)  # noqa: S308 -- rendered by the template engine, escaped there


@register.filter
def error_count(inline_admin_form) -> int:
    """How many errors a block's form holds, its snippet's or exercise's included."""
    return count_errors(inline_admin_form.form)


@register.simple_tag
def block_heading(block) -> SafeString:
    """A block's heading on the lesson's admin page: its position, title (or key) and kind."""
    return format_html(
        "{}. {} <small>({})</small>",
        block.position,
        block.title or block.key or "—",
        block.kind_spec.label,
    )
