"""Prose: Markdown with an optional heading."""

from course.kinds import BlockKind, common_fields, register

register(
    BlockKind(
        name="prose",
        label="Prose",
        template="course/blocks/prose.html",
        fields=common_fields(),
        example={"body": "Some text."},
    )
)
