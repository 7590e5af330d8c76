"""Data Flow: numbered steps, one below the other, joined by arrows."""

from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, register
from course.kinds.fields import TextList

register(
    BlockKind(
        name="data_flow",
        label=gettext_lazy("Data Flow"),
        template="course/blocks/data_flow.html",
        fields=(*common_fields(), TextList("steps", required=True, item="step")),
        items_field="steps",
        example={"steps": ["Read the file", "Count the words"]},
        wrong_examples=(({"steps": []}, "'steps' must not be empty"),),
    )
)
