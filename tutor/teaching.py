"""What teachers' pages compute from rows their views fetched: the class grid, its sorting and
chart, item analysis per lesson, a student's timeline, and CSV rows.

Plain functions over plain values: every query is made (and counted) in tutor.views.teaching.
"""

import csv
import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

NOT_STARTED = "—"

# Completion buckets, in the order the chart stacks them.
BUCKETS = [
    ("done", gettext_lazy("Complete")),
    ("high", gettext_lazy("Half or more")),
    ("low", gettext_lazy("Started")),
    ("none", gettext_lazy("Not started")),
]
BUCKET_LABELS = dict(BUCKETS)


def student_name(username: str, first_name: str = "", last_name: str = "") -> str:
    full = f"{first_name} {last_name}".strip()
    return f"{full} ({username})" if full else username


def name_of(user) -> str:
    """A student as every teacher's page names them: "Ada Lovelace (ada)", or "ada"."""
    return student_name(user.get_username(), user.first_name, user.last_name)


# The class grid ----------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    percent: int  # 0 when not started: averages count a student who hasn't begun as 0%
    text: str  # what the cell says, so it reads without its colour
    bucket: str  # "none", "low", "high", "done": the colour


EMPTY_CELL = Cell(0, NOT_STARTED, "none")


@functools.lru_cache(maxsize=4096)  # a class has few distinct (done, total) pairs
def progress_cell(done: int, total: int, completed: bool) -> Cell:
    """Every started cell reads as a percentage, so a column compares at a glance."""
    if completed:
        return Cell(100, "100%", "done")
    percent = round(100 * done / total) if total else 0
    percent = min(percent, 99)  # only a completed lesson reads 100%
    return Cell(percent, f"{percent}%", "high" if percent >= 50 else "low")


@dataclass
class GridColumn:
    pk: int
    title: str
    course: str
    number: int
    average: int = 0
    complete: int = 0
    buckets: dict[str, int] = field(default_factory=dict)
    header: "SortHeader | None" = None


@functools.cache
def cell_html(cell: Cell) -> SafeString:
    return format_html('<td class="cell cell-{}">{}</td>', cell.bucket, cell.text)


@dataclass
class GridRow:
    pk: int
    name: str
    cells: list[Cell]
    overall: int

    @property
    def cells_html(self) -> SafeString:
        # A row's cells as one string: 10,000 cells one by one through the template engine
        # take most of a second; a handful of distinct cells, each escaped once, take nothing.
        return mark_safe("".join(cell_html(cell) for cell in self.cells))


@dataclass
class ClassGrid:
    columns: list[GridColumn]
    rows: list[GridRow]
    average: int  # the class's mean overall completion


def build_grid(
    students: Iterable[tuple[int, str, str, str]],
    lessons: Iterable[tuple[int, str, str]],
    progress: Iterable[tuple[int, int, int, int, bool]],
) -> ClassGrid:
    """students: (pk, username, first, last); lessons: (pk, title, course title), in order;
    progress: (user pk, lesson pk, items done, items total, completed)."""
    columns = [
        GridColumn(pk, title, course, number)
        for number, (pk, title, course) in enumerate(lessons, start=1)
    ]
    index = {column.pk: i for i, column in enumerate(columns)}
    cells: dict[int, list[Cell]] = {}
    rows = []
    for pk, username, first, last in students:
        cells[pk] = [EMPTY_CELL] * len(columns)
        rows.append(GridRow(pk, student_name(username, first, last), cells[pk], 0))
    for user_id, lesson_id, done, total, completed in progress:
        if user_id in cells and lesson_id in index:
            cells[user_id][index[lesson_id]] = progress_cell(done, total, completed)
    for row in rows:
        row.overall = round(sum(c.percent for c in row.cells) / len(columns)) if columns else 0
    for i, column in enumerate(columns):
        column_cells = [row.cells[i] for row in rows]
        counts = Counter(cell.bucket for cell in column_cells)
        column.buckets = {key: counts[key] for key, _label in BUCKETS}
        column.complete = counts["done"]
        column.average = round(sum(c.percent for c in column_cells) / len(rows)) if rows else 0
    average = round(sum(row.overall for row in rows) / len(rows)) if rows else 0
    return ClassGrid(columns, rows, average)


SORT_DEFAULT = "student"


@dataclass(frozen=True)
class SortHeader:
    link: str  # the ?sort= value the heading asks for
    aria: str  # its aria-sort: "ascending", "descending" or "" (not sorted by it)


def sort_header(current: str, key: str, *, first_descending: bool = False) -> SortHeader:
    """A heading sorts by its key; on the current sort, it turns the direction round."""
    if current == key:
        return SortHeader(f"-{key}", "ascending")
    if current == f"-{key}":
        return SortHeader(key, "descending")
    return SortHeader(f"-{key}" if first_descending else key, "")


