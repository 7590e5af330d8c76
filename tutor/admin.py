from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from course.admin import LessonAdmin
from course.models import Lesson
from tutor import sandbox
from tutor.content_check import check_snippets, snippets_in_order
from tutor.models import (
    Cohort,
    LessonProgress,
    Membership,
    OrderingAttempt,
    Prediction,
    Run,
)

# The content admin lives in `course`; running snippets needs the sandbox, which is
# this app's. So the Lesson admin gains its "Check outputs" action here.
admin.site.unregister(Lesson)


@admin.register(Lesson)
class LessonWithChecksAdmin(LessonAdmin):
    actions = ["check_outputs"]

    @admin.action(description="Check outputs: run the snippets and compare with what they declare")
    def check_outputs(self, request: HttpRequest, lessons: QuerySet[Lesson]) -> None:
        try:
            checks = check_snippets(snippets_in_order().filter(block__lesson__in=lessons))
        except sandbox.SandboxUnavailable as exc:
            self.message_user(request, f"Could not run the snippets: {exc}", messages.ERROR)
            return
        wrong = [check for check in checks if not check.matches]
        for check in wrong:
            self.message_user(
                request, f"{check.where}: {'; '.join(check.problems)}.", messages.ERROR
            )
        if not wrong:
            self.message_user(
                request, f"All {len(checks)} snippets print what they declare.", messages.SUCCESS
            )


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["pk", "user", "purpose", "status", "duration_ms", "created_at"]
    list_filter = ["status", "purpose"]
    search_fields = ["user__username", "code"]
    list_select_related = ["user"]
    readonly_fields = [field.name for field in Run._meta.fields]


@admin.register(Prediction)
class PredictionAdmin(admin.ModelAdmin):
    list_display = ["user", "snippet", "snippet_version", "verdict", "is_first", "created_at"]
    list_filter = ["verdict", "is_first"]
    search_fields = ["user__username", "text"]
    list_select_related = ["user", "snippet__block__lesson"]


@admin.register(OrderingAttempt)
class OrderingAttemptAdmin(admin.ModelAdmin):
    list_display = ["user", "exercise", "verdict", "lines_in_place", "help_used", "created_at"]
    list_filter = ["verdict"]
    list_select_related = ["user", "exercise__block__lesson"]


@admin.register(LessonProgress)
class LessonProgressAdmin(admin.ModelAdmin):
    list_display = ["user", "lesson", "percent", "completed_at", "updated_at"]
    list_filter = ["lesson__course", "lesson"]
    list_select_related = ["user", "lesson"]


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["student"]


@admin.register(Cohort)
class CohortAdmin(admin.ModelAdmin):
    list_display = ["name", "teacher", "join_code", "created_at"]
    search_fields = ["name", "join_code", "teacher__username"]
    inlines = [MembershipInline]
