from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tutor.forms import grouped_number
from tutor.practice.code_exercise.state import MAX_CODE_CHARS


class ExerciseCodeForm(forms.Form):
    """The learner's code, to submit (`draft=False`: it must not be empty) or to keep as a
    draft; line breaks counted as the browser counts them."""

    code = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_CODE_CHARS,
        error_messages={
            "max_length": format_lazy(
                gettext_lazy("That code is too long: keep it under {limit} characters."),
                limit=grouped_number(MAX_CODE_CHARS),
            )
        },
    )
    reset = forms.BooleanField(required=False)
    # Sent by the page as it is left (a beacon): nobody reads the answer.
    leaving = forms.BooleanField(required=False)

    def __init__(self, *args, draft: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.draft = draft

    def clean_code(self) -> str:
        code = self.cleaned_data["code"].replace("\r\n", "\n")
        if not self.draft and not code.strip():
            raise forms.ValidationError(_("There is no code to submit: write some first."))
        return code
