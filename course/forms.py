"""Admin forms that keep content text exactly as written, and learners' work whole.

Django's form fields strip leading and trailing white space, and browsers send a
textarea's line breaks as CRLF: one Save of an unchanged form would then drop a snippet
output's leading empty line, the indentation of an ordering line, and bump the snippet's
version. Text fields here keep every character, and read CRLF as a line break.
"""

from django import forms
from django.contrib.admin.helpers import Fieldset
from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.utils.functional import cached_property
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _
from nested_admin.formsets import NestedInlineFormSetMixin

from course import kinds, translations
from course.content_files.reader import (
    COURSE_FIELDS,
    LESSON_FIELDS,
    TERM_FIELDS,
    check_block,
    check_values,
    glossary_link_problems,
)
from course.content_files.yaml_lines import YamlMap, YamlSyntaxError, load
from course.content_files.yaml_writing import dump
from course.kinds.fields import (
    Choice,
    ExactText,
    Field,
    Limits,
    Name,
    Slug,
    SlugList,
    WholeNumber,
)
from course.learner_work import learner_work
from course.models import GlossaryTerm


class ContentForm(forms.ModelForm):
    """Saving what the form showed, unchanged, changes nothing.

    Text a browser cannot send back as stored (a CR inside a line, a line break in a
    one-line field, both only ever written in the content files) keeps its stored value
    unless the person changed the field."""

    def has_changed(self) -> bool:
        # On the lesson page a new exercise may differ from an empty one only by its lines
        # (forms nested by django-nested-admin): it is still to be saved.
        nested = getattr(self, "nested_formsets", ())
        return super().has_changed() or any(formset.has_changed() for formset in nested)

    def clean(self):
        data = super().clean()
        for name, field in self.fields.items():
            if not isinstance(field, ExactText) or not isinstance(data.get(name), str):
                continue
            initial = self.get_initial_for_field(field, name)
            if isinstance(initial, str) and field.as_sent(initial) == data[name]:
                data[name] = initial
        return data


class KeepsTextExactly:
    """For the content admins and their inlines: text fields are ExactText, the form a
    ContentForm."""

    form = ContentForm

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if type(db_field) in (models.CharField, models.TextField) and not db_field.choices:
            kwargs.setdefault("form_class", ExactText)
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def get_formset(self, request, obj=None, **kwargs):
        """An inline's formset class, made once a request: the lesson's page nests each
        kind's inline under every block, and making the class (its form's fields, read
        from the model) costs more than the block's whole form."""
        if kwargs or request is None:
            return super().get_formset(request, obj, **kwargs)
        made = request.__dict__.setdefault("_content_formsets", {})
        key = (type(self), getattr(obj, "pk", None) is not None)
        if key not in made:
            made[key] = super().get_formset(request, obj)
        return made[key]


class KeepsLearnerWork(forms.BaseInlineFormSet):
    """An inline of content rows: ticking Delete on a row learners' work points at (or on
    one whose deletion would take such a row with it) is refused, naming the work."""

    def clean(self):
        # Before Django's own check, which names every learner row it would delete.
        doomed = [
            form.instance
            for form in self.forms
            if form.instance.pk is not None and getattr(form, "cleaned_data", {}).get("DELETE")
        ]
        refusals = [
            _(
                "%(work)s points at it, so it cannot be deleted: untick its Delete box "
                "(you may change everything else)."
            )
            % {"work": work}
            for work in learner_work(doomed)
        ]
        if refusals:
            raise forms.ValidationError(refusals)
        super().clean()


class ContentFormSet(NestedInlineFormSetMixin, KeepsLearnerWork):
    """KeepsLearnerWork for inlines on the lesson page, which nest (django-nested-admin)."""

    @cached_property
    def empty_form(self):
        # The blank row "Add another" copies: made once, though the page's media and its
        # template each ask for it (Django makes a new one at each asking).
        return super().empty_form


