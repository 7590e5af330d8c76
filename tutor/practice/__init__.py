"""What learners do with each practice kind, declared once per kind.

A block kind's content — its content-file fields, its rows, its admin — is declared in
`course.kinds`. A kind learners *do* something with (predict a snippet, put lines in
order, ...) also has a learner's side, which lives here: one folder per kind
(`tutor/practice/snippet/`, `tutor/practice/ordering/`, `tutor/practice/code_exercise/`),
in the way PrairieLearn keeps one folder per element: its learners' rows (`models.py`),
actions, state, views, teachers' analysis and answer groups. Each folder's `__init__.py` registers a `PracticeKind` that declares:

- `template`: the block on the lesson page, content and the learner's part together;
- `states()`: one learner's state for each of its blocks on a page, in a fixed number of
  queries, returned as data (nothing is set on the model instances);
- `progress`: how a lesson's progress counts the kind (SQL the progress action runs);
- what teachers see of it: `analyses()` for a lesson's item analysis, `events()` for a
  student's timeline, `attempt_rows()` for the attempts CSV, `clusters()` for the class's
  wrong answers grouped by their normalised form (and `cluster_of()` for one learner's);
- `urls`: its endpoints (collected by tutor/urls.py), `styles` and `scripts`;
- the author's check of its content (`manage.py check_content` here and now, the admin's
  "Check outputs" through the worker): `check_content()`, `queue_content_checks()`,
  `queued_content_checks()`, and the sentences and admin template that report them.

Everything that treats every practice kind — the lesson page, progress, the teacher's
pages — asks this registry instead of listing the kinds.

    from tutor import practice
    for kind in practice.every(): ...
    practice.get("snippet").states(blocks, user=request.user, request=request)
"""

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count as Counted
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import URLPattern

from course import kinds as content_kinds
from course.models import Block, Lesson


@dataclass(frozen=True)
class Count:
    """How progress counts one practice kind on a lesson: SQL for the number of its items
    on the lesson and for those one learner has done, each a scalar subquery using the
    parameters %(lesson)s and %(user)s (and the kind's own `params`, whose names it
    prefixes with its own). `extra` names more numbers kept for the kind (e.g. the
    snippet's predictions that were right first time)."""

    total: str
    done: str
    extra: tuple[tuple[str, str], ...] = ()
    params: tuple[tuple[str, Any], ...] = ()
    # LessonProgress columns that keep some of these numbers too (the first kinds'
    # numbers had columns before this registry; a new kind's live in `counts` only).
    columns: tuple[tuple[str, str], ...] = ()


