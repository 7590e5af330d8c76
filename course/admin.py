from functools import partial

import nested_admin
from django.contrib import admin
from django.forms import modelform_factory
from django.http import QueryDict
from django.urls import path
from django.utils.translation import gettext as _

from course import kinds
from course.admin_errors import page_errors
from course.content_files.importer import link_term
from course.forms import (
    BlockForm,
    BlockFormSet,
    CourseForm,
    GlossaryTermForm,
    KeepsLearnerWork,
    KeepsTextExactly,
    LessonForm,
)
from course.kinds.ordering import OrderingExercise
from course.kinds.snippet import Snippet
from course.learner_work import learner_work
from course.models import (
    Block,
    Course,
    GlossaryTerm,
    Lesson,
)
from course.question_banks.upload import import_questions
from course.templatetags.lesson_admin import BLANK_INLINES

# Where a kind's fields, copied for a block, put the block's own prefix ("blocks-3").
KIND_FIELDS_PREFIX = "__block__"

kinds.discover()  # the admin may be loaded before course's ready(): the inlines need the kinds


class CopiedCheaply(QueryDict):
    """A form's data whose copy copies each field's list of values, not the values: they
    are strings, which no copy can change (QueryDict.copy deep-copies every one)."""

    def __init__(self, data: QueryDict):
        super().__init__(mutable=True, encoding=data.encoding)
        for key, values in data.lists():
            dict.__setitem__(self, key, list(values))
        self._mutable = data._mutable

    def copy(self) -> QueryDict:
        copied = QueryDict(mutable=True, encoding=self.encoding)
        for key, values in self.lists():
            dict.__setitem__(copied, key, list(values))
        return copied


class ContentAdmin(KeepsTextExactly, admin.ModelAdmin):
    """Text kept exactly; Delete refused, naming the work, while learners' work points at
    the content or at anything its deletion would take with it."""

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        work = learner_work(objs)
        if work:
            # What the learners did, counted, instead of every one of their rows by name.
            protected = [_("%(work)s points at it.") % {"work": found} for found in work]
        return deleted, counts, perms_needed, protected


class LessonInline(KeepsTextExactly, admin.TabularInline):
    model = Lesson
    formset = KeepsLearnerWork
    fields = ["position", "title", "slug", "status", "level"]
    extra = 0
    show_change_link = True


@admin.register(Course)
class CourseAdmin(ContentAdmin):
    form = CourseForm
    list_display = ["title", "slug", "status", "position"]
    list_editable = ["status", "position"]
    list_filter = ["status"]
    search_fields = ["title", "summary"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [LessonInline]


class BlockInline(KeepsTextExactly, nested_admin.NestedStackedInline):
    """Every block of the lesson in page order, each with its snippet or exercise (and the
    exercise's lines) edited in place."""

    model = Block
    form = BlockForm
    formset = BlockFormSet
    fields = [("position", "kind", "key"), "title", "body"]
    # Then the kind's own fields, which differ from block to block (BlockForm.own_fieldset).
    fieldset_template = "admin/course/block_fields.html"
    # Each block folded under its heading, open where it holds an error.
    template = "admin/course/block_inline.html"
    extra = 0
    ordering = ["position", "pk"]
    # Each kind declares its own (course.kinds.BlockKind.admin_inline).
    inlines = kinds.admin_inlines()


# Registered by tutor/admin.py, which adds "Check outputs": running snippets needs the
# worker, which is tutor's.
class LessonAdmin(nested_admin.NestedModelAdminMixin, ContentAdmin):
    form = LessonForm
    list_display = ["title", "course", "status", "position", "level"]
    list_editable = ["status"]
    list_filter = ["status", "course", "level"]
    list_select_related = ["course"]
    search_fields = ["title", "summary", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    filter_horizontal = ["terms"]
    inlines = [BlockInline]

    class Media:
        css = {"all": ["css/admin.css"]}
        js = ["js/admin-kinds.js", "js/admin-blocks.js"]

    def _create_formsets(self, request, obj, change):
        # django-nested-admin gives each nested formset its own copy of the POST; a deep
        # copy of a whole lesson's fields each time was half the time of a save.
        if request.method == "POST":
            request.POST = CopiedCheaply(request.POST)
        return super()._create_formsets(request, obj, change)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """With links to each block (the inlines are in this order: BlockInline.ordering)."""
        blocks = Block.objects.filter(lesson=object_id).order_by(*BlockInline.ordering)
        links = (
            [
                (f"blocks-{i}", f"{block.title or block.key} ({_kind_name(block.kind)})")
                for i, block in enumerate(blocks.only("kind", "key", "title"))
            ]
            if str(object_id).isdigit()
            else []
        )
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "block_links": links}
        )

    def get_urls(self):
        """With the page that imports a Moodle XML or GIFT bank into the lesson."""
        view = self.admin_site.admin_view(partial(import_questions, model_admin=self))
        page = path("<int:lesson_id>/import-questions/", view, name="course_lesson_import_questions")
        return [page, *super().get_urls()]

    def render_change_form(self, request, context, *args, **kwargs):
        """With each kind's own fields, blank, for a block whose kind is chosen on the page
        (templates/admin/course/lesson/change_form.html, static/js/admin-kinds.js)."""
        form = modelform_factory(Block, form=BlockForm, fields=["kind"])
        templates = []
        for kind in kinds.every():
            blank = form(prefix=f"blocks-{KIND_FIELDS_PREFIX}", initial={"kind": kind.name})
            if blank.own_fieldset is not None:
                templates.append((kind.name, blank.own_fieldset))
        context["kind_field_templates"] = templates
        context["kind_fields_prefix"] = f"blocks-{KIND_FIELDS_PREFIX}"
        # Every error, each a link to its field, above the form.
        context["error_links"] = page_errors(
            context["adminform"].form,
            [inline.formset for inline in context.get("inline_admin_formsets", ())],
        )
        # The blocks' kind inlines without rows, rendered once (course.templatetags.lesson_admin).
        context[BLANK_INLINES] = {}
        return super().render_change_form(request, context, *args, **kwargs)


