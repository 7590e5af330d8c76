"""The lesson's admin page "Import questions": a teacher uploads a Moodle XML or GIFT bank,
reads what would be brought over and what would not, then adds the questions after the
lesson's blocks, in the database (a course edited in the admin has no files to review).
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Max
from django.http import HttpRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from course import kinds
from course.models import Block, Lesson
from course.question_banks import Bank, BankRefused, Question, checked
from course.question_banks.gift import read_gift
from course.question_banks.lesson_file import block_key
from course.question_banks.moodle import read_moodle

READERS = {"moodle": read_moodle, "gift": read_gift}


class BankForm(forms.Form):
    bank = forms.FileField(
        label=gettext_lazy("Question bank"),
        help_text=gettext_lazy("Moodle XML or GIFT, at most 20 MB."),
    )
    format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        choices=[
            ("", gettext_lazy("From the file's name")),
            ("moodle", "Moodle XML"),
            ("gift", "GIFT"),
        ],
        required=False,
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        upload = cleaned.get("bank")
        if upload is None:
            return cleaned
        chosen = cleaned.get("format") or (
            "moodle"
            if upload.name.lower().endswith(".xml")
            else "gift"
            if upload.name.lower().endswith((".gift", ".txt"))
            else ""
        )
        if not chosen:
            raise forms.ValidationError(
                _("Choose the bank's format: its name ends in neither .xml nor .gift.")
            )
        try:
            cleaned["read"] = checked(READERS[chosen](upload.read()))
        except BankRefused as error:
            self.add_error("bank", str(error))
        return cleaned


def add_questions(*, lesson: Lesson, questions: list[Question]) -> list[Block]:
    """The questions as blocks after the lesson's last one, each with a key of its own."""
    with transaction.atomic():
        lesson = Lesson.objects.select_for_update().get(pk=lesson.pk)
        taken = set(lesson.blocks.values_list("key", flat=True))
        last = lesson.blocks.aggregate(last=Max("position"))["last"] or 0
        added = []
        for n, question in enumerate(questions, start=1):
            kind = kinds.get(question.kind)
            values = {
                field.name: question.values.get(field.name, field.default) for field in kind.fields
            }
            added.append(
                Block.objects.create(
                    lesson=lesson,
                    kind=question.kind,
                    position=last + n,
                    key=block_key(question.values.get("title") or question.name, taken),
                    **kind.block_columns(values),
                )
            )
    return added


@require_http_methods(["GET", "POST"])
def import_questions(request: HttpRequest, lesson_id: int, *, model_admin) -> TemplateResponse:
    lesson = get_object_or_404(Lesson.objects.select_related("course"), pk=lesson_id)
    if not model_admin.has_change_permission(request, lesson):
        raise PermissionDenied
    form = BankForm(request.POST or None, request.FILES or None)
    read: Bank | None = None
    if request.method == "POST" and form.is_valid():
        read = form.cleaned_data["read"]
        if "_import" in request.POST and read.questions:
            added = add_questions(lesson=lesson, questions=read.questions)
            messages.success(
                request,
                ngettext(
                    "Added %(count)d question after the lesson's blocks.",
                    "Added %(count)d questions after the lesson's blocks.",
                    len(added),
                )
                % {"count": len(added)},
            )
            for line in read.report():
                messages.warning(request, line)
            return redirect("admin:course_lesson_change", lesson.pk)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": Lesson._meta,
        "lesson": lesson,
        "form": form,
        "read": read,
        "title": _("Import questions into “%(lesson)s”") % {"lesson": lesson.title},
    }
    return TemplateResponse(request, "admin/course/lesson/import_questions.html", context)
