"""Why this works: short explanations, each a title and a Markdown body."""

from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, register
from course.kinds.fields import Items, Text

register(
    BlockKind(
        name="explanations",
        label=gettext_lazy("Why this works"),
        template="course/blocks/explanations.html",
        fields=(
            *common_fields(),
            Items(
                "items",
                required=True,
                fields=(Text("title", required=True), Text("body", markdown=True)),
            ),
        ),
        items_field="items",
        example={"items": [{"title": "Why", "body": "Because it is."}]},
        wrong_examples=(({"items": [{"body": "No title."}]}, "an item needs 'title'"),),
    )
)
