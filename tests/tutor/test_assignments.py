"""Assignments' rules: when work counts as submitted, on time / late / missing (with
extensions, at the due time exactly), and the actions that set, change, close and extend."""

from datetime import timedelta

import pytest

from tests.factories import make_exercise, make_lesson, make_prediction, make_user
from tests.tutor.assignment_world import (
    NOW,
    assign,
    class_of,
    do_code,
    do_everything,
    do_ordering,
    do_snippet,
    practice_lesson,
)
from tutor.assignments import actions
from tutor.assignments.learners import assigned_to
from tutor.assignments.models import Assignment, Extension
from tutor.assignments.status import (
    LATE,
    MISSING,
    NOT_YET,
    ON_TIME,
    standings,
    status_of,
    submission_time,
)
from tutor.practice.code_exercise.models import Submission
from tutor.practice.ordering.models import OrderingAttempt
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


# The rules, as plain functions ------------------------------------------------------------


def test_work_handed_in_exactly_at_the_due_time_is_on_time():
    assert status_of(submitted_at=NOW, due_at=NOW, now=NOW + HOUR) == ON_TIME


def test_work_handed_in_a_second_after_the_due_time_is_late():
    assert status_of(submitted_at=NOW + timedelta(seconds=1), due_at=NOW, now=NOW + HOUR) == LATE


def test_nothing_handed_in_is_not_yet_done_until_the_due_time_and_missing_after():
    assert status_of(submitted_at=None, due_at=NOW, now=NOW - HOUR) == NOT_YET
    assert status_of(submitted_at=None, due_at=NOW, now=NOW) == NOT_YET
    assert status_of(submitted_at=None, due_at=NOW, now=NOW + timedelta(seconds=1)) == MISSING


def test_a_whole_is_submitted_when_its_last_item_is():
    assert submission_time([NOW, NOW + HOUR]) == NOW + HOUR
    assert submission_time([NOW, None]) is None
    assert submission_time([]) is None


# Standings from the learners' rows -----------------------------------------------------


def test_a_lesson_is_submitted_when_every_practice_item_is_done_at_the_last_ones_time():
    student = make_user()
    lesson, items = practice_lesson()
    assignment = assign(class_of(student), lesson, due=NOW)
    do_snippet(student, items["snippet"], NOW - 3 * HOUR)
    do_ordering(student, items["ordering"], NOW - 2 * HOUR)
    standing = standings([assignment], [student.pk], now=NOW + HOUR)[(assignment.pk, student.pk)]
    assert (standing.done, standing.total, standing.status) == (2, 3, MISSING)
    do_code(student, items["code_exercise"], NOW + 2 * HOUR)
    standing = standings([assignment], [student.pk], now=NOW + 3 * HOUR)[
        (assignment.pk, student.pk)
    ]
    assert standing.submitted_at == NOW + 2 * HOUR
    assert standing.status == LATE


@pytest.mark.parametrize("kind", ["snippet", "ordering", "code_exercise"])
def test_each_kind_counts_as_done_from_the_first_row_that_did_it(kind):
    student = make_user()
    lesson, items = practice_lesson()
    block = items[kind].block
    assignment = assign(class_of(student), lesson, blocks=[block], due=NOW)
    from tests.tutor.assignment_world import DOERS

    DOERS[kind](student, items[kind], NOW - HOUR)
    DOERS[kind](student, items[kind], NOW + HOUR)  # done again later: the first time counts
    standing = standings([assignment], [student.pk], now=NOW + 2 * HOUR)[
        (assignment.pk, student.pk)
    ]
    assert (standing.total, standing.submitted_at, standing.status) == (1, NOW - HOUR, ON_TIME)


