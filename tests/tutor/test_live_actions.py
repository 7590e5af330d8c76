"""The live view's record of what each learner is doing: the practice kinds' actions move
it, and the stuck rules read it (tutor.live)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_cohort, make_exercise, make_lesson, make_snippet, make_user
from tutor import queueing
from tutor.actions.runs import queue_run
from tutor.live import actions
from tutor.live.board import build_board
from tutor.live.models import LessonActivity, LiveSettings, RaisedHand
from tutor.practice.ordering.actions import check_order, move_line
from tutor.practice.snippet.actions import submit_prediction

pytestmark = pytest.mark.django_db

WRONG = ["l2", "l1", "l3", "l4"]
RIGHT = ["l1", "l2", "l3", "l4"]


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)


@pytest.fixture
def student():
    return make_user("sam")


@pytest.fixture
def exercise():
    return make_exercise()


def activity(user, lesson) -> LessonActivity:
    return LessonActivity.objects.get(user=user, lesson=lesson)


def board_row(cohort, lesson, user, *, now=None):
    board = build_board(cohort, lesson, now=now or timezone.now())
    return next(row for row in board.students if row.pk == user.pk)


def test_three_wrong_checks_in_a_row_make_a_student_stuck(student, exercise):
    cohort = make_cohort(students=[student])
    lesson = exercise.block.lesson
    for n in range(3):
        check_order(user=student, exercise=exercise, order=WRONG, unused=[])
        assert board_row(cohort, lesson, student).stuck == ([] if n < 2 else ["3 failed in a row"])
    row = activity(student, lesson)
    assert row.block == exercise.block
    assert row.failures == 3
    assert row.what == "checked the order — wrong (3 lines in order)"


def test_a_solving_check_starts_the_count_again(student, exercise):
    cohort = make_cohort(students=[student])
    for _ in range(2):
        check_order(user=student, exercise=exercise, order=WRONG, unused=[])
    check_order(user=student, exercise=exercise, order=RIGHT, unused=[])
    row = activity(student, exercise.block.lesson)
    assert (row.failures, row.done, row.what) == (0, True, "checked the order — solved")
    assert board_row(cohort, exercise.block.lesson, student).stuck == []


def test_moving_on_to_another_item_starts_the_count_again(student, exercise):
    lesson = exercise.block.lesson
    other = make_exercise(lesson)
    for _ in range(2):
        check_order(user=student, exercise=exercise, order=WRONG, unused=[])
    check_order(user=student, exercise=other, order=WRONG, unused=[])
    row = activity(student, lesson)
    assert (row.block, row.failures) == (other.block, 1)


def test_moving_lines_is_neither_a_failure_nor_progress(student, exercise):
    for _ in range(2):
        check_order(user=student, exercise=exercise, order=WRONG, unused=[])
    move_line(user=student, exercise=exercise, key="l1", direction="down")
    row = activity(student, exercise.block.lesson)
    assert (row.failures, row.what) == (2, "moved lines")


def test_minutes_on_one_item_without_progress_make_a_student_stuck(student, exercise):
    cohort = make_cohort(students=[student])
    lesson = exercise.block.lesson
    check_order(user=student, exercise=exercise, order=WRONG, unused=[])
    now = timezone.now()
    assert board_row(cohort, lesson, student, now=now + timedelta(minutes=4)).stuck == []
    stuck = board_row(cohort, lesson, student, now=now + timedelta(minutes=6))
    assert stuck.stuck == ["6 min without progress"]
    assert stuck.on_for == "6 min"


def test_a_student_whose_last_step_was_progress_is_not_stuck_however_long(student, exercise):
    cohort = make_cohort(students=[student])
    check_order(user=student, exercise=exercise, order=RIGHT, unused=[])
    later = timezone.now() + timedelta(minutes=30)
    assert board_row(cohort, exercise.block.lesson, student, now=later).stuck == []


def test_each_class_sets_its_own_rules(student, exercise):
    strict = make_cohort(students=[student])
    lenient = make_cohort(students=[student])
    actions.save_settings(cohort=lenient, stuck_failures=5, stuck_minutes=20)
    lesson = exercise.block.lesson
    for _ in range(3):
        check_order(user=student, exercise=exercise, order=WRONG, unused=[])
    later = timezone.now() + timedelta(minutes=10)
    lenient.refresh_from_db()
    assert board_row(strict, lesson, student, now=later).stuck == [
        "3 failed in a row",
        "10 min without progress",
    ]
    assert board_row(lenient, lesson, student, now=later).stuck == []
    assert LiveSettings.objects.get(cohort=lenient).stuck_failures == 5


def test_a_late_verdict_never_takes_the_learner_back_to_an_earlier_block(student, exercise):
    lesson = exercise.block.lesson
    snippet = make_snippet(lesson)
    actions.record(user=student, block=snippet.block, what="ran their code")
    actions.record(
        user=student, block=exercise.block, what="checked — wrong", failed=True, later=True
    )
    row = activity(student, lesson)
    assert (row.block, row.what, row.failures) == (snippet.block, "ran their code", 0)


def test_predicting_and_running_code_show_as_the_last_action(student):
    snippet = make_snippet()
    submit_prediction(user=student, snippet=snippet, text="hello\n", said_out_loud=False)
    row = activity(student, snippet.block.lesson)
    assert (row.block, row.what, row.done) == (snippet.block, "predicted", True)
    queue_run(code="print(2)\n", user=student, snippet=snippet)
    assert activity(student, snippet.block.lesson).what == "ran their code"


def test_a_prediction_shows_its_verdict_once_the_output_is_known(student):
    from tutor.actions.runs import execute_run

    snippet = make_snippet(code='print("hello")\n')
    _, run = submit_prediction(user=student, snippet=snippet, text="bye\n", said_out_loud=False)
    assert activity(student, snippet.block.lesson).what == "predicted"  # no output yet
    execute_run(run_id=run.pk)  # the real sandbox: the worker gives the verdict
    row = activity(student, snippet.block.lesson)
    assert (row.block, row.what, row.done) == (snippet.block, "predicted — not quite", True)
    right = make_user("rita")
    submit_prediction(user=right, snippet=snippet, text="hello\n", said_out_loud=False)
    assert activity(right, snippet.block.lesson).what == "predicted — right"  # settled at once


def test_the_board_puts_stuck_students_first_then_working_then_not_started(exercise):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    cohort = make_cohort(students=[ann, bob, cat])
    check_order(user=ann, exercise=exercise, order=RIGHT, unused=[])
    for _ in range(3):
        check_order(user=cat, exercise=exercise, order=WRONG, unused=[])
    board = build_board(cohort, exercise.block.lesson, now=timezone.now())
    assert [row.name for row in board.students] == ["cat", "ann", "bob"]
    assert board.stuck == 1


def test_a_hand_is_raised_only_by_a_student_of_a_class(student):
    lesson = make_lesson()
    with pytest.raises(actions.HandRefused):
        actions.raise_hand(user=student, lesson=lesson)
    make_cohort(students=[student])
    first = actions.raise_hand(user=student, lesson=lesson)
    assert actions.raise_hand(user=student, lesson=lesson) == first  # keeps its place
    actions.lower_hand(user=student, lesson=lesson)
    assert not RaisedHand.objects.exists()


def test_hands_queue_oldest_first_and_a_teacher_clears_only_their_class(exercise):
    lesson = exercise.block.lesson
    ann, bob, outsider = make_user("ann"), make_user("bob"), make_user("out")
    cohort = make_cohort(students=[ann, bob])
    make_cohort(students=[outsider])
    for user in (bob, outsider, ann):
        actions.raise_hand(user=user, lesson=lesson)
    board = build_board(cohort, lesson, now=timezone.now())
    assert [hand.student.name for hand in board.hands] == ["bob", "ann"]
    with pytest.raises(actions.HandRefused):
        actions.clear_hands(cohort=cohort, lesson=lesson, student_pk=outsider.pk)
    assert actions.clear_hands(cohort=cohort, lesson=lesson, student_pk=bob.pk) == 1
    assert actions.clear_hands(cohort=cohort, lesson=lesson) == 1
    assert list(RaisedHand.objects.values_list("user__username", flat=True)) == ["out"]


def test_a_graded_submission_says_how_many_tests_pass_and_counts_as_a_failure_or_progress(
    student, sample_content
):
    from course.kinds.code_exercise import CodeExercise
    from tutor.actions.runs import execute_run
    from tutor.practice.code_exercise.actions import submit_code

    exercise = CodeExercise.objects.select_related("block__lesson").get(
        block__key="write-kv-cache-vram"
    )
    lesson = exercise.block.lesson
    submission = submit_code(user=student, exercise=exercise, code="print('no idea')\n")
    assert activity(student, lesson).what == "submitted — being tested"
    execute_run(run_id=submission.run_id)
    row = activity(student, lesson)
    total = exercise.tests.count()
    assert (row.what, row.failures) == (f"submitted — 0 of {total} tests pass", 1)
    submission = submit_code(user=student, exercise=exercise, code=exercise.solution)
    execute_run(run_id=submission.run_id)
    row = activity(student, lesson)
    assert (row.what, row.failures, row.done) == (
        f"submitted — {total} of {total} tests pass",
        0,
        True,
    )
