"""The teacher's side of review: turn it on or off for a class, and see the class's
retention by item. The views check, themselves, that the user teaches the class (403 for
students, 404 for another teacher's class: tutor.roles.taught_class)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from tutor.review import retention
from tutor.roles import taught_class


class ClassReviewForm(forms.Form):
    review = forms.ChoiceField(
        choices=[("on", gettext_lazy("On")), ("off", gettext_lazy("Off"))],
        error_messages={"required": gettext_lazy("Say whether review is on or off."),
                        "invalid_choice": gettext_lazy("Say whether review is on or off.")},
    )


@require_GET
@login_required
def class_review(request: HttpRequest, pk: int) -> TemplateResponse:
    cohort = taught_class(request, pk)
    context = {"cohort": cohort, "retention": retention.of_class(cohort)}
    return TemplateResponse(request, "tutor/review/class_review.html", context)


@require_POST
@login_required
def class_review_switch(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = taught_class(request, pk)
    form = ClassReviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, form.errors["review"][0])
        return redirect("tutor:class_review", cohort.pk)
    cohort.review = form.cleaned_data["review"] == "on"
    cohort.save(update_fields=["review"])
    if cohort.review:
        messages.success(request, _("Review is on for “%(name)s”: its students see what is due on the Review page.") % {"name": cohort.name})
    else:
        messages.success(request, _("Review is off for “%(name)s”.") % {"name": cohort.name})
    return redirect("tutor:class_review", cohort.pk)