def test_work_that_did_not_do_the_item_does_not_count():
    student = make_user()
    lesson, items = practice_lesson()
    assignment = assign(class_of(student), lesson, due=NOW)
    make_prediction(
        student, items["snippet"], verdict=Prediction.Verdict.PENDING, created_at=NOW - HOUR
    )
    do_ordering(student, items["ordering"], NOW - HOUR).__class__.objects.update(
        verdict=OrderingAttempt.Verdict.WRONG
    )
    do_code(student, items["code_exercise"], NOW - HOUR, verdict=Submission.Verdict.FAILED)
    standing = standings([assignment], [student.pk], now=NOW + HOUR)[(assignment.pk, student.pk)]
    assert (standing.done, standing.status) == (0, MISSING)


def test_only_the_chosen_exercises_count_for_an_assignment_of_some():
    student = make_user()
    lesson, items = practice_lesson()
    assignment = assign(class_of(student), lesson, blocks=[items["ordering"].block], due=NOW)
    do_ordering(student, items["ordering"], NOW - HOUR)
    standing = standings([assignment], [student.pk], now=NOW + HOUR)[(assignment.pk, student.pk)]
    assert (standing.done, standing.total, standing.status) == (1, 1, ON_TIME)


def test_an_extension_moves_one_students_due_date_and_their_status_only():
    late, other = make_user(), make_user()
    lesson, items = practice_lesson()
    assignment = assign(class_of(late, other), lesson, due=NOW)
    Extension.objects.create(assignment=assignment, student=late, due_at=NOW + 2 * HOUR)
    for student in (late, other):
        do_everything(student, items, NOW + 2 * HOUR)  # exactly at the extended due time
    found = standings([assignment], [late.pk, other.pk], now=NOW + 3 * HOUR)
    assert (found[(assignment.pk, late.pk)].status, found[(assignment.pk, late.pk)].extended) == (
        ON_TIME,
        True,
    )
    assert (found[(assignment.pk, other.pk)].status, found[(assignment.pk, other.pk)].extended) == (
        LATE,
        False,
    )
    assert found[(assignment.pk, late.pk)].due_at == NOW + 2 * HOUR


def test_before_its_extended_due_date_a_student_is_not_yet_missing():
    student = make_user()
    lesson, _ = practice_lesson()
    assignment = assign(class_of(student), lesson, due=NOW - HOUR)
    Extension.objects.create(assignment=assignment, student=student, due_at=NOW + HOUR)
    assert (
        standings([assignment], [student.pk], now=NOW)[(assignment.pk, student.pk)].status
        == NOT_YET
    )


def test_standings_take_a_fixed_number_of_queries(django_assert_max_num_queries):
    lesson, items = practice_lesson()
    students = [make_user() for _ in range(6)]
    cohort = class_of(*students)
    assignments = [assign(cohort, lesson), assign(cohort, lesson, blocks=[items["snippet"].block])]
    for student in students[:3]:
        do_everything(student, items, NOW)
    with django_assert_max_num_queries(6):  # items (2), one per kind (3), extensions (1)
        found = standings(assignments, [s.pk for s in students])
    assert len(found) == 12


# What a student is shown ----------------------------------------------------------------


def test_a_student_sees_opened_assignments_of_their_classes_only():
    student, outsider = make_user(), make_user()
    lesson, _ = practice_lesson()
    cohort = class_of(student)
    shown = assign(cohort, lesson)
    assign(cohort, lesson, opens=NOW + HOUR, due=NOW + 2 * HOUR)  # not open yet
    assign(class_of(outsider), lesson)  # another class's
    assert [item.assignment for item in assigned_to(student)] == [shown]
    assert assigned_to(outsider)[0].assignment != shown


# Actions ----------------------------------------------------------------------------------


def test_setting_some_exercises_keeps_them_and_the_whole_lesson_otherwise():
    lesson, items = practice_lesson()
    cohort = class_of()
    some = actions.create_assignment(
        cohort=cohort,
        lesson=lesson,
        blocks=[items["snippet"].block],
        opens_at=NOW,
        due_at=NOW + HOUR,
    )
    whole = actions.create_assignment(
        cohort=cohort, lesson=lesson, blocks=[], opens_at=NOW, due_at=NOW + HOUR
    )
    assert (some.whole_lesson, list(some.blocks.all())) == (False, [items["snippet"].block])
    assert (whole.whole_lesson, whole.blocks.count()) == (True, 0)


