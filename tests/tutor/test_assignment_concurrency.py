"""A teacher's double clicks (or two tabs) at once: granting an extension twice leaves one
extension, closing twice keeps one closing time; on a file SQLite database and, in
`make test`'s second pass, on PostgreSQL."""

from datetime import timedelta

import pytest

from tests.factories import make_user
from tests.tutor.assignment_world import NOW, assign, class_of, practice_lesson
from tests.tutor.test_concurrent_clicks import at_once
from tutor.assignments import actions
from tutor.assignments.models import Assignment, Extension

pytestmark = pytest.mark.django_db(transaction=True)


def test_extensions_granted_at_once_leave_one_extension_with_one_of_the_dates():
    student = make_user()
    lesson, _ = practice_lesson()
    assignment = assign(class_of(student), lesson, due=NOW)
    dates = [NOW + timedelta(hours=n) for n in range(1, 7)]
    each = iter(dates)  # one date per thread
    results = at_once(
        6,
        lambda: actions.grant_extension(
            assignment=Assignment.objects.get(pk=assignment.pk), student=student, due_at=next(each)
        ),
    )
    assert all(isinstance(result, Extension) for result in results), results
    (saved,) = Extension.objects.filter(assignment=assignment, student=student)
    assert saved.due_at in dates


def test_closing_at_once_keeps_one_closing_time():
    lesson, _ = practice_lesson()
    assignment = assign(class_of(), lesson)
    results = at_once(
        6,
        lambda: actions.set_closed(
            assignment=Assignment.objects.get(pk=assignment.pk), closed=True
        ),
    )
    assert len({result.closed_at for result in results}) == 1
    assignment.refresh_from_db()
    assert assignment.closed_at == results[0].closed_at
