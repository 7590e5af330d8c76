"""The teacher's comment beside a learner's wrong answer (tutor.clusters)."""

from django import template

from tutor.clusters.comments import comments_for, teacher_name

register = template.Library()


@register.filter
def marked_lines(text: str, marked) -> list[tuple[str, bool]]:
    """`{{ answer|marked_lines:group.marked }}`: the text line by line, each with whether
    it is one of the `marked` (0-based) lines."""
    marked = marked or ()
    return [(line, i in marked) for i, line in enumerate(text.split("\n"))]


@register.inclusion_tag("tutor/clusters/teacher_comment.html", takes_context=True)
def teacher_comments(context, kind: str, state) -> dict:
    """`{% teacher_comments "snippet" practice %}` in a kind's panel: the comments on the
    group of the answer the panel shows, from the learner's teachers."""
    comments = comments_for(context.get("request"), kind, state, lesson=context.get("lesson"))
    return {
        "comments": [(comment, teacher_name(comment.author)) for comment in comments],
        "csrf_token": context.get("csrf_token"),
    }