class BlockFormSet(ContentFormSet):
    """A block has the content its kind keeps in rows of its own (a snippet block its
    snippet), and no other kind's; and once its rows' forms are each valid, the whole
    block passes the kind's checks as a file's block does (`check_block`)."""

    def clean(self):
        super().clean()
        self.check_own_rows()
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or data.get("DELETE") or data.get("kind") not in kinds.names():
                continue
            kind = kinds.get(data["kind"])
            if not kind.content_models or form.errors:
                continue  # BlockForm checked it whole, or already says what is wrong
            nested = getattr(form, "nested_formsets", [])
            if not all(_valid(formset) for formset in nested):
                continue  # each row's own problems first
            values = kind.values_from_admin(data, {_relation(f): _rows(f) for f in nested})
            if values is None:
                continue
            for field, messages in check_block(kind, values, _glossary()).items():
                for message in messages:
                    if field in form.fields:  # one the block keeps on its row (its hints)
                        form.add_error(field, message)
                    else:
                        form.add_error(None, f"{field}: {message}" if field else message)

    def check_own_rows(self):
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or data.get("DELETE") or data.get("kind") not in kinds.names():
                continue
            kind = kinds.get(data["kind"])
            for nested in getattr(form, "nested_formsets", []):
                owner = next(k for k in kinds.every() if nested.model in k.content_models)
                nested.is_valid()
                present = any(
                    (sub.instance.pk is not None or sub.has_changed())
                    and not getattr(sub, "cleaned_data", {}).get("DELETE")
                    for sub in nested.forms
                )
                if owner is not kind and present:
                    form.add_error(
                        "kind",
                        f"{_a(kind.name)} block has no {owner.noun}: make it {_a(owner.name)} "
                        f"block, or delete its {owner.noun}",
                    )
                elif owner is kind and not present:
                    form.add_error(
                        "kind", f"{_a(kind.name)} block needs its {kind.noun}: add it below"
                    )


def _valid(formset) -> bool:
    return formset.is_valid() and all(
        _valid(nested) for form in formset.forms for nested in getattr(form, "nested_formsets", [])
    )


def _relation(formset) -> str:
    """The relation a nested inline edits ("snippet", "lines"): its default prefix."""
    return formset.get_default_prefix()


def _rows(formset) -> list[dict]:
    """The rows an inline keeps after saving, as their forms' data with their own inlines'."""
    rows = []
    for form in formset.forms:
        data = getattr(form, "cleaned_data", None)
        if not data or data.get("DELETE"):
            continue
        if form.instance.pk is None and not form.has_changed():
            continue  # an empty extra form: nothing is saved
        rows.append(
            {
                **data,
                **{_relation(f): _rows(f) for f in getattr(form, "nested_formsets", [])},
            }
        )
    return rows


def _glossary() -> set[str]:
    return set(GlossaryTerm.objects.values_list("slug", flat=True))


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


class Problems:
    """Collects what a kind's check reports (its Reading), to show above the table."""

    path = ""

    def __init__(self):
        self.messages: list[str] = []

    def error(self, line: int | None, message: str) -> None:
        self.messages.append(message)

    def markdown(self, mapping, name: str, text: str) -> None:
        pass


# --- The content files' rules, applied to what the admin saves ------------------------------


# Fields whose rules the model's own fields enforce (choices, names, slugs, limits) or that
# the admin edits as relations (slug lists): checking them again would say it twice.
_MODEL_CHECKS = (Choice, Limits, Name, Slug, SlugList, WholeNumber)


