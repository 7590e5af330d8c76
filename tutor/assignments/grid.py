"""What the teacher's pages show of where students stand on an assignment: rows of the
class's table, the tally, the CSV. Plain functions over what the views fetched."""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from course.models import Block
from tutor.assignments.forms import item_label
from tutor.assignments.models import Assignment
from tutor.assignments.status import LABELS, LATE, MISSING, NOT_YET, ON_TIME, Standing, standings
from tutor.models import Membership
from tutor.quizzes.results import best_attempts, duration_words
from tutor.teaching import student_name

ORDER = [ON_TIME, LATE, MISSING, NOT_YET]


@dataclass
class StudentRow:
    pk: int
    name: str
    standing: Standing
    time_taken: str = ""  # a quiz: how long the best attempt took


def with_time_taken(rows: list[StudentRow], assignment: Assignment) -> list[StudentRow]:
    """A quiz's rows, each with how long the student's best attempt took (one query)."""
    if not assignment.quiz:
        return rows
    best = best_attempts(assignment, [row.pk for row in rows])
    for row in rows:
        if row.pk in best:
            row.time_taken = duration_words(best[row.pk].time_taken)
    return rows


def student_rows(
    found: dict[tuple[int, int], Standing], assignment: Assignment, students: list[tuple]
) -> list[StudentRow]:
    """students: (pk, username, first, last), in the order to show."""
    return [
        StudentRow(pk, student_name(username, first, last), found[(assignment.pk, pk)])
        for pk, username, first, last in students
    ]


def tally(
    found: dict[tuple[int, int], Standing], assignment: Assignment, students: list[int]
) -> list[tuple[str, str, int]]:
    """(status, label, how many students), in a fixed order: the numbers read without colour."""
    counts = Counter(found[(assignment.pk, pk)].status for pk in students)
    return [(status, LABELS[status], counts[status]) for status in ORDER]


def item_names(assignment: Assignment, items: list[tuple[int, str]]) -> list[str]:
    blocks = Block.objects.in_bulk([pk for pk, _ in items])
    return [item_label(blocks[pk]) for pk, _ in items if pk in blocks]


def when(moment: datetime | None) -> str:
    """A time in a spreadsheet: ISO 8601 in the page's time zone (the browser's, else the
    class's), to the minute."""
    if moment is None:
        return ""
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


CSV_HEADER = [
    "username",
    "name",
    "lesson",
    "items",
    "opens",
    "due",
    "extended",
    "submitted",
    "items done",
    "status",
]


QUIZ_CSV_HEADER = ["attempts", "score (best attempt, %)"]


def csv_header(assignment: Assignment) -> list[str]:
    return CSV_HEADER + (QUIZ_CSV_HEADER if assignment.quiz else [])


def csv_rows(found, assignment: Assignment, students: list[tuple]):
    items = "whole lesson" if assignment.whole_lesson else "some exercises"
    if assignment.is_drawn:
        items = f"{assignment.draw_count} drawn on {', '.join(assignment.draw_topics)}"
    for pk, username, first, last in students:
        standing = found[(assignment.pk, pk)]
        quiz = []
        if assignment.quiz:
            quiz = [standing.attempts, "" if standing.percent is None else standing.percent]
        yield [
            username,
            f"{first} {last}".strip(),
            assignment.lesson.title,
            items,
            when(assignment.opens_at),
            when(standing.due_at),
            "yes" if standing.extended else "",
            when(standing.submitted_at),
            f"{standing.done} of {standing.total}",
            standing.label,
            *quiz,
        ]


# The class page's grid, filtered to one assignment -------------------------------------


def members(cohort):
    """The class's students as a subquery of user pks (for `standings`' queries)."""
    return Membership.objects.filter(cohort=cohort).values("student_id")


def chosen_assignment(cohort, value: str) -> Assignment | None:
    """The class's assignment named by `?assignment=` (none when empty); 404 for anything
    else, another class's assignment included."""
    if not value:
        return None
    if not value.isdecimal():
        raise Http404("No such assignment in this class.")
    return get_object_or_404(
        Assignment.objects.select_related("lesson"), pk=int(value), cohort=cohort
    )


def class_grid_context(cohort, value: str) -> dict:
    """What the class page adds: the class's assignments for its filter and, when one is
    chosen, where each student stands on it (a fixed number of queries)."""
    assignments = list(Assignment.objects.of_class(cohort).select_related("lesson"))
    chosen = chosen_assignment(cohort, value)
    context = {"assignments": assignments, "assignment": chosen}
    if chosen is not None:
        students = list(
            User.objects.filter(memberships__cohort=cohort)
            .order_by("username")
            .values_list("pk", "username", "first_name", "last_name")
        )
        found = standings([chosen], [pk for pk, *_ in students], among=members(cohort))
        context["assignment_rows"] = with_time_taken(student_rows(found, chosen, students), chosen)
        context["assignment_tally"] = tally(found, chosen, [pk for pk, *_ in students])
    return context
