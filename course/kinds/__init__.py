"""The kinds of block a lesson is made of, each declared once.

A display kind (prose, data flow, ...) is one module of this package: its content-file
fields, its template, and how its fields are kept on the Block row. A practice kind
(snippet, ordering exercise, ...) declares the same and keeps its content in rows of its
own; it registers itself like the others. Everything that must treat every kind — the
content files' reader, importer and exporter, the admin, the lesson page, search and
reading time — asks this registry rather than listing the kinds.

    from course import kinds
    kind = kinds.get("data_flow")
    kind.fields, kind.template, kind.values_of(block)
"""

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as declared
from typing import Any, Protocol

from django.db import models
from django.utils.translation import gettext_lazy as _

from course.kinds.fields import Field, Hints, Reading, Text
from course.models import Block
from course.registry import UnknownKind, _kinds, every, get, names, register

# The registry itself is course.registry, which the models ask without importing the kinds.
__all__ = ["UnknownKind", "every", "get", "names", "register"]


class Saving(Protocol):
    """What a kind needs from the importer to keep its rows: update in place, set an
    ordered many-to-many relation, delete (refused when learners' work points at a row)."""

    def save(self, model: type[models.Model], existing: dict, lookup, fields: dict, **parent): ...

    def set_in_order(self, row: models.Model, manager, targets: list[models.Model]) -> None: ...

    def delete(self, row: models.Model, path: str, refusal: str) -> bool: ...


def hints_field() -> Hints:
    """A hint ladder: an exercise, an ordering exercise or a question may carry one."""
    return Hints("hints", verbose_name=_("Hints"))


def common_fields() -> tuple[Field, ...]:
    """Every block may have a title and a Markdown body."""
    return (
        Text(
            "title",
            model_field=Block._meta.get_field("title"),
            verbose_name=_("Title"),
            translatable=True,
        ),
        Text("body", markdown=True, verbose_name=_("Body"), translatable=True),
    )