class ChecksLikeTheFiles(ContentForm):
    """Refuses what the content files refuse, with the same words: the fields the files
    declare (course.kinds, content_files.reader) check the form's values, glossary links
    included. Rules the model itself enforces (choices, limits, names) are left to it."""

    what = "it"  # how a message names the thing: "a snippet block"
    file_names: dict[str, str] = {}  # content-file field name -> form field, where they differ

    def file_fields(self, data: dict) -> tuple[Field, ...]:
        return ()

    def glossary(self, data: dict) -> set[str]:
        return _glossary()

    def clean(self):
        data = super().clean()
        names = {}
        for declared in self.file_fields(data):
            name = self.file_names.get(declared.name, declared.name)
            if not isinstance(declared, _MODEL_CHECKS) and name in self.fields:
                names[declared.name] = name
        values = {file: data[name] for file, name in names.items() if data.get(name) is not None}
        fields = tuple(f for f in self.file_fields(data) if f.name in values)
        for file, messages in check_values(fields, values, self.what, self.glossary(data)).items():
            for message in messages:
                self.add_error(names[file], message)
        return data


class ShownKinds(forms.CharField):
    """Hidden: the kinds whose own fields the page shows. A field the page did not show
    (a new block's, or the fields of a kind just chosen) was not sent: it keeps its value.
    It always shows the kinds the form shows now, whatever was sent."""

    widget = forms.HiddenInput

    def bound_data(self, data, initial):
        return initial

    def has_changed(self, initial, data) -> bool:
        return False


