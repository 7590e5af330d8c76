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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from django.db import models

from course.kinds.fields import Field, Reading, Text


class Saving(Protocol):
    """What a kind needs from the importer to keep its rows: update in place, set an
    ordered many-to-many relation, delete (refused when learners' work points at a row)."""

    def save(self, model: type[models.Model], existing: dict, lookup, fields: dict, **parent): ...

    def set_in_order(self, row: models.Model, manager, targets: list[models.Model]) -> None: ...

    def delete(self, row: models.Model, path: str, refusal: str) -> bool: ...


def common_fields() -> tuple[Field, ...]:
    """Every block may have a title and a Markdown body."""
    from course.models import Block

    return (
        Text("title", model_field=Block._meta.get_field("title")),
        Text("body", markdown=True),
    )


@dataclass(frozen=True)
class BlockKind:
    """A display kind: its fields are kept on the Block (title, body, and `items_field`
    in Block.items)."""

    name: str  # in the content files: `kind: data_flow`
    label: str  # for people: "Data Flow"
    template: str  # renders one block of this kind; gets `block` (and `lesson`)
    fields: tuple[Field, ...] = ()  # title and body first, then the kind's own
    items_field: str | None = None  # the field kept in Block.items
    needs_key: bool = False  # learners' work points at the block: the files must name it
    noun: str = "block"  # how messages name one: "snippet 'x' is gone from the file"
    practice: bool = False  # learners do something with it (the tutor app asks these)
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

    @property
    def field_names(self) -> tuple[str, ...]:
        return ("kind", "key", *(field.name for field in self.fields))

    def field(self, name: str) -> Field:
        return next(field for field in self.fields if field.name == name)

    # -- reading and checking a file's block

    def check(self, reading: Reading, values: dict[str, Any]) -> None:
        """Checks across fields (each field checked itself as it was read)."""

    # -- the rows

    def block_columns(self, values: dict[str, Any]) -> dict[str, Any]:
        """What the Block row itself keeps of the values."""
        return {
            "title": values.get("title", ""),
            "body": values.get("body", ""),
            "items": list(values.get(self.items_field, [])) if self.items_field else [],
        }

    def values_of(self, block) -> dict[str, Any]:
        """The block's content, by content-file field name (what the exporter writes)."""
        values = {"title": block.title, "body": block.body}
        if self.items_field:
            values[self.items_field] = block.items
        return values

    def content_of(self, block) -> models.Model | None:
        """The row of the kind's own that holds its content (a practice kind's), or None."""
        return None

    def store(self, block, values: dict[str, Any], saving: Saving, path: str) -> None:
        """Keep the values in the kind's own rows (display kinds have none)."""

    def output_to_predict(self, block) -> str | None:
        """What a learner predicts before it is revealed (a snippet's declared output), so
        the page does not show it before then; None for kinds with nothing to predict."""
        return None

    def reading_texts(self, block) -> list[str]:
        """The prose of the block, for the lesson's reading time."""
        texts = [block.title, block.body]
        for item in block.items:
            if isinstance(item, dict):
                texts += [str(item.get("title", "")), str(item.get("body", ""))]
            else:
                texts.append(str(item))
        return texts


_kinds: dict[str, BlockKind] = {}


class UnknownKind(LookupError):
    pass


def register(kind: BlockKind) -> BlockKind:
    if kind.name in _kinds and _kinds[kind.name] != kind:
        raise ValueError(f"two block kinds are called {kind.name!r}")
    _kinds[kind.name] = kind
    return kind


def get(name: str) -> BlockKind:
    try:
        return _kinds[name]
    except KeyError:
        raise UnknownKind(name) from None


def names() -> list[str]:
    return list(_kinds)


def every() -> Iterable[BlockKind]:
    return list(_kinds.values())


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


def practice_kinds() -> list[BlockKind]:
    return [kind for kind in _kinds.values() if kind.practice]


def discover() -> None:
    """Import every kind module of this package (each registers its kind)."""
    for module in pkgutil.iter_modules(__path__):
        if module.name != "fields":
            importlib.import_module(f"{__name__}.{module.name}")
