"""The teacher's comment beside a learner's wrong answer (tutor.clusters)."""

from django import template

from tutor.clusters.comments import comments_for, teacher_name

register = template.Library()


@register.inclusion_tag("tutor/clusters/teacher_comment.html", takes_context=True)
def teacher_comments(context, kind: str, state) -> dict:
    """`{% teacher_comments "snippet" practice %}` in a kind's panel: the comments on the
    group of the answer the panel shows, from the learner's teachers."""
    comments = comments_for(context.get("request"), kind, state, lesson=context.get("lesson"))
    return {"comments": [(comment, teacher_name(comment.author)) for comment in comments]}