class PracticeKind:
    """The learner's side of one block kind. Subclasses override what they need."""

    name: str = ""  # the block kind in course.kinds it practises
    # A panel of its own (stepping through a program) rather than a block kind's learner
    # side: registered by `name` alone, it has no block on the lesson page and no progress;
    # it has runs it executes (`executor_for`), urls, assets and events in teachers'
    # timelines (`every_with_panels`). `every()` lists the block kinds' only.
    panel: bool = False
    template: str = ""  # the whole block on the lesson page; gets `block` and `state`
    styles: tuple[str, ...] = ()  # static paths the lesson page links
    scripts: tuple[str, ...] = ()
    label: str = ""  # for teachers: "Snippets"
    anchor: str = "exercise"  # the block on the lesson page is `#<anchor>-<block key>`
    # The kind's items on the teacher's lesson page; the generic template shows the
    # tutor.teaching.ItemAnalysis items `analyses()` returns.
    analysis_template: str = "tutor/teaching/kinds/analysis.html"

    @property
    def content(self) -> content_kinds.BlockKind:
        return content_kinds.get(self.name)

    # -- the lesson page

    def states(
        self, blocks: list, *, user: AbstractBaseUser | AnonymousUser, request: HttpRequest | None = None
    ) -> dict[int, Any]:
        """Each block's state for this user, by block pk. Reads only: a page view never
        writes (verdicts are given by the worker and by the repair sweep)."""
        return {}

    # -- grading

    # Runs of this purpose are executed by the kind (`execute`), not run as a program.
    run_purpose: str = ""

    def run_limits(self, run):
        """The sandbox limits for one of this kind's runs (its deadline comes from them)."""
        raise NotImplementedError

    def execute(self, run, limits):
        """Execute one of this kind's runs in the worker; returns a tutor.sandbox.Result
        for the run's row, having stored whatever the kind keeps of it."""
        raise NotImplementedError

    def settle(self, run) -> None:
        """The worker finished `run`: give the verdicts waiting for its output."""

    def repair(self) -> int:
        """Give every verdict still waiting for a run that is final (its worker stopped
        between saving the run and settling): the minute sweep calls this. Returns how
        many it gave."""
        return 0

    # -- progress

    def count(self) -> Count | None:
        return None

    def worked_on(self) -> Iterable[tuple[int, int]]:
        """(user pk, lesson pk) of every learner who did something with this kind on a
        lesson: whose progress a full recount rebuilds."""
        return ()

    def progress_text(self, counts: dict[str, int]) -> str:
        """This kind's part of a lesson's progress, for "My progress"."""
        return ""

    def done_at(self, *, blocks: list[int], users) -> dict[tuple[int, int], datetime]:
        """When each learner first did each of these blocks of this kind (what progress
        counts as done: the time of the row that did it), by (user pk, block pk). `users`
        is a queryset of user pks; learners who have not done a block are left out.
        Assignments call this an item's submission time."""
        return {}

    # -- teachers

    def analyses(self, *, in_class, lesson) -> list:
        """How the class (`in_class`, a Q on the attempt's user) did on each of this
        kind's items in the lesson, for `analysis_template`."""
        return []

    def events(self, *, student: AbstractBaseUser, limit: int) -> list:
        """The student's latest `limit` actions on this kind (tutor.teaching.Event)."""
        return []

    def attempt_rows(self, *, in_class, chunk: int) -> list[Iterator[tuple[datetime, list]]]:
        """Streams of every attempt of the class's students, each oldest first, as
        (time, CSV row); the attempts CSV merges every kind's streams."""
        return []

    def clusters(self, *, in_class, blocks: list) -> dict[int, Any]:
        """The latest answers of the class (`in_class`, a Q on the attempt's user) on each
        of `blocks`, right ones counted and wrong ones grouped by their normalised form: a
        tutor.clusters.groups.Distribution by block pk, in a fixed number of queries."""
        return {}

    def cluster_of(self, state) -> Any:
        """(block pk, its tutor.clusters.groups.Group without students) of the learner's
        latest wrong answer that `state` (from `states()`) shows, or None. The same rules
        as `clusters()`, so a learner is in the group their teacher sees them in."""
        return None

    # -- the author's check of the content

    # A kind whose content can be checked (its code does what it declares) says so here;
    # the check objects it returns have `where`, `ok`, and for the command `ok_note`,
    # `mismatch_note` and `report` (lines), for the admin `pending` (see snippet's and
    # code_exercise's checks). `check_template` reports them on the admin's results page
    # (it gets `checks` and `pending`).
    checks_content: bool = False
    check_template: str = ""

    def check_content(self, *, lessons) -> list:
        """Check this kind's items in `lessons` (a queryset) here and now, in the sandbox,
        in the course's order. Raises sandbox.SandboxUnavailable if code cannot run here."""
        return []

    def check_summary(self, *, wrong: int, total: int) -> str:
        """The command's last word on this kind's checks: what was wrong, or all good."""
        return ""

    def queue_content_checks(self, *, lessons) -> list:
        """Queue the checks of this kind's items in `lessons` for the worker: their Run
        rows (they belong to no learner)."""
        return []

    def queued_words(self, *, queued: list) -> str:
        """The admin's message for the checks `queue_content_checks` queued."""
        return ""

    def queued_content_checks(self, run_ids: list[int]) -> list:
        """This kind's checks among these runs, once queued, in the course's order."""
        return []

    # -- endpoints

    @property
    def urls(self) -> list[URLPattern]:
        return []


_kinds: dict[str, PracticeKind] = {}


def register(kind: PracticeKind) -> PracticeKind:
    if kind.name in _kinds and type(_kinds[kind.name]) is not type(kind):
        raise ValueError(f"two practice kinds are called {kind.name!r}")
    if not kind.panel:
        content_kinds.get(kind.name)  # it practises a block kind the content knows
    elif kind.name in content_kinds.names():
        raise ValueError(f"a panel may not take the block kind's name {kind.name!r}")
    _kinds[kind.name] = kind
    return kind


def get(name: str) -> PracticeKind | None:
    return _kinds.get(name)


def every() -> list[PracticeKind]:
    """Every practice kind, in the order of the content's block kinds."""
    return [_kinds[name] for name in content_kinds.names() if name in _kinds]


def panels() -> list[PracticeKind]:
    """The panels that are not a block kind's (stepping through a program), by name."""
    return sorted((kind for kind in _kinds.values() if kind.panel), key=lambda kind: kind.name)


