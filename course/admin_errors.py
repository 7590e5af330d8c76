"""The errors of a content admin page, each with where it is: the lesson's page lists them
at the top, each a link to its field (or to its block), and counts them on each block."""

from dataclasses import dataclass

from django.forms import BaseForm
from django.utils.text import capfirst
from django.utils.translation import gettext as _


@dataclass(frozen=True)
class FoundError:
    anchor: str  # the id of the field, or of the block or group, the link goes to
    where: str  # "Block 3 (kv-cache-vram) › Snippet › Code"
    message: str


def _nested(form: BaseForm) -> list:
    return list(getattr(form, "nested_formsets", ()))


def error_count(form: BaseForm) -> int:
    """A form's errors, its nested inlines' (django-nested-admin) included."""
    if not form.is_bound:
        return 0
    count = sum(len(messages) for messages in form.errors.values())
    for formset in _nested(form):
        count += len(formset.non_form_errors())
        count += sum(error_count(nested) for nested in formset.forms)
    return count


def _field_errors(form: BaseForm, where: str, anchor: str) -> list[FoundError]:
    found = []
    for name, messages in form.errors.items():
        if name in form.fields:
            field = form[name]
            label = capfirst(field.label)
            place, target = (f"{where} › {label}" if where else label), field.auto_id
        else:
            place, target = where or _("The form"), anchor
        found.extend(FoundError(target or anchor, place, str(message)) for message in messages)
    return found


def _formset_errors(formset, where: str) -> list[FoundError]:
    found = [
        FoundError(f"{formset.prefix}-group", where, str(message))
        for message in formset.non_form_errors()
    ]
    for index, form in enumerate(formset.forms):
        if not form.is_bound or not error_count(form):
            continue
        name = capfirst(formset.model._meta.verbose_name)
        if formset.max_num != 1:  # a block's lines, tests: which one, and its key
            name = f"{name} {index + 1}"
            key = getattr(form.instance, "key", "") or getattr(form.instance, "title", "")
            name = f"{name} ({key})" if key else name
        place = f"{where} › {name}" if where else name
        found.extend(_field_errors(form, place, form.prefix))
        for nested in _nested(form):
            found.extend(_formset_errors(nested, place))
    return found


def page_errors(form: BaseForm, formsets) -> list[FoundError]:
    """Every error of an admin page: the main form's, then each inline's, in page order."""
    if not form.is_bound:
        return []
    found = _field_errors(form, "", "content-main")
    for formset in formsets:
        found.extend(_formset_errors(formset, ""))
    return found