def test_a_due_date_at_or_before_the_opening_is_refused():
    lesson, _ = practice_lesson()
    for due in (NOW, NOW - HOUR):
        with pytest.raises(actions.AssignmentRefused, match="after the opening"):
            actions.create_assignment(
                cohort=class_of(), lesson=lesson, blocks=[], opens_at=NOW, due_at=due
            )
    assert not Assignment.objects.exists()


def test_exercises_of_another_lesson_are_refused():
    lesson, _ = practice_lesson()
    elsewhere = make_exercise(make_lesson())
    with pytest.raises(actions.AssignmentRefused, match="assigned lesson"):
        actions.create_assignment(
            cohort=class_of(),
            lesson=lesson,
            blocks=[elsewhere.block],
            opens_at=NOW,
            due_at=NOW + HOUR,
        )


def test_changing_an_assignment_from_some_exercises_to_the_whole_lesson():
    lesson, items = practice_lesson()
    assignment = assign(class_of(), lesson, blocks=[items["snippet"].block])
    actions.update_assignment(
        assignment=assignment, lesson=lesson, blocks=[], opens_at=NOW, due_at=NOW + 2 * HOUR
    )
    assignment.refresh_from_db()
    assert (assignment.whole_lesson, assignment.blocks.count(), assignment.due_at) == (
        True,
        0,
        NOW + 2 * HOUR,
    )


def test_closing_twice_keeps_the_first_time_and_reopening_clears_it():
    lesson, _ = practice_lesson()
    assignment = assign(class_of(), lesson)
    first = actions.set_closed(assignment=assignment, closed=True).closed_at
    assert actions.set_closed(assignment=assignment, closed=True).closed_at == first
    assert actions.set_closed(assignment=assignment, closed=False).closed_at is None


def test_an_extension_is_for_a_student_of_the_class_and_after_the_due_date():
    student, outsider = make_user(), make_user()
    lesson, _ = practice_lesson()
    assignment = assign(class_of(student), lesson, due=NOW)
    with pytest.raises(actions.AssignmentRefused, match="is not in"):
        actions.grant_extension(assignment=assignment, student=outsider, due_at=NOW + HOUR)
    with pytest.raises(actions.AssignmentRefused, match="after the assignment"):
        actions.grant_extension(assignment=assignment, student=student, due_at=NOW)
    actions.grant_extension(assignment=assignment, student=student, due_at=NOW + HOUR)
    actions.grant_extension(assignment=assignment, student=student, due_at=NOW + 2 * HOUR)  # moved
    assert list(Extension.objects.values_list("student", "due_at")) == [
        (student.pk, NOW + 2 * HOUR)
    ]
    actions.withdraw_extension(assignment=assignment, student=student)
    with pytest.raises(actions.AssignmentRefused, match="no extension"):
        actions.withdraw_extension(assignment=assignment, student=student)


def test_deleting_an_assignment_keeps_the_students_work():
    student = make_user()
    lesson, items = practice_lesson()
    assignment = assign(class_of(student), lesson)
    Extension.objects.create(assignment=assignment, student=student, due_at=NOW + 9 * HOUR)
    do_everything(student, items, NOW)
    actions.delete_assignment(assignment=assignment)
    assert not Extension.objects.exists()
    assert Prediction.objects.filter(user=student).exists()


def test_a_lesson_a_class_has_assigned_is_not_deleted_with_it():
    from course.learner_work import learner_work

    lesson, _ = practice_lesson()
    assign(class_of(), lesson)
    (work,) = learner_work([lesson])
    assert "assignments" in work.describe()
