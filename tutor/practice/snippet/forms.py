"""What a learner sends about a snippet: a prediction, their version to run, a draft of it,
and whether they got it after saying it out loud."""

from django import forms

from tutor.forms import LinesField
from tutor.practice.snippet.state import MAX_PREDICTION_CHARS

MAX_CODE_CHARS = 20_000
MAX_STDIN_CHARS = 20_000


class PredictionForm(forms.Form):
    text = LinesField(
        required=False,
        strip=False,
        max_length=MAX_PREDICTION_CHARS,
        error_messages={
            "max_length": f"That prediction is too long: keep it under {MAX_PREDICTION_CHARS:,} characters."
        },
    )
    mode = forms.ChoiceField(choices=[("typed", "Reveal"), ("aloud", "I said it out loud")], required=False)

    def clean(self):
        data = super().clean()
        if data.get("mode") != "aloud" and not data.get("text", "").strip() and not self.errors:
            raise forms.ValidationError(
                "Type what you think it prints first, or choose “I said it out loud”."
            )
        return data


class CodeForm(forms.Form):
    # Optional: what the learner says their version will print, checked against this run.
    prediction = LinesField(
        required=False,
        strip=False,
        max_length=MAX_PREDICTION_CHARS,
        error_messages={
            "max_length": f"That prediction is too long: keep it under {MAX_PREDICTION_CHARS:,} characters."
        },
    )
    code = forms.CharField(
        strip=False,
        max_length=MAX_CODE_CHARS,
        error_messages={
            "required": "There is no code to run: write some, or reset to the original.",
            "max_length": f"That code is too long to run: keep it under {MAX_CODE_CHARS:,} characters.",
        },
    )
    stdin = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_STDIN_CHARS,
        error_messages={
            "max_length": f"That input is too long: keep it under {MAX_STDIN_CHARS:,} characters."
        },
    )

    def clean_code(self) -> str:
        code = self.cleaned_data["code"].replace("\r\n", "\n")
        if not code.strip():
            raise forms.ValidationError(self.fields["code"].error_messages["required"])
        return code

    def clean_stdin(self) -> str:
        return self.cleaned_data["stdin"].replace("\r\n", "\n")


class DraftForm(forms.Form):
    code = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_CODE_CHARS,
        error_messages={
            "max_length": f"That code is too long to save: keep it under {MAX_CODE_CHARS:,} characters."
        },
    )
    reset = forms.BooleanField(required=False)
    # Sent by the page as it is left (a beacon): nobody reads the answer.
    leaving = forms.BooleanField(required=False)


SAY_WHETHER = "Say whether you got it: “I got it” or “I didn't”."


class SelfCheckForm(forms.Form):
    got_it = forms.ChoiceField(
        choices=[("yes", "I got it"), ("no", "I didn't")],
        error_messages={"required": SAY_WHETHER, "invalid_choice": SAY_WHETHER},
    )
