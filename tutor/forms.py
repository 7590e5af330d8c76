"""Forms the views validate with before they call an action: accounts, classes, and fields
any practice kind's forms share. A practice kind's own forms live in its folder
(tutor/practice/<kind>/forms.py)."""

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm, UserCreationForm
from django.contrib.auth.models import User
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from tutor.actions.classes import JOIN_CODE_LENGTH
from tutor.time_zones import zone_names
from tutor.usernames import look_alike, mixes_look_alike_scripts


def _grouped(number: int) -> str:
    return number_format(number, force_grouping=True)


# `number` as the page's language groups it ("20,000"; German "20.000"), written when the
# text is shown: a form's messages are made once, at import, for every language.
grouped_number = lazy(_grouped, str)


# Accounts: signing up, and the admin's user pages ---------------------------------------


def refuse_look_alike(username: str) -> None:
    other = look_alike(username)
    if other is not None:
        raise forms.ValidationError(
            _(
                "“%(username)s” looks just like the username “%(other)s”, which is taken: "
                "some of its letters only look like theirs. Please choose another username."
            ),
            code="look_alike",
            params={"username": username, "other": other},
        )
    if mixes_look_alike_scripts(username):
        raise forms.ValidationError(
            _(
                "This username mixes letters from different alphabets that look alike. "
                "Please write it in one alphabet."
            ),
            code="mixed_scripts",
        )


def unused_email(email: str, *, account: User | None = None) -> str:
    """One account per address, whatever its case: a password reset mails one account."""
    email = User.objects.normalize_email((email or "").strip())
    others = User.objects.filter(email__iexact=email)
    if account is not None and account.pk:
        others = others.exclude(pk=account.pk)
    if email and others.exists():
        raise forms.ValidationError(
            _(
                "An account already uses this e-mail address. If it is yours, log in or "
                "reset its password instead."
            ),
            code="email_taken",
        )
    return email


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        help_text=_("Optional: only used to reset your password."),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "first_name", "email")
        # One "display name" kept in first_name: teachers' pages show it beside the username.
        labels = {"first_name": _("Your name")}
        help_texts = {"first_name": _("Optional: shown to the teachers of classes you join.")}

    def clean_username(self) -> str | None:
        # Django's own check first: NFKC-normalised, and not an existing name in other case.
        username = super().clean_username()
        if username:
            refuse_look_alike(username)
        return username

    def clean_email(self) -> str:
        return unused_email(self.cleaned_data.get("email", ""))


class AccountCreationForm(AdminUserCreationForm):
    """The admin's "Add user": the same rules for names as signing up."""

    def clean_username(self) -> str | None:
        username = super().clean_username()
        if username:
            refuse_look_alike(username)
        return username


class AccountChangeForm(UserChangeForm):
    """The admin's user page: an address already on another account is refused."""

    def clean_email(self) -> str:
        return unused_email(self.cleaned_data.get("email", ""), account=self.instance)


# Classes: create one, join one -------------------------------------------------------


class ClassForm(forms.Form):
    name = forms.CharField(label=_("Class name"), max_length=100)


class ClassTimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_(
            "Due dates are shown and typed in it by anyone whose browser does not say its own."
        ),
        error_messages={
            "invalid_choice": _("Choose a time zone from the list, e.g. Europe/London.")
        },
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [(name, name) for name in zone_names()]


class ClassLanguageForm(forms.Form):
    language = forms.ChoiceField(
        label=_("Language"),
        choices=[("", _("Each student's browser's")), *settings.LANGUAGES],
        required=False,
        help_text=_("The language its students' pages speak unless they choose their own."),
        error_messages={"invalid_choice": _("Choose a language from the list.")},
    )


class JoinForm(forms.Form):
    code = forms.CharField(
        label=_("Join code"),
        max_length=20,
        help_text=format_lazy(_("{n} letters and digits, from your teacher."), n=JOIN_CODE_LENGTH),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )


# Fields practice kinds' forms share ----------------------------------------------------


class LinesField(forms.CharField):
    """Text whose line breaks are counted as the browser counts them (one character each),
    so what the textarea allowed is not refused as too long once sent as CRLF."""

    def to_python(self, value) -> str:
        return super().to_python(value).replace("\r\n", "\n")