@dataclass(frozen=True)
class BlockKind:
    """A kind of block. A kind with no rows of its own keeps every field on the Block:
    title and body in their columns, `items_field` (a list) in Block.items, every other
    field in Block.values by its name. A kind with rows of its own (`content_models`)
    keeps there all but title and body, through `store` and `values_of`."""

    name: str  # in the content files: `kind: data_flow`
    label: str  # for people: "Data Flow"
    template: str  # renders one block of this kind; gets `block` (and `lesson`)
    fields: tuple[Field, ...] = ()  # title and body first, then the kind's own
    items_field: str | None = None  # the field kept in Block.items
    needs_key: bool = False  # learners' work points at the block: the files must name it
    noun: str = "block"  # how messages name one: "snippet 'x' is gone from the file"
    search_lookups: tuple[str, ...] = ()  # more text to search, as Block lookups
    content_models: tuple[type[models.Model], ...] = ()  # the kind's own rows, if any
    # What a page showing the block loads with it: Block lookups to select_related (its own
    # row) and to prefetch (that row's children), so a lesson's blocks cost fixed queries.
    page_select: tuple[str, ...] = ()
    page_prefetch: tuple[str, ...] = ()
    # Returns the admin inline that edits the kind's own rows on the lesson's admin page.
    admin_inline: Callable[[], type] | None = None
    # Stylesheets of its own (static paths) the lesson page links. Most kinds need none:
    # the site's stylesheet has building blocks for block templates ("Building blocks").
    styles: tuple[str, ...] = ()
    # A right block of the kind and wrong ones, in the content files' terms (the fields a
    # block of it writes, without kind and key): each wrong one is the right one with some
    # values changed, and the message the files refuse it with. One test walks every kind
    # (tests/course/test_every_kind.py): the files read the right one and refuse each wrong
    # one, and the admin refuses each wrong one with the same words.
    example: dict[str, Any] = declared(default_factory=dict)
    wrong_examples: tuple[tuple[dict[str, Any], str], ...] = ()

    @property
    def wrong(self) -> tuple[tuple[dict[str, Any], str], ...]:
        """The kind's wrong examples, and one every kind has (a glossary link to no term)."""
        return (
            *self.wrong_examples,
            (
                {"body": "See [[no-such-term]]."},
                "glossary link '[[no-such-term]]' points at no term",
            ),
        )

    @property
    def field_names(self) -> tuple[str, ...]:
        return ("kind", "key", *(field.name for field in self.fields))

    def field(self, name: str) -> Field:
        return next(field for field in self.fields if field.name == name)

    # -- reading and checking a block: the one way, for the files and the admin alike

    def read(self, reading: Reading, mapping, what: str) -> dict[str, Any]:
        """The block's values from `mapping` (a file's block, or what the admin's forms
        hold, `course.content_files.reader.check_block`): each field reads and checks
        itself, then `check` checks across fields. Problems go to `reading`."""
        values = {field.name: field.read(reading, mapping, what) for field in self.fields}
        self.check(reading, values)
        self.check_hints(reading, values, mapping)
        return values

    def check(self, reading: Reading, values: dict[str, Any]) -> None:
        """Checks across fields (each field checked itself as it was read)."""

    # -- a hint ladder (a `Hints` field): its hints come before the solution's pieces

    def give_aways(self, values: dict[str, Any]) -> list[tuple[str, str]]:
        """What gives the whole answer away, as (what it is, its text): a hint holding one
        of these would tell the answer before the ladder's last rung."""
        return []

    def check_hints(self, reading: Reading, values: dict[str, Any], mapping) -> None:
        """Each hint that gives the answer away is an error at its line, naming the block."""
        hints = values.get("hints") or []
        if not hints:
            return
        key = mapping.get("key") if hasattr(mapping, "get") else None
        block = f"{self.noun} '{key}'" if isinstance(key, str) and key else f"this {self.noun}"
        away = self.give_aways(values)
        for number, hint in enumerate(hints, start=1):
            for what, text in away:
                if gives_away(hint, text):
                    reading.error(
                        getattr(hint, "line", None) or mapping.line_of("hints"),
                        f"hint {number} of {block} gives the answer away: it contains {what}; "
                        "the solution is the ladder's last rung, so hint at it instead",
                    )
                    break

    # -- the rows

    @property
    def row_fields(self) -> tuple[Field, ...]:
        """The fields the Block row keeps besides title and body: the items field and the
        named values, in declared order (for a kind with rows of its own, only those
        `kept_on_block`). The admin shows one form field for each (`Field.form_field`)."""
        if self.content_models:
            return tuple(field for field in self.fields if field.kept_on_block)
        return tuple(field for field in self.fields if field.name not in ("title", "body"))

    @property
    def named_fields(self) -> tuple[Field, ...]:
        """The fields kept in Block.values by name (for a kind with rows of its own, only
        those `kept_on_block`)."""
        if self.content_models:
            return tuple(field for field in self.fields if field.kept_on_block)
        return tuple(
            field for field in self.fields if field.name not in ("title", "body", self.items_field)
        )

    def block_columns(self, values: dict[str, Any]) -> dict[str, Any]:
        """What the Block row itself keeps of the values."""
        return {
            "title": values.get("title", ""),
            "body": values.get("body", ""),
            "items": list(values.get(self.items_field, [])) if self.items_field else [],
            "values": {
                field.name: values.get(field.name, field.default) for field in self.named_fields
            },
        }

    def values_of(self, block) -> dict[str, Any]:
        """The block's content, by content-file field name (what the exporter writes)."""
        values = {"title": block.title, "body": block.body}
        if self.items_field:
            values[self.items_field] = block.items
        for field in self.named_fields:
            values[field.name] = block.values.get(field.name, field.default)
        return values

    def values_from_admin(self, block: dict[str, Any], rows: dict[str, list[dict]]) -> dict | None:
        """What the admin's forms hold, by content-file field name, for `read` to check as
        the files are checked (`course.forms`): `block` is the block form's data (each of
        `row_fields` under its own name), `rows` the kind's own inline rows by relation
        name (each its form's data, its own inlines' rows under their relation names).
        None when a row the kind needs is missing (the admin says so itself). A kind with
        rows of its own gives the inverse of `store`."""
        values = {"title": block.get("title") or "", "body": block.get("body") or ""}
        values.update(
            {field.name: block[field.name] for field in self.row_fields if field.name in block}
        )
        return values

    def content_of(self, block) -> models.Model | None:
        """The row of the kind's own that holds its content (a practice kind's), or None."""
        return None

    def show_values(self, block, values: dict[str, Any]) -> None:
        """Put `values` (the block's own with a translation put in, course.translations)
        into the block's rows, in memory, for the pages of one language: never saved. A
        kind with rows of its own puts the rest into them."""
        columns = self.block_columns(values)
        block.title, block.body = columns["title"], columns["body"]
        if self.items_field:
            block.items = columns["items"]
        block.values = {**(block.values or {}), **columns["values"]}

    def store(self, block, values: dict[str, Any], saving: Saving, path: str) -> None:
        """Keep the values in the kind's own rows (display kinds have none)."""

    def output_to_predict(self, block) -> str | None:
        """What a learner predicts before it is revealed (a snippet's declared output), so
        the page does not show it before then; None for kinds with nothing to predict."""
        return None

    def reading_texts(self, block) -> list[str]:
        """The prose of the block, for the lesson's reading time."""
        texts = [block.title, block.body]
        texts += [value for value in (block.values or {}).values() if isinstance(value, str)]
        for item in block.items:
            if isinstance(item, dict):
                texts += [str(item.get("title", "")), str(item.get("body", ""))]
            else:
                texts.append(str(item))
        return texts


def _plain_words(text: str) -> str:
    """Text as compared for giving an answer away: lower case, Markdown's code marks and
    runs of spaces and line breaks made one space."""
    return " ".join(text.replace("`", " ").lower().split())


def gives_away(hint: str, answer: str) -> bool:
    """Whether `hint` holds the whole of `answer` (whitespace, case and code marks aside);
    a short answer counts only as a whole word or number ("4" is not in "42")."""
    wanted = _plain_words(answer)
    if not wanted:
        return False
    said = _plain_words(hint)
    before = r"(?<![\w.])" if re.match(r"[\w.]", wanted) else ""
    after = r"(?![\w]|\.\d)" if re.search(r"[\w.]$", wanted) else ""
    return re.search(before + re.escape(wanted) + after, said) is not None


def admin_inlines() -> list[type]:
    """The admin inlines the kinds declare (their own rows, edited on the lesson page),
    each marked with its kind: the lesson's admin page shows a block only its own kind's
    (static/js/admin-kinds.js)."""
    inlines = []
    for kind in _kinds.values():
        if kind.admin_inline is not None:
            inline = kind.admin_inline()
            marker = f"kind-{kind.name}"
            if marker not in (inline.classes or ()):
                inline.classes = [*(inline.classes or ()), marker]
            inlines.append(inline)
    return inlines


def page_lookups() -> tuple[list[str], list[str]]:
    """Every kind's `page_select` and `page_prefetch`, for loading a lesson's blocks."""
    return (
        [name for kind in _kinds.values() for name in kind.page_select],
        [name for kind in _kinds.values() for name in kind.page_prefetch],
    )


def discover() -> None:
    """Import every kind module of this package (each registers its kind)."""
    for module in pkgutil.iter_modules(__path__):
        if module.name != "fields":
            importlib.import_module(f"{__name__}.{module.name}")
