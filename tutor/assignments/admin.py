"""The admin's pages for assignments and extensions (imported by tutor/admin.py)."""

from django.contrib import admin

from tutor.assignments.models import Assignment, Extension


class ExtensionInline(admin.TabularInline):
    model = Extension
    extra = 0
    raw_id_fields = ["student"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["lesson", "cohort", "whole_lesson", "quiz", "opens_at", "due_at", "closed_at"]
    list_filter = ["whole_lesson", "quiz", "cohort"]
    search_fields = ["lesson__title", "cohort__name", "cohort__teacher__username"]
    list_select_related = ["lesson__course", "cohort"]
    raw_id_fields = ["cohort", "lesson", "blocks"]
    inlines = [ExtensionInline]


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin):
    list_display = ["student", "assignment", "due_at", "granted_at"]
    search_fields = ["student__username", "assignment__lesson__title"]
    list_select_related = ["student", "assignment__lesson", "assignment__cohort"]
    raw_id_fields = ["student", "assignment"]
