from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET
from django_q import admin as queue_admin
from django_q.models import Failure, Success

from course.admin import LessonAdmin
from course.models import Lesson
from tutor import practice
from tutor.forms import AccountChangeForm, AccountCreationForm
from tutor.models import (
    Cohort,
    LessonProgress,
    Membership,
    Run,
)
from tutor.practice.ordering.models import OrderingAttempt, OrderingHelp
from tutor.practice.snippet.models import Prediction, VersionPrediction
from tutor.roles import TEACHERS_GROUP


# django-q2's "Resubmit" puts tasks back on the worker's queue: only for staff who may
# change them (its own action asks for no permission at all).
@admin.action(description=gettext_lazy("Resubmit selected tasks to queue"), permissions=["change"])
def resubmit_task(model_admin, request: HttpRequest, queryset: QuerySet) -> None:
    queue_admin.resubmit_task(model_admin, request, queryset)


for _model, _admin_class in ((Success, queue_admin.TaskAdmin), (Failure, queue_admin.FailAdmin)):
    admin.site.unregister(_model)
    admin.site.register(_model, type(_admin_class.__name__, (_admin_class,), {"actions": [resubmit_task]}))

# django-axes' "Clean up expired attempts" deletes rows: only for staff who may delete them.
admin.site.unregister(AccessAttempt)


@admin.register(AccessAttempt)
class LoginAttemptAdmin(AccessAttemptAdmin):
    @admin.action(description=gettext_lazy("Clean up expired attempts"), permissions=["delete"])
    def cleanup_expired_attempts(self, request: HttpRequest, queryset: QuerySet) -> None:
        super().cleanup_expired_attempts(request, queryset)


class SaysWhenNothingChanged:
    """A change form saved as it was shown says "nothing changed", not "was changed
    successfully" (Django says so whatever the form held): the admin's own change message,
    empty when no field and no inline changed, decides."""

    def construct_change_message(self, request, form, formsets, add=False):
        message = super().construct_change_message(request, form, formsets, add)
        if not add and not message:
            request.admin_saved_unchanged = form.instance
        return message

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        unchanged = getattr(request, "admin_saved_unchanged", None)
        if unchanged is not None and level == messages.SUCCESS:
            level = messages.INFO
            message = format_html(
                _("Nothing changed: the {} “{}” is as it was."),
                unchanged._meta.verbose_name,
                unchanged,
            )
        super().message_user(request, message, level, *args, **kwargs)


# Accounts made or edited in the admin follow the sign-up rules: no look-alike of a taken
# username, one account per e-mail address.
admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(SaysWhenNothingChanged, UserAdmin):
    form = AccountChangeForm
    add_form = AccountCreationForm


# A results page names the runs it shows; more than this is not one admin's selection.
MAX_CHECKED_RUNS = 1000


# The content admin lives in `course`; running snippets needs the worker, which is this
# app's. So the Lesson admin is registered here, with its "Check outputs" action.
@admin.register(Lesson)
class LessonWithChecksAdmin(SaysWhenNothingChanged, LessonAdmin):
    actions = ["check_outputs"]

    def get_urls(self):
        results = path(
            "check-outputs/",
            self.admin_site.admin_view(self.check_outputs_results),
            name="course_lesson_check_outputs",
        )
        return [results, *super().get_urls()]

    # Running code is changing content's standing: view-only staff may not start it.
    @admin.action(
        description=gettext_lazy("Check outputs: run the snippets and compare with what they declare"),
        permissions=["change"],
    )
    def check_outputs(self, request: HttpRequest, lessons: QuerySet[Lesson]) -> None:
        """Every kind that can check its content queues its checks for the worker."""
        queued = [
            (kind, runs)
            for kind in practice.every()
            if kind.checks_content and (runs := kind.queue_content_checks(lessons=lessons))
        ]
        if not queued:
            self.message_user(
                request, _("These lessons have no snippets or code exercises to check."), messages.WARNING
            )
            return
        url = reverse("admin:course_lesson_check_outputs") + "?runs=" + ",".join(
            str(run.pk) for _, runs in queued for run in runs
        )
        self.message_user(
            request,
            format_html(
                _('{} <a href="{}">See the results</a>.'),
                " ".join(kind.queued_words(queued=runs) for kind, runs in queued),
                url,
            ),
            messages.INFO,
        )

    @staticmethod
    def _run_ids(request: HttpRequest) -> list[int]:
        raw = request.GET.get("runs", "")
        ids = [part for part in raw.split(",") if part]
        if not ids or len(ids) > MAX_CHECKED_RUNS or not all(part.isdigit() for part in ids):
            return []
        return [int(part) for part in ids]

    @method_decorator(require_GET)
    def check_outputs_results(self, request: HttpRequest) -> TemplateResponse:
        """What the queued checks found; the page reloads itself until every run is final."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        run_ids = self._run_ids(request)
        parts = []  # each kind's checks among these runs, reported by its own template
        for kind in practice.every():
            checks = kind.queued_content_checks(run_ids) if kind.checks_content else []
            if checks:
                parts.append({
                    "template": kind.check_template,
                    "checks": checks,
                    "pending": sum(check.pending for check in checks),
                    "wrong": sum(not check.pending and not check.ok for check in checks),
                })  # fmt: skip
        context = {
            **self.admin_site.each_context(request),
            "title": _("Check outputs"),
            "opts": self.opts,
            "parts": parts,
            "pending": sum(part["pending"] for part in parts),
        }
        return TemplateResponse(request, "admin/course/lesson/check_outputs.html", context)


class LearnersRecordAdmin(admin.ModelAdmin):
    """What learners did (runs, predictions, checks, help, progress) is their record:
    staff read it here, nobody adds or edits it by hand (progress is recounted from it).
    Deleting stays possible, for a record removed on request."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Run)
