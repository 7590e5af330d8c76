"""Learners' work that content points at, so that no edit of content loses it.

Deleting content (a re-import without it, the admin's Delete, an inline's delete box)
asks `learner_work` first and refuses, naming the content and how many learners' work
would go. Learner data lives in the tutor app, which `course` never imports, and points
at content in two ways, both found here:

- by foreign key with PROTECT: found through Django's deletion collector, so every
  model that protects content is covered without being listed;
- by key, inside JSON (an ordering attempt's line keys): the tutor app registers a
  finder for those (`register_key_finder`), since no foreign key can protect them.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import models, router
from django.db.models.deletion import Collector, ProtectedError, RestrictedError
from django.utils.translation import ngettext

# Given the content rows a deletion would remove, yield (row, what, user ids): the learners
# whose work of that kind ("ordering attempts") names the row by key.
KeyFinder = Callable[[list[models.Model]], Iterable[tuple[models.Model, str, Iterable[int]]]]

_key_finders: list[KeyFinder] = []


def register_key_finder(finder: KeyFinder) -> None:
    if finder not in _key_finders:
        _key_finders.append(finder)


@dataclass
class LearnerWork:
    """The work of some learners on one content row (or several), by kind of work."""

    row: models.Model
    by_kind: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))

    @property
    def learners(self) -> int:
        return len(set().union(*self.by_kind.values()))

    def describe(self) -> str:
        """ "2 learners' work (code drafts, predictions)" """
        count = self.learners
        return ngettext(
            "%(count)s learner's work (%(kinds)s)", "%(count)s learners' work (%(kinds)s)", count
        ) % {"count": count, "kinds": ", ".join(sorted(self.by_kind))}

    def __str__(self) -> str:
        return f"{describe_row(self.row)}: {self.describe()}"


def all_of(works: list[LearnerWork]) -> LearnerWork:
    """The work of `works` together (a lesson's snippets and exercises), named by the first row."""
    together = LearnerWork(works[0].row)
    for work in works:
        for what, user_ids in work.by_kind.items():
            together.by_kind[what] |= user_ids
    return together


def learner_work(rows: Iterable[models.Model]) -> list[LearnerWork]:
    """The learners' work that deleting `rows` would lose, per content row that points
    at it: the rows themselves and everything their deletion would take with it (a
    lesson's blocks, a block's snippet). Empty when the rows can go."""
    by_model: dict[type[models.Model], list[models.Model]] = defaultdict(list)
    for row in rows:
        if row.pk is not None:
            by_model[type(row)].append(row)
    if not by_model:
        return []
    collector = Collector(using=router.db_for_write(next(iter(by_model))))
    protected: set[models.Model] = set()
    for model_rows in by_model.values():
        try:
            collector.collect(model_rows)
        except ProtectedError as error:
            protected |= set(error.protected_objects)
        except RestrictedError as error:
            protected |= set(error.restricted_objects)
    doomed = {(model, row.pk): row for model, found in collector.data.items() for row in found}
    work: dict[tuple, LearnerWork] = {}

    def note(row_key: tuple, what: str, user_ids: Iterable) -> None:
        if row_key not in work:
            work[row_key] = LearnerWork(doomed[row_key])
        work[row_key].by_kind[what].update(user_ids)

    for model, pks in _by_model(protected).items():
        _note_protecting_rows(model, pks, doomed, note)
    for finder in _key_finders:
        for row, what, user_ids in finder(list(doomed.values())):
            note((type(row), row.pk), what, user_ids)
    return [found for found in work.values() if found.by_kind]


def _by_model(rows: Iterable[models.Model]) -> dict[type[models.Model], list]:
    found = defaultdict(list)
    for row in rows:
        found[type(row)].append(row.pk)
    return found


def _note_protecting_rows(model, pks: list, doomed: dict, note) -> None:
    """Which doomed rows `model`'s rows point at, and whose they are (their `user`)."""
    pointers = [
        f for f in model._meta.concrete_fields
        if f.many_to_one and any(m is f.related_model for m, _ in doomed)
    ]
    # Learner rows say whose they are in `user`; a row without one counts on its own.
    owner = "user_id" if any(f.name == "user" for f in model._meta.concrete_fields) else "pk"
    what = str(model._meta.verbose_name_plural)
    columns = [f.attname for f in pointers]
    for values in model._default_manager.filter(pk__in=pks).values_list(owner, *columns):
        for pointer, target in zip(pointers, values[1:], strict=True):
            if (pointer.related_model, target) in doomed:
                note((pointer.related_model, target), what, [values[0]])


def describe_row(row: models.Model) -> str:
    """How a message names a content row: its kind and its key or slug."""
    kind_spec = getattr(row, "kind_spec", None)  # a Block says what kind of block it is
    name = kind_spec.noun if kind_spec is not None else str(row._meta.verbose_name)
    key = getattr(row, "key", None) or getattr(row, "slug", None)
    return f"{name} '{key}'" if key else f"{name} “{row}”"
