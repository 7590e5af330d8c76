"""The admin's pages for quiz attempts (imported by tutor/admin.py): to read, and to mend
by hand when needed (a student's answers stay the rows they are)."""

from django.contrib import admin

from tutor.quizzes.models import QuizAnswer, QuizAttempt


class QuizAnswerInline(admin.TabularInline):
    model = QuizAnswer
    extra = 0
    raw_id_fields = ["block"]
    readonly_fields = ["answer", "score", "right", "variant", "expected", "saved_at", "checked_at"]


@admin.register(QuizAttempt)
class QuizAttemptAdmin(admin.ModelAdmin):
    list_display = ["student", "assignment", "number", "started_at", "ends_at", "submitted_at", "score"]
    list_filter = ["assignment__cohort"]
    search_fields = ["student__username", "assignment__lesson__title"]
    list_select_related = ["student", "assignment__lesson", "assignment__cohort"]
    raw_id_fields = ["student", "assignment"]
    inlines = [QuizAnswerInline]