class RunAdmin(LearnersRecordAdmin):
    list_display = ["pk", "user", "purpose", "status", "duration_ms", "created_at"]
    list_filter = ["status", "purpose"]
    search_fields = ["user__username", "code"]
    list_select_related = ["user"]
    readonly_fields = [field.name for field in Run._meta.fields]


@admin.register(Prediction)
class PredictionAdmin(LearnersRecordAdmin):
    list_display = ["user", "snippet", "snippet_version", "verdict", "is_first", "created_at"]
    list_filter = ["verdict", "is_first"]
    search_fields = ["user__username", "text"]
    list_select_related = ["user", "snippet__block__lesson"]


@admin.register(OrderingAttempt)
class OrderingAttemptAdmin(LearnersRecordAdmin):
    list_display = ["user", "exercise", "verdict", "lines_in_order", "help_used", "created_at"]
    list_filter = ["verdict"]
    list_select_related = ["user", "exercise__block__lesson"]

    @admin.display(description=gettext_lazy("Lines in order"), ordering="lines_in_place")
    def lines_in_order(self, attempt: OrderingAttempt) -> int:
        """In order with each other, not necessarily each at its exact place."""
        return attempt.lines_in_place


@admin.register(OrderingHelp)
class OrderingHelpAdmin(LearnersRecordAdmin):
    list_display = ["user", "exercise", "given", "line_key", "created_at"]
    list_filter = ["given"]
    list_select_related = ["user", "exercise__block__lesson"]


@admin.register(LessonProgress)
class LessonProgressAdmin(LearnersRecordAdmin):
    list_display = ["user", "lesson", "percent", "completed_at", "updated_at"]
    list_filter = ["lesson__course", "lesson"]
    list_select_related = ["user", "lesson"]


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["student"]


class CohortAdminForm(forms.ModelForm):
    """The class's form in the admin (its fields are the admin's: ModelAdmin builds it)."""

    def clean(self):
        cleaned = super().clean()
        teacher, co_teachers = cleaned.get("teacher"), cleaned.get("co_teachers")
        if teacher is not None and co_teachers is not None and teacher in co_teachers:
            self.add_error(
                "co_teachers",
                _("%(name)s is the class's teacher already.") % {"name": teacher.get_username()},
            )
        return cleaned


@admin.register(Cohort)
class CohortAdmin(admin.ModelAdmin):
    form = CohortAdminForm
    list_display = ["name", "teacher", "taught_by", "join_code", "created_at"]
    search_fields = ["name", "join_code", "teacher__username", "co_teachers__username"]
    filter_horizontal = ["co_teachers"]
    inlines = [MembershipInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super().get_queryset(request).select_related("teacher").prefetch_related("co_teachers")
        )

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "co_teachers":  # only teachers can teach: the Teachers group, admins
            kwargs["queryset"] = (
                User.objects.filter(Q(groups__name=TEACHERS_GROUP) | Q(is_superuser=True))
                .distinct()
                .order_by("username")
            )
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description=gettext_lazy("Taught by"))
    def taught_by(self, cohort: Cohort) -> str:
        return cohort.taught_by()


@admin.register(VersionPrediction)
class VersionPredictionAdmin(LearnersRecordAdmin):
    list_display = ["user", "snippet", "created_at"]
    search_fields = ["user__username", "text"]
    list_select_related = ["user", "snippet__block__lesson"]
    raw_id_fields = ["run"]


# Assignments keep their admin in their own folder.
from tutor.assignments import admin as assignment_admin  # noqa: E402, F401
from tutor.quizzes import admin as quiz_admin  # noqa: E402, F401