def sort_rows(grid: ClassGrid, sort: str) -> dict[str, SortHeader]:
    """Sort the grid's rows in place by `sort` ("student", "overall", "lesson-<pk>", with a
    leading "-" for descending; unknown: by student) and give each heading its sort link.
    Returns the headings of the student and overall columns."""
    keys = {"student", "overall"} | {f"lesson-{c.pk}" for c in grid.columns}
    if sort.removeprefix("-") not in keys:
        sort = SORT_DEFAULT
    descending = sort.startswith("-")
    key = sort.removeprefix("-")
    grid.rows.sort(key=lambda row: row.name.casefold())  # ties read alphabetically
    if key == "overall":
        grid.rows.sort(key=lambda row: row.overall, reverse=descending)
    elif key.startswith("lesson-"):
        i = next(i for i, c in enumerate(grid.columns) if f"lesson-{c.pk}" == key)
        grid.rows.sort(key=lambda row: row.cells[i].percent, reverse=descending)
    elif descending:
        grid.rows.reverse()
    # Most done first is what a teacher looks for in a lesson or overall column.
    for column in grid.columns:
        column.header = sort_header(sort, f"lesson-{column.pk}", first_descending=True)
    return {
        "student": sort_header(sort, "student"),
        "overall": sort_header(sort, "overall", first_descending=True),
    }


# The distribution chart (inline SVG, 100 units wide) ---------------------------------


@dataclass(frozen=True)
class Segment:
    bucket: str
    label: str
    count: int
    start: float
    share: float

    # The SVG's attributes: always with a full stop, as SVG reads numbers, whichever way the
    # page's language writes them (a float in a template is localised: "33,333" in German).
    @property
    def x(self) -> str:
        return f"{self.start:g}"

    @property
    def width(self) -> str:
        return f"{self.share:g}"


def distribution(column: GridColumn, students: int) -> list[Segment]:
    segments = []
    x = 0.0
    for bucket, label in BUCKETS:
        count = column.buckets.get(bucket, 0)
        width = 100 * count / students if students else 0
        if count:
            segments.append(Segment(bucket, label, count, round(x, 3), round(width, 3)))
        x += width
    return segments


def distribution_text(column: GridColumn) -> str:
    parts = [
        _("%(count)s %(bucket)s") % {"count": column.buckets.get(b, 0), "bucket": str(label).lower()}
        for b, label in BUCKETS
    ]
    return _("%(lesson)s: %(counts)s") % {"lesson": column.title, "counts": ", ".join(parts)}


# Item analysis -------------------------------------------------------------------------


@dataclass
class CommonAnswer:
    text: str
    count: int
    students: list[str]


@dataclass
class VersionShare:
    version: int
    first: int
    right: int

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.first) if self.first else None


# A lesson's item analysis, for a kind with no template of its own ---------------------


@dataclass
class ItemAnalysis:
    """How a class did on one item: what the generic analysis template
    (tutor/teaching/kinds/analysis.html) shows for a kind that declares no template."""

    anchor: str  # the item's id on the teacher's lesson page: "<kind>-<key>"
    title: str
    headline: str = ""  # "12 of 20 who answered got it right (60%)"; empty: nobody yet
    figures: list[tuple[str, str]] = field(default_factory=list)  # ("Tries (median)", "2")
    # Ranked lists, each a heading and (text, students): ("Most common wrong answers", ...)
    rankings: list[tuple[str, list[tuple[str, int]]]] = field(default_factory=list)


# A student's timeline ------------------------------------------------------------------


@dataclass
class Event:
    """One thing a student did. A kind with an event template of its own renders `row`
    with it; any other kind fills the words below and the timeline's generic template
    shows them (tutor/teaching/kinds/event.html)."""

    kind: str  # "prediction", "ordering", "run", ...
    when: datetime
    row: object = None
    template: str = "tutor/teaching/kinds/event.html"
    detail: str = ""  # e.g. an ordering check's lines, as the student put them
    title: str = ""  # "Answered “Which line runs first?”"
    link: str = ""  # where the item is on the teacher's lesson page
    place: str = ""  # the lesson's title
    verdict: str = ""  # "Right", "Wrong", ...
    tone: str = "other"  # right, wrong or other: how the verdict is marked


def timeline(*groups: Iterable[Event]) -> list[Event]:
    """Every practice kind's events, newest first."""
    return sorted((event for group in groups for event in group), key=lambda event: event.when, reverse=True)


def grouped(rows, value) -> dict[int, list]:
    """Rows grouped by their first column (an id), each turned into `value(row)`."""
    groups: dict[int, list] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(value(row))
    return groups