class BlockForm(ChecksLikeTheFiles):
    """A block and the fields its kind keeps on the Block row, one form field each (the
    kind's declared fields, `BlockKind.row_fields`), shown under title and body.

    A block whose kind keeps everything on the Block row is checked whole here, as the
    files check it (`check_block`: each field, then the kind's checks across fields); one
    with rows of its own has its title and body checked here, the rest by BlockFormSet.
    A kind chosen on the page shows its fields at once (static/js/admin-kinds.js copies
    them from LessonAdmin's templates and adds the kind to `shown_kinds`); without
    JavaScript they appear once the block is saved with it, with their defaults until
    then. Changing the kind is refused while a field of the old kind that the new one has
    not still holds something."""

    kind = forms.ChoiceField(choices=lambda: [(kind.name, kind.label) for kind in kinds.every()])
    shown_kinds = ShownKinds(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        known = set(kinds.names())
        stored = self.instance.kind if self.instance.pk and self.instance.kind in known else None
        if self.is_bound:
            sent = [
                name
                for name in self.data.get(self.add_prefix("shown_kinds"), "").split()
                if name in known
            ]
            chosen = self.data.get(self.add_prefix("kind"))
        else:
            # A form made to show one kind's fields (LessonAdmin's templates) says which.
            sent, chosen = [stored] if stored else [], stored or self.initial.get("kind")
        showing = list(dict.fromkeys([*([chosen] if chosen in known else []), *sent]))
        stored_values = kinds.get(stored).values_of(self.instance) if stored else {}
        was_sent = {field.name for name in sent for field in kinds.get(name).row_fields}
        self.row_fields: dict[str, Field] = {}
        unsent = {}
        for name in showing:
            for declared in kinds.get(name).row_fields:
                if declared.name in self.row_fields:
                    continue
                if declared.name in self.fields:
                    raise ImproperlyConfigured(
                        f"the {name} kind's field '{declared.name}' has the name of a block's own field"
                    )
                value = stored_values.get(declared.name, declared.default)
                self.fields[declared.name] = declared.form_field(value)
                self.initial[declared.name] = value
                self.row_fields[declared.name] = declared
                if self.is_bound and declared.name not in was_sent:
                    unsent[self.add_prefix(declared.name)] = self.fields[
                        declared.name
                    ].prepare_value(value)
        if unsent:
            # Read as if sent unchanged: the value it keeps, which the form then shows.
            self.data = self.data.copy()
            for key, value in unsent.items():
                self.data[key] = str(value)
        self.showing = [kinds.get(name) for name in showing]
        self.fields["shown_kinds"].initial = " ".join(showing)

    @property
    def own_fieldset(self) -> Fieldset | None:
        """The kind's own fields, for the lesson page's block (templates/admin/course/block_fields.html)."""
        if not self.row_fields:
            return None
        return Fieldset(self, fields=list(self.row_fields), classes=("kind-fields",))

    def file_fields(self, data):
        if data.get("kind") not in kinds.names():
            return ()
        kind = kinds.get(data["kind"])
        self.what = f"a {kind.name} block"
        if not kind.content_models:
            return ()  # checked whole in clean()
        return tuple(f for f in kind.fields if f.name in {"title", "body"})

    def clean(self):
        data = super().clean()
        for name in self.row_fields:
            if name in data and name not in self.changed_data:
                data[name] = self.initial[name]  # as stored, even what a field cannot show
        kind = kinds.get(data["kind"]) if data.get("kind") in kinds.names() else None
        if kind is None:
            return data
        self.check_kind_keeps(kind, data)
        if kind.content_models or self.errors:
            return data
        for field, messages in check_block(
            kind, kind.values_from_admin(data, {}), _glossary()
        ).items():
            for message in messages:
                self.add_error(field if field in self.fields else None, message)
        return data

    def check_kind_keeps(self, kind, data) -> None:
        """Nothing a field of the block's old kind holds is lost when its kind changes."""
        keeps = {field.name for field in kind.row_fields}
        for name, declared in self.row_fields.items():
            if name in keeps or data.get(name) in (declared.default, None, "", [], {}):
                continue
            old = next(k for k in self.showing if k is not kind and declared in k.row_fields)
            self.add_error(
                name,
                f"{_a(kind.name)} block has no '{name}': {declared.how_to_clear} to make it "
                f"{_a(kind.name)} block, or keep it {_a(old.name)} block",
            )

    def save(self, commit=True):
        kind = kinds.get(self.cleaned_data["kind"])
        columns = kind.block_columns(
            {name: self.cleaned_data[name] for name in self.row_fields if name in self.cleaned_data}
        )
        self.instance.items, self.instance.values = columns["items"], columns["values"]
        return super().save(commit)


# --- Translations: each language's text, as its translation file holds it --------------------


class _TextReading:
    """Where a translation's problems go when it comes from the admin: by line of its text."""

    path = ""

    def __init__(self, glossary: set[str]):
        self.glossary = glossary
        self.problems: list[str] = []

    def error(self, line: int | None, message: str) -> None:
        if line:
            message = gettext("Line %(line)s: %(problem)s") % {"line": line, "problem": message}
        self.problems.append(message)

    def markdown(self, mapping, name: str, text: str) -> None:
        for offset, message in glossary_link_problems(text, self.glossary):
            self.error(mapping.text_line(name, offset), message)


class EditsTranslations:
    """A text box for each language the content may be translated into, holding what its
    translation file holds (docs/content-format.md, "Translating a lesson"), read and
    checked as the file is; empty, the content is not translated into that language."""

    translation_help = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.set_translation_initials()

    def clean(self):
        data = super().clean()
        self.clean_translations(data)
        return data

    def save(self, commit=True):
        self.save_translations()
        return super().save(commit)

    @classmethod
    def with_translation_fields(cls):
        for code in translations.languages():
            cls.base_fields[f"translation_{code}"] = ExactText(
                required=False,
                widget=forms.Textarea(attrs={"class": "vLargeTextField", "lang": code, "rows": 14}),
                label=format_lazy(gettext_lazy("Translation into {language}"), language=translations.language_name(code)),
                help_text=cls.translation_help,
            )
        return cls

    def translation_fields(self) -> list[tuple[str, str]]:
        return [(code, f"translation_{code}") for code in translations.languages() if f"translation_{code}" in self.fields]

    def set_translation_initials(self) -> None:
        for code, name in self.translation_fields():
            translation = (self.instance.translations or {}).get(code)
            self.initial[name] = dump(self.translation_document(translation)) if translation else ""

    def translation_document(self, translation: dict) -> dict:
        raise NotImplementedError

    def read_translation(self, reading: _TextReading, root: YamlMap, data: dict) -> dict:
        raise NotImplementedError

    def clean_translations(self, data: dict) -> None:
        read = dict(self.instance.translations or {})
        for code, name in self.translation_fields():
            text = data.get(name) or ""
            if not text.strip():
                read.pop(code, None)
                continue
            reading = _TextReading(_glossary())
            try:
                root = load(text, reading.error)
            except YamlSyntaxError as exc:
                reading.error(exc.line, f"YAML syntax error: {exc.message}")
                root = None
            if root is not None and not isinstance(root, YamlMap):
                reading.error(1, "the translation must hold fields (name: value)")
                root = None
            document = self.read_translation(reading, root, data) if root is not None else {}
            for problem in reading.problems:
                self.add_error(name, problem)
            if document:
                read[code] = document
            else:
                read.pop(code, None)
        self.translations_read = read

    def save_translations(self) -> None:
        if hasattr(self, "translations_read"):
            self.instance.translations = self.translations_read


class CourseForm(EditsTranslations, ChecksLikeTheFiles):
    what = "course.yaml"
    translation_help = gettext_lazy(
        "The course in this language, as course.<language>.yaml holds it: its title and its "
        "summary. Leave out what is not translated yet: it is shown in English. Empty: no "
        "translation."
    )

    def file_fields(self, data):
        return COURSE_FIELDS

    def translation_document(self, translation: dict) -> dict:
        return translations.write_fields(COURSE_FIELDS, translation)

    def read_translation(self, reading, root, data) -> dict:
        english = {"title": data.get("title") or "", "summary": data.get("summary") or ""}
        return translations.read_fields(reading, root, COURSE_FIELDS, english, "the course")


CourseForm.with_translation_fields()


class LessonForm(EditsTranslations, ChecksLikeTheFiles):
    what = "the lesson"
    translation_help = gettext_lazy(
        "The lesson in this language, as its translation file holds it: its title, level and "
        "summary, then its blocks by their keys, each with its prose (title, body, caption, "
        "intro, steps, items, hints, tests' names). Code and outputs stay the lesson's own. Leave "
        "out what is not translated yet: it is shown in English. Empty: no translation."
    )

    def file_fields(self, data):
        return LESSON_FIELDS

    def blocks(self) -> list:
        if self.instance.pk is None:
            return []
        select, prefetch = kinds.page_lookups()
        return list(
            self.instance.blocks.select_related(*select).prefetch_related(*prefetch).order_by("position", "pk")
        )

    def translation_document(self, translation: dict) -> dict:
        return translations.lesson_document(LESSON_FIELDS, translation, self.blocks())

    def read_translation(self, reading, root, data) -> dict:
        english = {"title": data.get("title") or "", "level": data.get("level") or "", "summary": data.get("summary") or ""}
        blocks = {block.key: (block.kind, block.kind_spec.values_of(block)) for block in self.blocks()}
        return translations.read_lesson(reading, root, LESSON_FIELDS, english, blocks)


LessonForm.with_translation_fields()


class GlossaryTermForm(EditsTranslations, ChecksLikeTheFiles):
    what = "a glossary term"
    translation_help = gettext_lazy(
        "The term in this language, as glossary.<language>.yaml holds it: its term and its "
        "definition (Markdown; [[slug]] links stay as they are). Empty: no translation."
    )

    def file_fields(self, data):
        return TERM_FIELDS

    def translation_document(self, translation: dict) -> dict:
        return translations.write_fields(TERM_FIELDS, translation)

    def read_translation(self, reading, root, data) -> dict:
        english = {"term": data.get("term") or "", "definition": data.get("definition") or ""}
        return translations.read_fields(reading, root, TERM_FIELDS, english, "a glossary term")

    def glossary(self, data):
        # A definition may link the term being made, as a glossary file may.
        return super().glossary(data) | {data.get("slug") or ""}


GlossaryTermForm.with_translation_fields()
