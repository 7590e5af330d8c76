"""Admin forms that keep content text exactly as written, and learners' work whole.

Django's form fields strip leading and trailing white space, and browsers send a
textarea's line breaks as CRLF: one Save of an unchanged form would then drop a snippet
output's leading empty line, the indentation of an ordering line, and bump the snippet's
version. Text fields here keep every character, and read CRLF as a line break.
"""

import re

from django import forms
from django.db import models

from course.learner_work import learner_work

_LINE_BREAK = re.compile(r"\r\n?")


class ExactText(forms.CharField):
    """Text kept as typed: no stripping; a textarea's CRLF (and CR) is a line break."""

    def __init__(self, *, strip: bool = False, **kwargs):
        super().__init__(strip=strip, **kwargs)

    @property
    def multiline(self) -> bool:
        return isinstance(self.widget, forms.Textarea)

    def to_python(self, value):
        value = super().to_python(value)
        if isinstance(value, str) and self.multiline:
            value = _LINE_BREAK.sub("\n", value)
        return value

    def as_sent(self, value: str) -> str:
        """`value` as a browser sends it back from this field, read by `to_python`: a
        textarea turns every CR into a line break, a one-line input drops line breaks."""
        if self.multiline:
            return _LINE_BREAK.sub("\n", value)
        return value.replace("\r", "").replace("\n", "")

    def has_changed(self, initial, data) -> bool:
        if self.disabled:
            return False
        return self.as_sent(initial or "") != (self.to_python(data) or "")


class ContentForm(forms.ModelForm):
    """Saving what the form showed, unchanged, changes nothing.

    Text a browser cannot send back as stored (a CR inside a line, a line break in a
    one-line field, both only ever written in the content files) keeps its stored value
    unless the person changed the field."""

    def clean(self):
        data = super().clean()
        for name, field in self.fields.items():
            if not isinstance(field, ExactText) or not isinstance(data.get(name), str):
                continue
            initial = self.get_initial_for_field(field, name)
            if isinstance(initial, str) and field.as_sent(initial) == data[name]:
                data[name] = initial
        return data


class KeepsTextExactly:
    """For the content admins and their inlines: text fields are ExactText, the form a
    ContentForm."""

    form = ContentForm

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if type(db_field) in (models.CharField, models.TextField) and not db_field.choices:
            kwargs.setdefault("form_class", ExactText)
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class KeepsLearnerWork(forms.BaseInlineFormSet):
    """An inline of content rows: ticking Delete on a row learners' work points at (or on
    one whose deletion would take such a row with it) is refused, naming the work."""

    def clean(self):
        # Before Django's own check, which names every learner row it would delete.
        doomed = [
            form.instance
            for form in self.forms
            if form.instance.pk is not None and getattr(form, "cleaned_data", {}).get("DELETE")
        ]
        refusals = [
            f"{work} points at it, so it cannot be deleted: untick its Delete box "
            "(you may change everything else)."
            for work in learner_work(doomed)
        ]
        if refusals:
            raise forms.ValidationError(refusals)
        super().clean()


class OrderingLineFormSet(KeepsLearnerWork):
    """Learners' attempts name lines by key: a line they name keeps its key."""

    def clean(self):
        super().clean()
        renamed = {
            form.instance.pk: form
            for form in self.forms
            if form.instance.pk is not None and "key" in form.changed_data
        }
        stored = self.model._default_manager.filter(pk__in=renamed)
        for work in learner_work(list(stored)):
            renamed[work.row.pk].add_error(
                "key",
                f"{work} names this line by its key '{work.row.key}': keep the key "
                "(you may change the text).",
            )