def _kind_name(kind: str) -> str:
    """How the page names a block's kind: its label ("Data Flow"), in the admin's language."""
    return str(kinds.get(kind).label) if kind in kinds.names() else kind.replace("_", " ")


class WritesInPlace:
    """A snippet or exercise is written on its lesson's page; its own page keeps the
    block it belongs to (and offers, when adding, only blocks of its kind without one)."""

    kind = ""

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "block"] if obj is not None else fields

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "block":
            kwargs["queryset"] = Block.objects.filter(
                kind=self.kind,
                **{f"{self.model._meta.get_field('block').remote_field.name}__isnull": True},
            ).select_related("lesson")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Snippet)
class SnippetAdmin(WritesInPlace, ContentAdmin):
    kind = "snippet"
    form = kinds.get("snippet").admin_inline().form
    list_display = ["__str__", "caption", "version"]
    list_filter = ["block__lesson__course", "block__lesson"]
    list_select_related = ["block__lesson"]
    search_fields = ["caption", "code", "block__key"]
    readonly_fields = ["version"]
    fields = [
        "block",
        "caption",
        "language",
        "code",
        "stdin",
        "expected_output",
        "raises",
        "run_limits",
        "version",
    ]

    def view_on_site(self, snippet: Snippet) -> str:
        return snippet.block.lesson.get_absolute_url() + f"#snippet-{snippet.block.key}"


@admin.register(OrderingExercise)
class OrderingExerciseAdmin(WritesInPlace, nested_admin.NestedModelAdminMixin, ContentAdmin):
    kind = "ordering"
    form = kinds.get("ordering").admin_inline().form
    fields = ["block", "intro", "grading", "expected_output"]
    list_display = ["__str__", "grading"]
    list_filter = ["grading", "block__lesson__course"]
    list_select_related = ["block__lesson"]
    search_fields = ["intro", "block__key", "lines__text"]
    inlines = kinds.get("ordering").admin_inline().inlines

    class Media:
        css = {"all": ["css/admin.css"]}

    def view_on_site(self, exercise: OrderingExercise) -> str:
        return exercise.block.lesson.get_absolute_url() + f"#exercise-{exercise.block.key}"


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(ContentAdmin):
    form = GlossaryTermForm
    list_display = ["term", "slug"]
    search_fields = ["term", "definition", "slug"]
    prepopulated_fields = {"slug": ["term"]}
    filter_horizontal = ["see_also"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # The links the files would give it: the terms its definition links to point too.
        link_term(form.instance)