def every_with_panels() -> list[PracticeKind]:
    """Every practice kind, then the panels: for what both have (urls, teachers' timelines,
    assets)."""
    return every() + panels()


def executor_for(purpose: str) -> PracticeKind | None:
    """The kind that executes runs of this purpose itself, if any."""
    return next((kind for kind in _kinds.values() if kind.run_purpose == purpose), None)


def discover() -> None:
    """Import every kind folder of this package (each registers its kind)."""
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}")


def shown_id(request: HttpRequest | None, name: str) -> int | None:
    """The id of the learner's row to show, from `?<name>=` after a plain (no-JS) POST
    (`?run=`, `?submission=`); anything else shows none."""
    value = request.GET.get(name, "") if request is not None else ""
    if not value.isdecimal():  # not isdigit: "²" is a digit that int() refuses
        return None
    try:
        return int(value)
    except ValueError:  # more digits than int() will read
        return None


@dataclass
class PageBlock:
    """One block as the lesson page renders it: its template and, for a practice kind, the
    learner's state (None for display kinds: their rendering is cached)."""

    block: Any
    template: str
    state: Any = None
    practice: bool = False
    hints: Any = None  # its hint ladder (tutor.practice.hints.Ladder), if it has hints


def page_blocks(
    blocks: Iterable, *, user: AbstractBaseUser | AnonymousUser, request: HttpRequest | None = None
) -> list[PageBlock]:
    """The lesson's blocks with their templates and this user's state: one batch of
    queries per practice kind on the page."""
    blocks = list(blocks)
    states: dict[int, Any] = {}
    for kind in every():
        of_kind = [block for block in blocks if block.kind == kind.name]
        if of_kind:
            states.update(kind.states(of_kind, user=user, request=request))
    from tutor.practice.hints import ladders  # a kind's hints are served by tutor.practice.hints

    hints = ladders(blocks, user=user)
    page = []
    for block in blocks:
        kind = get(block.kind)
        if kind is None:
            page.append(PageBlock(block, block.kind_spec.template))
        else:
            page.append(
                PageBlock(block, kind.template, states.get(block.pk), practice=True, hints=hints.get(block.pk))
            )
    return page


def assets() -> tuple[list[str], list[str]]:
    """Every block kind's own styles and every practice kind's styles and scripts, for the
    lesson page's head."""
    styles = [path for kind in content_kinds.every() for path in kind.styles]
    styles += [path for kind in every() for path in kind.styles if path not in styles]
    styles += [path for kind in panels() for path in kind.styles if path not in styles]
    scripts = list(dict.fromkeys(path for kind in every() for path in kind.scripts))
    return styles, scripts


# What every teacher's page asks of the practice items -------------------------------


def item_title(block: Block) -> str:
    """What teachers read for the item: its content's title (a snippet's caption, ...)."""
    for name in block.kind_spec.page_select:
        item = getattr(block, name, None)
        if item is not None and getattr(item, "title", ""):
            return item.title
    return block.title or block.key


def practice_blocks_of(blocks) -> "QuerySet[Block]":
    """Blocks of a practice kind, with their content's row (for its title)."""
    kinds = [kind for kind in every()]
    select = [name for kind in kinds for name in kind.content.page_select]
    return blocks.filter(kind__in=[kind.name for kind in kinds]).select_related(*select)


def practice_blocks(lesson: Lesson) -> list[Block]:
    return list(practice_blocks_of(Block.objects.filter(lesson=lesson)).order_by("position", "pk"))


def lessons_with_practice():
    practised = Q(blocks__kind__in=[kind.name for kind in every()])
    return (
        Lesson.objects.published()  # a draft is not taught yet, even to staff teachers
        .in_order()
        .annotate(items=Counted("blocks", filter=practised))
        .filter(items__gt=0)
    )


# The lesson page's progress, after a learner's work ----------------------------------
#
# The badge and the assignments banner are the pages' (tutor.views.progress), above the
# kinds: it hands its function here when the app starts (TutorConfig.ready), and a kind's
# view that may have changed progress answers through `with_lesson_progress`.

_progress_shown: list = []


def show_progress_with(add) -> None:
    """`add(request, response, lesson)` adds the page's progress to a kind's htmx answer."""
    if add not in _progress_shown:
        _progress_shown.append(add)


def with_lesson_progress(request: HttpRequest, response, lesson):
    """The kind's answer, with the lesson page's progress swapped in out of band."""
    for add in _progress_shown:
        response = add(request, response, lesson)
    return response
