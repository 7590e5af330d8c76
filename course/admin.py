from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from course.forms import KeepsLearnerWork, KeepsTextExactly, OrderingLineFormSet
from course.learner_work import learner_work
from course.models import (
    Block,
    Course,
    GlossaryTerm,
    Lesson,
    OrderingExercise,
    OrderingLine,
    Snippet,
)


class ContentAdmin(KeepsTextExactly, admin.ModelAdmin):
    """Text kept exactly; Delete refused, naming the work, while learners' work points at
    the content or at anything its deletion would take with it."""

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        work = learner_work(objs)
        if work:
            # What the learners did, counted, instead of every one of their rows by name.
            protected = [f"{found} points at it." for found in work]
        return deleted, counts, perms_needed, protected


class LessonInline(KeepsTextExactly, admin.TabularInline):
    model = Lesson
    formset = KeepsLearnerWork
    fields = ["position", "title", "slug", "status", "level"]
    extra = 0
    show_change_link = True


@admin.register(Course)
class CourseAdmin(ContentAdmin):
    list_display = ["title", "slug", "status", "position"]
    list_editable = ["status", "position"]
    list_filter = ["status"]
    search_fields = ["title", "summary"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [LessonInline]


class BlockInline(KeepsTextExactly, admin.StackedInline):
    model = Block
    formset = KeepsLearnerWork
    fields = [("position", "kind", "key"), "title", "body", "items", "practice"]
    readonly_fields = ["practice"]
    extra = 0
    ordering = ["position"]

    @admin.display(description="Snippet / exercise")
    def practice(self, block: Block) -> str:
        for attr, name in (("snippet", "snippet"), ("exercise", "orderingexercise")):
            target = getattr(block, attr, None)
            if target is not None and target.pk:
                url = reverse(f"admin:course_{name}_change", args=[target.pk])
                return format_html('<a href="{}">Edit the {} “{}”</a>', url, attr, block.key)
        return "—"


@admin.register(Lesson)
class LessonAdmin(ContentAdmin):
    list_display = ["title", "course", "status", "position", "level"]
    list_editable = ["status"]
    list_filter = ["status", "course", "level"]
    list_select_related = ["course"]
    search_fields = ["title", "summary", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    filter_horizontal = ["terms"]
    inlines = [BlockInline]


@admin.register(Snippet)
class SnippetAdmin(ContentAdmin):
    list_display = ["__str__", "caption", "version"]
    list_filter = ["block__lesson__course", "block__lesson"]
    list_select_related = ["block__lesson"]
    search_fields = ["caption", "code", "block__key"]
    readonly_fields = ["version"]
    fields = [
        "block", "caption", "language", "code", "stdin", "expected_output", "raises",
        "run_limits", "version",
    ]

    def view_on_site(self, snippet: Snippet) -> str:
        return snippet.block.lesson.get_absolute_url() + f"#snippet-{snippet.block.key}"


class OrderingLineInline(KeepsTextExactly, admin.TabularInline):
    model = OrderingLine
    formset = OrderingLineFormSet
    fk_name = "exercise"
    fields = ["position", "key", "text", "depends_on"]
    extra = 0
    ordering = ["position"]


@admin.register(OrderingExercise)
class OrderingExerciseAdmin(ContentAdmin):
    list_display = ["__str__", "grading"]
    list_filter = ["grading", "block__lesson__course"]
    list_select_related = ["block__lesson"]
    search_fields = ["intro", "block__key", "lines__text"]
    inlines = [OrderingLineInline]

    def view_on_site(self, exercise: OrderingExercise) -> str:
        return exercise.block.lesson.get_absolute_url() + f"#exercise-{exercise.block.key}"


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(ContentAdmin):
    list_display = ["term", "slug"]
    search_fields = ["term", "definition", "slug"]
    prepopulated_fields = {"slug": ["term"]}
    filter_horizontal = ["see_also"]
