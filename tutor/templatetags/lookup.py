from django import template

register = template.Library()


@register.filter
def at(mapping: dict | None, key):
    """`{{ progress_by_lesson|at:lesson.pk }}`: the value a view keyed by id, or None."""
    return mapping.get(key) if mapping else None
