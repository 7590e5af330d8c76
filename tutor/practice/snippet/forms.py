"""What a learner sends about a snippet: a prediction, their version to run, a draft of it,
and whether they got it after saying it out loud."""

import json

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tutor.forms import LinesField, grouped_number
from tutor.practice.snippet.state import MAX_PREDICTION_CHARS

MAX_CODE_CHARS = 20_000
MAX_STDIN_CHARS = 20_000


class PredictionForm(forms.Form):
    text = LinesField(
        required=False,
        strip=False,
        max_length=MAX_PREDICTION_CHARS,
        error_messages={
            "max_length": format_lazy(
                gettext_lazy("That prediction is too long: keep it under {limit} characters."),
                limit=grouped_number(MAX_PREDICTION_CHARS),
            )
        },
    )
    mode = forms.ChoiceField(
        choices=[("typed", gettext_lazy("Reveal")), ("aloud", gettext_lazy("I said it out loud"))],
        required=False,
    )

    def clean(self):
        data = super().clean()
        if data.get("mode") != "aloud" and not data.get("text", "").strip() and not self.errors:
            raise forms.ValidationError(
                _("Type what you think it prints first, or choose “I said it out loud”.")
            )
        return data


class CodeForm(forms.Form):
    # Optional: what the learner says their version will print, checked against this run.
    prediction = LinesField(
        required=False,
        strip=False,
        max_length=MAX_PREDICTION_CHARS,
        error_messages={
            "max_length": format_lazy(
                gettext_lazy("That prediction is too long: keep it under {limit} characters."),
                limit=grouped_number(MAX_PREDICTION_CHARS),
            )
        },
    )
    code = forms.CharField(
        strip=False,
        max_length=MAX_CODE_CHARS,
        error_messages={
            "required": gettext_lazy(
                "There is no code to run: write some, or reset to the original."
            ),
            "max_length": format_lazy(
                gettext_lazy("That code is too long to run: keep it under {limit} characters."),
                limit=grouped_number(MAX_CODE_CHARS),
            ),
        },
    )
    stdin = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_STDIN_CHARS,
        error_messages={
            "max_length": format_lazy(
                gettext_lazy("That input is too long: keep it under {limit} characters."),
                limit=grouped_number(MAX_STDIN_CHARS),
            )
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
            "max_length": format_lazy(
                gettext_lazy("That code is too long to save: keep it under {limit} characters."),
                limit=grouped_number(MAX_CODE_CHARS),
            )
        },
    )
    reset = forms.BooleanField(required=False)
    # Sent by the page as it is left (a beacon): nobody reads the answer.
    leaving = forms.BooleanField(required=False)


SAY_WHETHER = gettext_lazy("Say whether you got it: “I got it” or “I didn't”.")


class SelfCheckForm(forms.Form):
    got_it = forms.ChoiceField(
        choices=[("yes", gettext_lazy("I got it")), ("no", gettext_lazy("I didn't"))],
        error_messages={"required": SAY_WHETHER, "invalid_choice": SAY_WHETHER},
    )


MAX_BROWSER_RUNS = 10  # in one report; the page sends them every few seconds
# killed: stopped by the learner (the Stop button).
BROWSER_STATUSES = ("ok", "error", "timeout", "memory", "output_limit", "killed")
NOT_A_REPORT = "That is not a report of runs in the browser."


class BrowserRunsForm(forms.Form):
    """The runs the learner's browser made of their version of a snippet since its last
    report (static/js/browser-run.js): `runs`, a JSON list, each with the code and input it
    ran and what it printed. A record of what they saw: nothing in it is believed beyond that.

    `output_bytes` is the snippet's output cap: a browser run printed no more than that."""

    runs = forms.CharField(strip=False, error_messages={"required": NOT_A_REPORT})

    def __init__(self, *args, output_bytes: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.output_bytes = output_bytes

    def clean_runs(self) -> list[dict]:
        try:
            runs = json.loads(self.cleaned_data["runs"])
        except ValueError:
            raise forms.ValidationError(NOT_A_REPORT) from None
        if not isinstance(runs, list) or not runs:
            raise forms.ValidationError(NOT_A_REPORT)
        if len(runs) > MAX_BROWSER_RUNS:
            raise forms.ValidationError(f"At most {MAX_BROWSER_RUNS} runs in one report.")
        return [self.clean_run(run) for run in runs]

    def clean_run(self, run) -> dict:
        if not isinstance(run, dict):
            raise forms.ValidationError(NOT_A_REPORT)
        texts = {name: run.get(name, "") for name in ("code", "stdin", "stdout", "stderr")}
        if not all(isinstance(text, str) for text in texts.values()):
            raise forms.ValidationError(NOT_A_REPORT)
        texts = {name: text.replace("\r\n", "\n") for name, text in texts.items()}
        if not texts["code"].strip() or len(texts["code"]) > MAX_CODE_CHARS:
            raise forms.ValidationError("A run's code is empty or too long.")
        if len(texts["stdin"]) > MAX_STDIN_CHARS:
            raise forms.ValidationError("A run's input is too long.")
        printed = len(texts["stdout"].encode("utf-8", "replace")) + len(
            texts["stderr"].encode("utf-8", "replace")
        )
        if printed > self.output_bytes:
            raise forms.ValidationError("A run's output is longer than a run may print.")
        status, exit_code, duration = (
            run.get("status"),
            run.get("exit_code"),
            run.get("duration_ms"),
        )
        if status not in BROWSER_STATUSES:
            raise forms.ValidationError("A run's status is not one a browser run can have.")
        if exit_code is not None and (
            type(exit_code) is not int or not -(2**31) <= exit_code < 2**31
        ):
            raise forms.ValidationError(NOT_A_REPORT)
        if type(duration) is not int or not 0 <= duration <= 10 * 60 * 1000:
            raise forms.ValidationError(NOT_A_REPORT)
        return {**texts, "status": status, "exit_code": exit_code, "duration_ms": duration,
                "truncated": run.get("truncated") is True}  # fmt: skip
