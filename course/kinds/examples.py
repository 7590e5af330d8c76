"""Examples: cards, each a title, a few literal lines and a Markdown body."""

from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, register
from course.kinds.fields import Items, Text

register(
    BlockKind(
        name="examples",
        label=gettext_lazy("Examples"),
        template="course/blocks/examples.html",
        fields=(
            *common_fields(),
            Items(
                "items",
                required=True,
                fields=(Text("title", required=True), Text("lines"), Text("body", markdown=True)),
            ),
        ),
        items_field="items",
        example={"items": [{"title": "One", "lines": "x = 1"}]},
        wrong_examples=(({"items": [{"titel": "One"}]}, "unknown field 'titel' in an item"),),
    )
)
