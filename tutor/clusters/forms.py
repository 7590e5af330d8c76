from django import forms

from tutor.clusters.models import MAX_COMMENT_CHARS


class CommentForm(forms.Form):
    text = forms.CharField(
        label="Your comment to everyone in this group",
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=MAX_COMMENT_CHARS,
        error_messages={
            "required": "Write your comment first: it is empty.",
            "max_length": f"A comment can be at most {MAX_COMMENT_CHARS:,} characters "
            "(this one has %(show_value)d).",
        },
    )

    def first_error(self) -> str:
        return next(iter(self.errors.get("text", [])), "This comment cannot be saved.")
