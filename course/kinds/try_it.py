"""Try It: starts the lesson's practical part; its title is the sub-heading."""

from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, register

register(
    BlockKind(
        name="try_it",
        label=gettext_lazy("Try It"),
        template="course/blocks/try_it.html",
        fields=common_fields(),
        example={"body": "Some text."},
    )
)
