"""Prose: Markdown with an optional heading."""

from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, register

register(
    BlockKind(
        name="prose",
        label=gettext_lazy("Prose"),
        template="course/blocks/prose.html",
        fields=common_fields(),
        example={"body": "Some text."},
    )
)
