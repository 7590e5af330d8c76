"""What teachers' pages compute (tutor/teaching.py), called directly: the class grid, its
sorting and chart, item analysis, a student's timeline, completion over time, and CSV."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from tests.factories import (
    make_exercise,
    make_learner_run,
    make_ordering_attempt,
    make_prediction,
    make_snippet,
    make_user,
)
from tutor import teaching
from tutor.practice.ordering import teaching as ordering_teaching
from tutor.practice.ordering.models import OrderingAttempt
from tutor.practice.snippet import teaching as snippet_teaching
from tutor.practice.snippet.models import Prediction

SOLVED, NOT_YET, CHECKING = (
    OrderingAttempt.Verdict.SOLVED,
    OrderingAttempt.Verdict.WRONG,
    OrderingAttempt.Verdict.PENDING,
)


def test_a_student_is_named_by_their_name_and_username_or_by_the_username_alone():
    assert teaching.student_name("ada", "Ada", "Lovelace") == "Ada Lovelace (ada)"
    assert teaching.student_name("ada", "", "Lovelace") == "Lovelace (ada)"
    assert teaching.student_name("ada", "Ada") == "Ada (ada)"
    assert teaching.student_name("ada") == "ada"


# The class grid ----------------------------------------------------------------------


def test_only_a_completed_lesson_reads_100_percent():
    assert teaching.progress_cell(3, 3, True) == teaching.Cell(100, "100%", "done")
    assert teaching.progress_cell(199, 200, False) == teaching.Cell(99, "99%", "high")
    assert teaching.progress_cell(1, 2, False) == teaching.Cell(50, "50%", "high")
    assert teaching.progress_cell(1, 3, False) == teaching.Cell(33, "33%", "low")
    assert teaching.progress_cell(0, 0, False) == teaching.Cell(0, "0%", "low")


STUDENTS = [(1, "amy", "", ""), (2, "bob", "Bob", "Jones"), (3, "cy", "", "")]
LESSONS = [(10, "Loops", "Python"), (20, "Lists", "Python")]
PROGRESS = [
    (1, 10, 2, 2, True),
    (1, 20, 1, 5, False),
    (2, 10, 4, 5, False),
    (99, 10, 1, 1, True),  # not in the class
    (1, 30, 1, 1, True),  # a lesson the grid does not show
]


def grid() -> teaching.ClassGrid:
    return teaching.build_grid(STUDENTS, LESSONS, PROGRESS)


def test_the_grid_has_a_cell_per_student_and_lesson_and_ignores_other_rows():
    built = grid()
    assert [(c.pk, c.title, c.course, c.number) for c in built.columns] == [
        (10, "Loops", "Python", 1),
        (20, "Lists", "Python", 2),
    ]
    assert [(row.name, [cell.text for cell in row.cells], row.overall) for row in built.rows] == [
        ("amy", ["100%", "20%"], 60),
        ("Bob Jones (bob)", ["80%", "—"], 40),  # a lesson not started counts as 0%
        ("cy", ["—", "—"], 0),
    ]


def test_each_lesson_column_counts_its_buckets_and_averages_every_student():
    loops, lists = grid().columns
    assert loops.buckets == {"done": 1, "high": 1, "low": 0, "none": 1}
    assert (loops.complete, loops.average) == (1, 60)
    assert lists.buckets == {"done": 0, "high": 0, "low": 1, "none": 2}
    assert (lists.complete, lists.average) == (0, 7)
    assert grid().average == 33


def test_an_empty_class_or_a_course_without_practice_makes_an_empty_grid():
    no_students = teaching.build_grid([], LESSONS, PROGRESS)
    assert no_students.rows == []
    assert [c.average for c in no_students.columns] == [0, 0]
    assert no_students.average == 0
    no_lessons = teaching.build_grid(STUDENTS, [], PROGRESS)
    assert [row.overall for row in no_lessons.rows] == [0, 0, 0]


def test_a_rows_cells_are_written_as_html_cells_coloured_by_bucket():
    amy = grid().rows[0]
    bob = grid().rows[1]
    assert (
        amy.cells_html == '<td class="cell cell-done">100%</td><td class="cell cell-low">20%</td>'
    )
    assert bob.cells_html == '<td class="cell cell-high">80%</td><td class="cell cell-none">—</td>'


def sorted_names(sort: str) -> list[str]:
    built = grid()
    teaching.sort_rows(built, sort)
    return [row.name for row in built.rows]


def test_rows_sort_by_student_overall_or_lesson_with_ties_read_alphabetically():
    assert sorted_names("student") == ["amy", "Bob Jones (bob)", "cy"]
    assert sorted_names("-student") == ["cy", "Bob Jones (bob)", "amy"]
    assert sorted_names("overall") == ["cy", "Bob Jones (bob)", "amy"]
    assert sorted_names("-overall") == ["amy", "Bob Jones (bob)", "cy"]
    assert sorted_names("lesson-10") == ["cy", "Bob Jones (bob)", "amy"]
    assert sorted_names("-lesson-20") == ["amy", "Bob Jones (bob)", "cy"]  # Bob and cy: 0% each
    assert sorted_names("lesson-20") == ["Bob Jones (bob)", "cy", "amy"]


def test_an_unknown_sort_sorts_by_student():
    for sort in ["", "bogus", "-lesson-30", "lesson-", "--student"]:
        assert sorted_names(sort) == ["amy", "Bob Jones (bob)", "cy"]


def test_each_heading_links_to_its_sort_and_the_current_one_turns_the_direction_round():
    built = grid()
    headers = teaching.sort_rows(built, "")
    assert headers["student"] == teaching.SortHeader("-student", "ascending")
    assert headers["overall"] == teaching.SortHeader("-overall", "")  # most done first
    assert [c.header for c in built.columns] == [
        teaching.SortHeader("-lesson-10", ""),
        teaching.SortHeader("-lesson-20", ""),
    ]

    built = grid()
    headers = teaching.sort_rows(built, "-lesson-20")
    assert headers["student"] == teaching.SortHeader("student", "")
    assert [c.header for c in built.columns] == [
        teaching.SortHeader("-lesson-10", ""),
        teaching.SortHeader("lesson-20", "descending"),
    ]


# The distribution chart ----------------------------------------------------------------


def test_the_chart_stacks_the_buckets_in_order_and_leaves_out_empty_ones():
    loops = grid().columns[0]
    assert teaching.distribution(loops, 3) == [
        teaching.Segment("done", "Complete", 1, 0.0, 33.333),
        teaching.Segment("high", "Half or more", 1, 33.333, 33.333),
        teaching.Segment("none", "Not started", 1, 66.667, 33.333),
    ]
    empty_class = teaching.build_grid([], LESSONS, []).columns[0]
    assert teaching.distribution(empty_class, 0) == []
    assert teaching.distribution_text(loops) == (
        "Loops: 1 complete, 1 half or more, 0 started, 1 not started"
    )


@given(st.lists(st.integers(min_value=0, max_value=500), min_size=4, max_size=4))
def test_the_charts_segments_fill_its_width_side_by_side(counts):
    column = teaching.GridColumn(1, "Loops", "Python", 1)
    column.buckets = dict(zip([key for key, _ in teaching.BUCKETS], counts, strict=True))
    segments = teaching.distribution(column, sum(counts))
    assert [s.count for s in segments] == [count for count in counts if count]
    assert [s.bucket for s in segments] == [
        key for (key, _), n in zip(teaching.BUCKETS, counts, strict=True) if n
    ]
    if segments:
        assert segments[0].start == 0
        assert sum(s.share for s in segments) == pytest.approx(100, abs=0.01)
    for before, after in zip(segments, segments[1:], strict=False):
        assert after.start == pytest.approx(before.start + before.share, abs=0.002)


# Item analysis -------------------------------------------------------------------------

R, W, SR, SW = (
    Prediction.Verdict.RIGHT,
    Prediction.Verdict.WRONG,
    Prediction.Verdict.SELF_RIGHT,
    Prediction.Verdict.SELF_WRONG,
)


@pytest.mark.django_db
def test_a_snippets_analysis_counts_first_predictions_on_its_current_version():
    snippet = make_snippet(code='print("hello")\n', expected_output="hello\n", version=3)
    analysis = snippet_teaching.analyse_snippet(
        snippet,
        [
            (3, R, "hello\n", "Amy"),
            (3, SR, "", "Bob"),
            (3, W, "hallo\n", "Cy"),
            (3, W, "hallo  \n\n", "ada"),  # the same answer, as a learner compares output
            (3, W, "bye\n", "Dan"),
            (3, SW, "", "Eve"),
            (3, Prediction.Verdict.PENDING, "hello\n", "Fay"),
            (3, Prediction.Verdict.SELF_UNCHECKED, "", "Gus"),
            (2, R, "hello\n", "Hal"),
            (2, W, "hi\n", "Ivy"),
            (2, Prediction.Verdict.PENDING, "hi\n", "Jo"),
            (1, SW, "", "Kim"),
        ],
    )
    assert (analysis.key, analysis.version, analysis.code) == (snippet.key, 3, 'print("hello")\n')
    assert (analysis.first, analysis.right, analysis.percent) == (6, 2, 33)
    assert (analysis.waiting, analysis.unchecked) == (1, 1)
    assert analysis.wrong_answers == [
        teaching.CommonAnswer("hallo", 2, ["ada", "Cy"]),
        teaching.CommonAnswer("bye", 1, ["Dan"]),
    ]
    assert analysis.older == [teaching.VersionShare(2, 2, 1), teaching.VersionShare(1, 1, 0)]
    assert [share.percent for share in analysis.older] == [50, 0]


@pytest.mark.django_db
def test_a_snippet_nobody_answered_yet_has_no_percentage_and_top_limits_the_wrong_answers():
    snippet = make_snippet()
    assert snippet_teaching.analyse_snippet(snippet, []).percent is None
    wrong = [(1, W, f"answer {n}\n", f"student {n}") for n in range(8)]
    assert len(snippet_teaching.analyse_snippet(snippet, wrong).wrong_answers) == 5
    assert len(snippet_teaching.analyse_snippet(snippet, wrong, top=2).wrong_answers) == 2


@pytest.mark.django_db
def test_an_exercises_analysis_counts_checks_until_solved_and_the_common_wrong_orders():
    exercise = make_exercise(lines=["first", "second", "third", "fourth"], distractors=["x = 0"])
    swapped = ["l2", "l1", "l3", "l4"]
    analysis = ordering_teaching.analyse_exercise(
        exercise,
        [
            (1, "Amy", NOT_YET, swapped),
            (1, "Amy", NOT_YET, swapped),
            (1, "Amy", SOLVED, ["l1", "l2", "l3", "l4"]),
            (1, "Amy", NOT_YET, ["l4", "l3", "l2", "l1"]),  # after solving: says nothing
            (2, "Bob", CHECKING, swapped),  # no verdict yet: says nothing
            (2, "Bob", SOLVED, ["l1", "l2", "l3", "l4"]),
            (3, "Cy", NOT_YET, swapped),
            (3, "Cy", NOT_YET, ["l1", "d1", "l3", "l4"]),
            (4, "Dan", CHECKING, swapped),
            (5, "Eve", NOT_YET, ["l1", "gone"]),  # a line since deleted from the exercise
        ],
        [(1, 2), (3, 0), (5, 1)],
    )
    assert (analysis.key, analysis.title) == (exercise.key, exercise.title)
    assert (analysis.tried, analysis.solved, analysis.median_checks) == (4, 2, 2)
    assert (analysis.help_students, analysis.help_total) == (2, 3)
    assert analysis.wrong_orders == [
        teaching.CommonAnswer("second\nfirst\nthird\nfourth", 3, ["Amy", "Cy"]),
        teaching.CommonAnswer("first\nx = 0\nthird\nfourth", 1, ["Cy"]),
        teaching.CommonAnswer("first\n[gone]", 1, ["Eve"]),
    ]


@pytest.mark.django_db
def test_an_exercise_nobody_solved_has_no_median_and_top_limits_the_wrong_orders():
    exercise = make_exercise(lines=["a", "b", "c"])
    orders = [["l1", "l3", "l2"], ["l2", "l1", "l3"], ["l3", "l2", "l1"]]
    analysis = ordering_teaching.analyse_exercise(
        exercise, [(n, f"s{n}", NOT_YET, order) for n, order in enumerate(orders)], [], top=2
    )
    assert (analysis.tried, analysis.solved, analysis.median_checks) == (3, 0, None)
    assert len(analysis.wrong_orders) == 2


# A student's timeline ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_students_timeline_mixes_every_kinds_events_newest_first():
    user = make_user()
    snippet = make_snippet()
    now = timezone.now()
    predicted = make_prediction(user, snippet, created_at=now - timedelta(minutes=30))
    checked = make_ordering_attempt(user, make_exercise(), created_at=now - timedelta(minutes=5))
    ran = make_learner_run(user, snippet, created_at=now - timedelta(minutes=10))
    again = make_prediction(user, snippet, is_first=False, created_at=now)

    def event(kind, row):
        return teaching.Event(kind, row.created_at, row, f"tutor/teaching/kinds/{kind}_event.html")

    snippet_events = [event("prediction", predicted), event("run", ran), event("prediction", again)]
    ordering_events = [event("ordering", checked)]
    events = teaching.timeline(snippet_events, ordering_events)
    assert [(event.kind, event.row) for event in events] == [
        ("prediction", again),
        ("ordering", checked),
        ("run", ran),
        ("prediction", predicted),
    ]
    assert teaching.timeline([], []) == []


def test_rows_are_grouped_by_their_first_column_in_order():
    rows = [(1, "a", 10), (2, "b", 20), (1, "c", 30)]
    assert teaching.grouped(rows, lambda row: row[1:]) == {
        1: [("a", 10), ("c", 30)],
        2: [("b", 20)],
    }
    assert teaching.grouped([], lambda row: row) == {}


# Completion over time ------------------------------------------------------------------


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, second, tzinfo=UTC)


def test_nobody_complete_or_nobody_in_the_class_draws_no_chart():
    assert teaching.completion_over_time([], 4) is None
    assert teaching.completion_over_time([at(2, 9)], 0) is None


def test_completions_over_several_days_step_once_a_day():
    over = teaching.completion_over_time([at(2, 9), at(2, 15), at(4, 10)], 4)
    assert (over.students, over.complete, over.unit) == (4, 3, "Day")
    assert over.period == "between 2 Mar 2026 and 4 Mar 2026"
    assert over.steps == [("2 Mar 2026", 2), ("4 Mar 2026", 3)]
    assert over.points == "0.0,40.0 0.0,20.0 100.0,20.0 100.0,10.0 100,10.0"
    assert (over.start, over.end) == ("2 Mar 2026", "4 Mar 2026")


def test_completions_within_one_day_step_at_each_minute():
    over = teaching.completion_over_time([at(2, 9, 12, 30), at(2, 9, 12, 50), at(2, 10)], 3)
    assert (over.complete, over.unit) == (3, "Time")
    assert over.period == "on 2 Mar 2026, between 09:12 and 10:00"
    assert over.steps == [("09:12", 2), ("10:00", 3)]
    assert (over.start, over.end) == ("09:12", "10:00")
    assert over.points == "0.0,40.0 0.0,13.333 100.0,13.333 100.0,0.0 100,0.0"


def test_completions_at_one_moment_are_a_sentence_without_a_line():
    over = teaching.completion_over_time([at(2, 9, 12, 1), at(2, 9, 12, 59)], 5)
    assert over.period == "on 2 Mar 2026 at 09:12"
    assert over.steps == [("09:12", 2)]
    assert over.points == ""


def test_days_and_times_are_the_teachers_local_ones():
    with timezone.override("Europe/Paris"):
        over = teaching.completion_over_time([at(1, 23, 30), at(2, 0, 10)], 2)
    # 00:30 and 01:10 on 2 March in Paris: one day, not two.
    assert over.period == "on 2 Mar 2026, between 00:30 and 01:10"


# CSV -----------------------------------------------------------------------------------

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def test_text_a_spreadsheet_would_run_as_a_formula_is_written_as_text():
    assert teaching.spreadsheet_safe("=SUM(A1:A9)") == "'=SUM(A1:A9)"
    assert teaching.spreadsheet_safe("@cmd") == "'@cmd"
    assert teaching.spreadsheet_safe("-x") == "'-x"
    assert teaching.spreadsheet_safe("+1+2") == "'+1+2"
    assert teaching.spreadsheet_safe("\t=1") == "'\t=1"
    assert teaching.spreadsheet_safe("\r=1") == "'\r=1"
    # Numbers, other text and other values are written as they are.
    assert teaching.spreadsheet_safe("-3.5") == "-3.5"
    assert teaching.spreadsheet_safe("+7") == "+7"
    assert teaching.spreadsheet_safe("a = b") == "a = b"
    assert teaching.spreadsheet_safe("") == ""
    assert teaching.spreadsheet_safe(-5) == -5
    assert teaching.spreadsheet_safe(None) is None


formula_like = st.sampled_from(FORMULA_STARTS).flatmap(
    lambda start: st.text().map(lambda t: start + t)
)


@given(st.one_of(formula_like, st.text()))
def test_no_cell_starts_like_a_formula_unless_it_is_a_number(value):
    safe = teaching.spreadsheet_safe(value)
    assert safe in (value, "'" + value)  # the learner's text itself is never changed
    if safe.startswith(FORMULA_STARTS):
        float(safe)  # a number, which a spreadsheet reads as a number
    if safe != value:
        assert value.startswith(FORMULA_STARTS)


cell = st.one_of(st.text(), formula_like, st.integers())


@given(st.lists(st.text(), max_size=6), st.lists(st.lists(cell, max_size=6), max_size=6))
def test_csv_lines_read_back_as_the_header_and_the_safe_cells(header, rows):
    lines = list(teaching.csv_lines(header, rows))
    assert len(lines) == 1 + len(rows)  # one line per record, so a response can stream them
    assert lines[0].startswith("\ufeff")
    text = "".join(lines).removeprefix("\ufeff")
    read = list(csv.reader(io.StringIO(text, newline="")))
    expected_rows = [[str(teaching.spreadsheet_safe(value)) for value in row] for row in rows]
    assert read == [header, *expected_rows]


def test_the_progress_csv_has_a_row_per_student_with_their_percent_per_lesson():
    joined = datetime(2026, 1, 5, 23, 30, tzinfo=UTC)
    memberships = [
        (1, "amy", "Amy", "Adams", joined),
        (3, "bob", "", "", joined),
        (5, "cy", "", "Young", joined),
    ]
    progress = [
        (0, 10, 1, 1, True),  # not in the class
        (1, 10, 2, 2, True),
        (1, 20, 1, 5, False),
        (1, 30, 1, 1, True),  # a lesson the CSV does not list
        (4, 10, 1, 1, True),  # not in the class either
        (5, 20, 4, 5, False),
    ]
    rows = teaching.grid_csv_rows(iter(memberships), iter(progress), [10, 20])
    assert list(rows) == [
        ["amy", "Amy Adams", "2026-01-05", 100, 20, 60],
        ["bob", "", "2026-01-05", "", "", 0],
        ["cy", "Young", "2026-01-05", "", 80, 40],
    ]


progress_rows = st.dictionaries(
    st.tuples(st.integers(1, 12), st.integers(1, 5)),  # (student, lesson)
    st.tuples(st.integers(0, 8), st.integers(0, 8), st.booleans()).map(
        lambda t: (min(t[0], t[1]), t[1], t[2])  # done, total, completed
    ),
)


@given(
    st.sets(st.integers(1, 10)),
    st.lists(st.integers(1, 5), unique=True),
    progress_rows,
)
def test_the_progress_csv_says_what_the_grid_shows(students, lessons, progress):
    """Any class, any lessons, any progress (also of students no longer in the class)."""
    students = sorted(students)
    progress = [(user, lesson, *cell) for (user, lesson), cell in sorted(progress.items())]
    built = teaching.build_grid(
        [(pk, f"s{pk}", "", "") for pk in students],
        [(pk, f"L{pk}", "C") for pk in lessons],
        progress,
    )
    joined = datetime(2026, 1, 5, tzinfo=UTC)
    exported = teaching.grid_csv_rows(
        iter([(pk, f"s{pk}", "", "", joined) for pk in students]), iter(progress), lessons
    )
    shown = {
        row.name: (
            ["" if cell is teaching.EMPTY_CELL else cell.percent for cell in row.cells],
            row.overall,
        )
        for row in built.rows
    }
    assert {row[0]: (row[3:-1], row[-1]) for row in exported} == shown


def test_a_kind_without_templates_of_its_own_is_shown_by_the_generic_ones():
    """A new practice kind fills ItemAnalysis and Event with words; the generic templates
    show them on the lesson analysis and in the timeline, escaped."""
    from django.template.loader import render_to_string

    from tutor import practice

    kind = practice.PracticeKind()
    kind.name, kind.label = "choice", "Multiple choice"
    item = teaching.ItemAnalysis(
        anchor="choice-units",
        title="Which unit?",
        headline="3 of 4 got it right (75%)",
        figures=[("Tries (median)", "1")],
        rankings=[("Most common wrong answers", [("<b>MB</b>", 1)]), ("Empty", [])],
    )
    html = render_to_string(kind.analysis_template, {"kind": kind, "items": [item]})
    assert '<h2 id="choice-analysis-heading">Multiple choice</h2>' in html
    assert 'id="choice-units"' in html and "3 of 4 got it right (75%)" in html
    assert "<dt>Tries (median)</dt><dd>1</dd>" in html
    assert '&lt;b&gt;MB&lt;/b&gt; <span class="muted">· 1 student</span>' in html
    assert "Empty" not in html
    assert render_to_string(kind.analysis_template, {"kind": kind, "items": []}).strip() == ""

    event = teaching.Event(
        "choice",
        timezone.now(),
        title="Answered “Which unit?”",
        link="/x#choice-units",
        place="Units",
        verdict="Wrong",
        tone="wrong",
        detail="MB <3",
    )
    html = render_to_string(event.template, {"event": event})
    assert "Answered “Which unit?”" in html and 'href="/x#choice-units"' in html
    assert 'class="verdict verdict-wrong">Wrong<' in html and "MB &lt;3" in html
