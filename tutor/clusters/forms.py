from django import forms
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tutor.clusters.models import MAX_COMMENT_CHARS


def _too_long() -> str:
    # The limit in the page's language's digits ("2,000", "2.000"), when the message is shown.
    return gettext(
        "A comment can be at most %(most)s characters (this one has %%(show_value)d)."
    ) % {"most": number_format(MAX_COMMENT_CHARS, force_grouping=True)}


class CommentForm(forms.Form):
    text = forms.CharField(
        label=_("Your comment to everyone in this group"),
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=MAX_COMMENT_CHARS,
        error_messages={
            "required": _("Write your comment first: it is empty."),
            "max_length": lazy(_too_long, str)(),
        },
    )

    def first_error(self) -> str:
        return next(iter(self.errors.get("text", [])), gettext("This comment cannot be saved."))