# CSV -----------------------------------------------------------------------------------

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value) -> object:
    """A learner's text that a spreadsheet would run as a formula is written as text."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_lines(header: list[str], rows: Iterable[Iterable]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    # The byte order mark tells spreadsheets the file is UTF-8 (Excel reads it as ANSI
    # otherwise, and names with accents come out garbled).
    yield "\ufeff" + writer.writerow(header)
    for row in rows:
        yield writer.writerow([spreadsheet_safe(value) for value in row])


def grid_csv_rows(
    memberships: Iterable[tuple], progress: Iterable[tuple], lesson_pks: list[int]
) -> Iterator[list]:
    """memberships: (student pk, username, first, last, joined_at) by student pk; progress:
    (user pk, lesson pk, done, total, completed) by user pk. Both are walked once, together,
    so a class of any size streams in constant memory."""
    index = {pk: i for i, pk in enumerate(lesson_pks)}
    progress = iter(progress)
    pending = next(progress, None)
    for student_pk, username, first, last, joined_at in memberships:
        while pending is not None and pending[0] < student_pk:
            pending = next(progress, None)
        cells = [EMPTY_CELL] * len(lesson_pks)
        while pending is not None and pending[0] == student_pk:
            _, lesson_pk, done, total, completed = pending
            if lesson_pk in index:
                cells[index[lesson_pk]] = progress_cell(done, total, completed)
            pending = next(progress, None)
        overall = round(sum(c.percent for c in cells) / len(cells)) if cells else 0
        yield [
            username,
            f"{first} {last}".strip(),
            joined_at.date().isoformat(),
            *["" if c is EMPTY_CELL else c.percent for c in cells],
            overall,
        ]


# Completion over time (a step chart, 100 × 40 units) -----------------------------------


@dataclass
class OverTime:
    students: int
    complete: int
    period: str  # in words: "between 1 Dec 2026 and 3 Dec 2026", "on 3 Dec 2026 at 09:12", ...
    unit: str  # what a step is: "Day" or "Time"
    steps: list[tuple[str, int]]  # (day or time, students complete by the end of it)
    points: str = ""  # SVG polyline points; empty when every completion is at one moment
    start: str = ""  # the labels under the chart's two ends
    end: str = ""


def _step_points(offsets: list[float], totals: list[int], students: int) -> str:
    """A step line from 0 up to each total at its offset (0 to 1) across the chart."""
    points, y_before = [], 40.0
    for offset, total in zip(offsets, totals, strict=True):
        x = round(100 * offset, 3)
        y = round(40 - 40 * total / students, 3)
        points += [f"{x},{y_before}", f"{x},{y}"]
        y_before = y
    points.append(f"100,{y_before}")
    return " ".join(points)


def completion_over_time(completed: list[datetime], students: int) -> OverTime | None:
    """completed: when each student completed the lesson, oldest first.

    Over several days the chart steps once a day; within one day it steps at each time
    (a line over one day between two equal dates would say nothing); at one single
    moment there is no line to draw, only the sentence."""
    if not completed or not students:
        return None
    local = [timezone.localtime(when) for when in completed]
    # Translators: a day as the teacher's chart names it (Django's date format letters).
    day = functools.partial(date_format, format=pgettext("date format", "j M Y"))
    if local[0].date() != local[-1].date():
        per_day = Counter(when.date() for when in local)
        days = sorted(per_day)
        span = (days[-1] - days[0]).days
        totals = list(itertools.accumulate(per_day[d] for d in days))
        return OverTime(
            students,
            totals[-1],
            _("between %(first)s and %(last)s") % {"first": day(days[0]), "last": day(days[-1])},
            _("Day"),
            [(day(d), total) for d, total in zip(days, totals, strict=True)],
            _step_points([(d - days[0]).days / span for d in days], totals, students),
            day(days[0]),
            day(days[-1]),
        )
    per_minute = Counter(when.replace(second=0, microsecond=0) for when in local)
    minutes = sorted(per_minute)
    totals = list(itertools.accumulate(per_minute[m] for m in minutes))
    clock = functools.partial(date_format, format="H:i")
    steps = [(clock(m), total) for m, total in zip(minutes, totals, strict=True)]
    if len(minutes) == 1:
        return OverTime(
            students,
            totals[-1],
            _("on %(day)s at %(time)s") % {"day": day(minutes[0]), "time": clock(minutes[0])},
            _("Time"),
            steps,
        )
    span = (minutes[-1] - minutes[0]).total_seconds()
    return OverTime(
        students,
        totals[-1],
        _("on %(day)s, between %(first)s and %(last)s")
        % {"day": day(minutes[0]), "first": clock(minutes[0]), "last": clock(minutes[-1])},
        _("Time"),
        steps,
        _step_points([(m - minutes[0]).total_seconds() / span for m in minutes], totals, students),
        clock(minutes[0]),
        clock(minutes[-1]),
    )
