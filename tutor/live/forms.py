"""What the live view's POSTs may carry."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tutor.live.models import LiveSettings


class LiveSettingsForm(forms.ModelForm):
    class Meta:
        model = LiveSettings
        fields = ["stuck_failures", "stuck_minutes"]
        widgets = {
            "stuck_failures": forms.NumberInput(
                attrs={"min": 1, "max": 50, "class": "number-input"}
            ),
            "stuck_minutes": forms.NumberInput(
                attrs={"min": 1, "max": 240, "class": "number-input"}
            ),
        }


class HandForm(forms.Form):
    """The learner's button: raise their hand, or lower it."""

    hand = forms.ChoiceField(choices=[("raise", _("Raise")), ("lower", _("Lower"))])
    # The item it is about: a block of the lesson (checked in the view); empty: the lesson.
    block = forms.IntegerField(required=False, min_value=1)


class ClearHandsForm(forms.Form):
    """The teacher's buttons: one student's hand, or every hand."""

    student = forms.IntegerField(required=False, min_value=1)
    all = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        if not data.get("all") and data.get("student") is None:
            raise forms.ValidationError(_("Say whose hand to clear, or clear every hand."))
        return data
