"""Put it in order: the actions, called directly."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course.kinds.ordering import OrderingExercise
from tests.factories import make_exercise, make_user
from tutor import queueing
from tutor.actions.runs import RunRefused, execute_run
from tutor.models import Run
from tutor.practice.ordering import actions as actions
from tutor.practice.ordering.lines import ExerciseLines, starting_order
from tutor.practice.ordering.models import (
    OrderingArrangement,
    OrderingAttempt,
    OrderingHelp,
    OrderingRefused,
)

pytestmark = pytest.mark.django_db

PROGRAM = ["x = 2", "y = 3", 'print("sum", x + y)', 'print("product", x * y)']


def with_dependencies(exercise: OrderingExercise, needs: dict[str, list[str]]) -> OrderingExercise:
    for key, required in needs.items():
        line = exercise.lines.get(key=key)
        line.depends_on.set(exercise.lines.filter(key__in=required))
    return exercise


def arrangement(user, exercise) -> OrderingArrangement:
    return OrderingArrangement.objects.get(user=user, exercise=exercise)


# The starting shuffle ----------------------------------------------------------------


def test_the_shuffle_is_the_same_for_a_learner_and_never_the_solution():
    exercise = make_exercise(lines=["a", "b", "c", "d", "e"], distractors=["x"])
    lines = ExerciseLines.of(exercise)
    orders = [starting_order(user_id=user_id, lines=lines) for user_id in range(1, 60)]

    assert orders[0] == starting_order(user_id=1, lines=lines)
    assert all(sorted(order) == ["d1", "l1", "l2", "l3", "l4", "l5"] for order in orders)
    assert all(
        [k for k in order if k != "d1"] != ["l1", "l2", "l3", "l4", "l5"] for order in orders
    )
    assert len({tuple(order) for order in orders}) > 5


def test_a_tiny_exercise_still_starts_unsolved():
    lines = ExerciseLines.of(make_exercise(lines=["a", "b"]))
    assert all(
        starting_order(user_id=user_id, lines=lines) == ["l2", "l1"] for user_id in range(1, 20)
    )


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(min_value=4, max_value=12),
    distractors=st.integers(min_value=0, max_value=2),
    user_id=st.integers(min_value=1, max_value=10**9),
    exercise_id=st.integers(min_value=1, max_value=10**6),
)
def test_no_line_starts_in_place_unless_the_exercise_is_tiny(
    size, distractors, user_id, exercise_id
):
    """Not one line at its own place or right after the line it follows in the solution,
    and at most half of them in order with it: the first check says so, "1 of 7 in place"."""
    correct = [f"l{i}" for i in range(1, size + 1)]
    keys = correct + [f"d{i}" for i in range(1, distractors + 1)]
    lines = ExerciseLines(
        exercise_id=exercise_id,
        grading=OrderingExercise.Grading.EXACT,
        texts={key: key for key in keys},
        correct=correct,
        depends_on={},
        expected_output="",
    )
    order = starting_order(user_id=user_id, lines=lines)
    used = [key for key in order if key in correct]

    assert sorted(order) == sorted(keys)
    assert not any(key == want for key, want in zip(used, correct, strict=True))
    assert not any(
        correct.index(b) == correct.index(a) + 1 for a, b in zip(used, used[1:], strict=False)
    )
    assert len(lines.grade(order).in_order) <= size // 2


def test_the_shuffle_is_never_solved_under_the_dependency_rule():
    exercise = with_dependencies(
        make_exercise(lines=["a = 1", "b = 2", "print(a + b)"], grading="dependencies"),
        {"l3": ["l1", "l2"]},
    )
    lines = ExerciseLines.of(exercise)
    for user_id in range(1, 40):
        order = starting_order(user_id=user_id, lines=lines)
        assert order[-1] != "l3"  # any order ending with the print would already be right


# Moving lines -------------------------------------------------------------------------


def test_moves_are_saved_one_step_at_a_time():
    user, exercise = make_user(), make_exercise(distractors=["nope"])
    start = starting_order(user_id=user.pk, lines=ExerciseLines.of(exercise))
    second = start[1]

    actions.move_line(user=user, exercise=exercise, key=second, direction="up")
    assert arrangement(user, exercise).order[0] == second

    actions.move_line(user=user, exercise=exercise, key=second, direction="leave-out")
    saved = arrangement(user, exercise)
    assert second not in saved.order and saved.unused == [second]

    actions.move_line(user=user, exercise=exercise, key=second, direction="use")
    saved = arrangement(user, exercise)
    assert saved.order[-1] == second and saved.unused == []


def test_a_line_fixed_by_help_does_not_move_and_stays_on_top():
    user, exercise = make_user(), make_exercise()
    OrderingArrangement.objects.create(
        user=user, exercise=exercise, order=["l1", "l3", "l2", "l4"], fixed=["l1"]
    )
    with pytest.raises(OrderingRefused, match="fixed in place"):
        actions.move_line(user=user, exercise=exercise, key="l1", direction="down")

    actions.arrange_lines(user=user, exercise=exercise, order=["l3", "l1", "l2", "l4"], unused=[])
    assert arrangement(user, exercise).order == ["l1", "l3", "l2", "l4"]


# Checking -----------------------------------------------------------------------------


def test_exact_order_counts_checks_and_lines_in_place():
    user, exercise = make_user(), make_exercise()
    attempt = actions.check_order(
        user=user, exercise=exercise, order=["l1", "l2", "l4", "l3"], unused=[]
    )
    assert attempt.verdict == OrderingAttempt.Verdict.WRONG
    assert attempt.lines_in_place == 3  # l1, l2 and one of the swapped pair
    assert attempt.order == ["l1", "l2", "l4", "l3"]

    attempt = actions.check_order(
        user=user, exercise=exercise, order=["l1", "l2", "l3", "l4"], unused=[]
    )
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED
    saved = arrangement(user, exercise)
    assert (saved.checks, saved.wrong_checks) == (2, 1)
    assert saved.solved_at is not None

    with pytest.raises(OrderingRefused, match="solved this one already"):
        actions.check_order(user=user, exercise=exercise)


def test_a_distractor_left_in_the_answer_is_wrong():
    user, exercise = make_user(), make_exercise(lines=["a", "b"], distractors=["x"])
    attempt = actions.check_order(user=user, exercise=exercise, order=["l1", "l2", "d1"], unused=[])
    assert attempt.verdict == OrderingAttempt.Verdict.WRONG

    attempt = actions.check_order(user=user, exercise=exercise, order=["l1", "l2"], unused=["d1"])
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED


def test_dependency_grading_accepts_every_order_that_respects_them():
    exercise = with_dependencies(
        make_exercise(lines=["a = 1", "b = 2", "print(a + b)"], grading="dependencies"),
        {"l3": ["l1", "l2"]},
    )
    first, second, third = make_user(), make_user(), make_user()

    assert (
        actions.check_order(
            user=first, exercise=exercise, order=["l1", "l2", "l3"], unused=[]
        ).verdict
        == "solved"
    )
    assert (
        actions.check_order(
            user=second, exercise=exercise, order=["l2", "l1", "l3"], unused=[]
        ).verdict
        == "solved"
    )
    wrong = actions.check_order(user=third, exercise=exercise, order=["l1", "l3", "l2"], unused=[])
    assert wrong.verdict == "wrong"
    assert wrong.lines_in_place == 2  # the print needs b above it; a and b need nothing


@pytest.fixture
def output_exercise():
    return make_exercise(
        lines=PROGRAM, grading="output", expected_output="sum 5\nproduct 6\n", distractors=["x = 4"]
    )


def test_output_grading_runs_the_assembled_program(
    output_exercise, django_capture_on_commit_callbacks, monkeypatch
):
    queued = []
    monkeypatch.setattr(queueing, "enqueue_run", queued.append)
    user = make_user()
    # y = 3 before x = 2 prints the same: a different order, still right.
    with django_capture_on_commit_callbacks(execute=True):
        attempt = actions.check_order(
            user=user, exercise=output_exercise, order=["l2", "l1", "l3", "l4"], unused=["d1"]
        )
    assert attempt.verdict == OrderingAttempt.Verdict.PENDING
    assert attempt.run.purpose == Run.Purpose.CHECK
    assert attempt.run.code == 'y = 3\nx = 2\nprint("sum", x + y)\nprint("product", x * y)\n'
    assert queued == [attempt.run.pk]
    assert arrangement(user, output_exercise).checks == 1

    execute_run(run_id=attempt.run.pk)
    attempt.run.refresh_from_db()
    actions.settle_check(attempt=attempt)

    attempt.refresh_from_db()
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED
    assert arrangement(user, output_exercise).solved_at is not None


def test_output_grading_says_wrong_when_the_output_differs(output_exercise):
    user = make_user()
    attempt = actions.check_order(
        user=user, exercise=output_exercise, order=["l1", "l2", "l4", "l3"], unused=["d1"]
    )
    execute_run(run_id=attempt.run.pk)
    attempt.run.refresh_from_db()

    actions.settle_check(attempt=attempt)
    actions.settle_check(attempt=attempt)  # settling twice counts once

    attempt.refresh_from_db()
    assert attempt.verdict == OrderingAttempt.Verdict.WRONG
    saved = arrangement(user, output_exercise)
    assert (saved.checks, saved.wrong_checks, saved.solved_at) == (1, 1, None)


def test_the_solution_itself_is_accepted_without_running(output_exercise):
    user = make_user()
    attempt = actions.check_order(
        user=user, exercise=output_exercise, order=["l1", "l2", "l3", "l4"], unused=["d1"]
    )
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED
    assert attempt.run is None
    assert not Run.objects.exists()


def test_without_an_expected_output_the_solution_is_run_to_compare():
    exercise = make_exercise(lines=PROGRAM, grading="output", expected_output="")
    user = make_user()
    attempt = actions.check_order(
        user=user, exercise=exercise, order=["l1", "l2", "l4", "l3"], unused=[]
    )
    reference = Run.objects.get(user=None, purpose=Run.Purpose.CHECK)
    assert reference.code == "\n".join(PROGRAM) + "\n"

    execute_run(run_id=attempt.run.pk)
    attempt.run.refresh_from_db()
    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.PENDING

    execute_run(run_id=reference.pk)
    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.WRONG


# Help and starting again --------------------------------------------------------------


def wrong_checks(user, exercise, times=3):
    for _ in range(times):
        actions.check_order(
            user=user, exercise=exercise, order=["l2", "l1", "l3", "d1", "d2"], unused=[]
        )


def test_help_comes_after_three_wrong_checks_and_removes_distractors_then_fixes_lines():
    user, exercise = make_user(), make_exercise(lines=["a", "b", "c"], distractors=["x", "y"])
    wrong_checks(user, exercise, times=2)
    with pytest.raises(OrderingRefused, match="three checks"):
        actions.help_with_order(user=user, exercise=exercise)
    wrong_checks(user, exercise, times=1)

    said = actions.help_with_order(user=user, exercise=exercise)
    assert "took away “x”" in said
    saved = arrangement(user, exercise)
    assert saved.removed == ["d1"] and "d1" not in saved.order

    actions.help_with_order(user=user, exercise=exercise)
    actions.help_with_order(user=user, exercise=exercise)
    saved = arrangement(user, exercise)
    assert saved.removed == ["d1", "d2"]
    assert saved.fixed == ["l1"]
    assert saved.order == ["l1", "l2", "l3"]
    assert saved.help_used == 3

    attempt = actions.check_order(user=user, exercise=exercise)
    assert attempt.help_used == 3
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED
    given = OrderingHelp.objects.filter(user=user, exercise=exercise)
    assert list(given.values_list("given", "line_key")) == [
        ("removed", "d1"),
        ("removed", "d2"),
        ("fixed", "l1"),
    ]


def test_start_again_keeps_every_use_of_help_on_record():
    user, exercise = make_user(), make_exercise(lines=["a", "b", "c"], distractors=["x"])
    wrong_checks(user, exercise, times=3)
    actions.help_with_order(user=user, exercise=exercise)

    actions.start_again(user=user, exercise=exercise)

    assert arrangement(user, exercise).help_used == 0  # the board's count starts afresh
    assert OrderingHelp.objects.filter(user=user, exercise=exercise).count() == 1
    assert OrderingAttempt.objects.filter(user=user, exercise=exercise).count() == 3


def test_start_again_puts_the_lines_back_and_keeps_the_record():
    user, exercise = make_user(), make_exercise()
    actions.check_order(user=user, exercise=exercise, order=["l1", "l2", "l3", "l4"], unused=[])

    actions.start_again(user=user, exercise=exercise)

    saved = arrangement(user, exercise)
    lines = ExerciseLines.of(exercise)
    assert saved.order == starting_order(user_id=user.pk, lines=lines)
    assert (saved.checks, saved.solved_at) == (0, None)
    assert OrderingAttempt.objects.filter(user=user, verdict="solved").count() == 1


# Two requests at once -----------------------------------------------------------------


def test_a_check_does_not_lose_a_count_made_by_another_request_meanwhile(monkeypatch):
    """Counters change with F() expressions: a second request that counts a check while
    this one is grading is not overwritten by this one's stale copy of the row."""
    user, exercise = make_user(), make_exercise()
    actions.check_order(user=user, exercise=exercise, order=["l2", "l1", "l3", "l4"], unused=[])
    grade = ExerciseLines.grade

    def grade_while_another_request_counts(self, order):
        OrderingArrangement.objects.filter(user=user, exercise=exercise).update(
            checks=100, wrong_checks=100
        )
        return grade(self, order)

    monkeypatch.setattr(ExerciseLines, "grade", grade_while_another_request_counts)
    actions.check_order(user=user, exercise=exercise, order=["l2", "l1", "l3", "l4"], unused=[])

    saved = arrangement(user, exercise)
    assert (saved.checks, saved.wrong_checks) == (101, 101)


# The solution's reference run ---------------------------------------------------------


def equivalent_check(user, exercise) -> OrderingAttempt:
    """y = 3 before x = 2: prints what the solution prints, so it needs the reference."""
    return actions.check_order(
        user=user, exercise=exercise, order=["l2", "l1", "l3", "l4"], unused=[]
    )


def reference_runs():
    return Run.objects.filter(user=None, purpose=Run.Purpose.CHECK).order_by("pk")


@pytest.mark.parametrize("status", [Run.Status.FAILED, Run.Status.TIMEOUT, Run.Status.KILLED])
def test_a_reference_run_that_did_not_end_ok_is_run_again_not_taken_as_the_answer(status):
    exercise = make_exercise(lines=PROGRAM, grading="output", expected_output="")
    attempt = equivalent_check(make_user(), exercise)
    # A sandbox hiccup: the solution's run ended without its output.
    reference_runs().update(status=status, stdout="")
    execute_run(run_id=attempt.run.pk)
    attempt.run.refresh_from_db()

    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.PENDING
    again = reference_runs().last()
    assert again.status == Run.Status.QUEUED and reference_runs().count() == 2

    execute_run(run_id=again.pk)
    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.SOLVED


def test_a_reference_run_the_worker_lost_is_replaced():
    exercise = make_exercise(lines=PROGRAM, grading="output", expected_output="")
    attempt = equivalent_check(make_user(), exercise)
    lost = reference_runs().get()
    Run.objects.filter(pk=lost.pk).update(created_at=lost.created_at - Run.QUEUED_GRACE * 2)
    execute_run(run_id=attempt.run.pk)
    attempt.run.refresh_from_db()

    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.PENDING
    lost.refresh_from_db()
    assert lost.status == Run.Status.FAILED
    again = reference_runs().last()
    assert again.pk != lost.pk and again.status == Run.Status.QUEUED

    execute_run(run_id=again.pk)
    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.SOLVED


def test_a_solution_that_never_runs_cleanly_ends_the_wait_instead_of_queueing_forever():
    exercise = make_exercise(lines=PROGRAM, grading="output", expected_output="")
    attempt = equivalent_check(make_user(), exercise)
    execute_run(run_id=attempt.run.pk)
    attempt.run.refresh_from_db()
    for _ in range(actions.REFERENCE_TRIES):
        reference_runs().filter(status=Run.Status.QUEUED).update(status=Run.Status.FAILED)
        actions.settle_check(attempt=attempt)

    attempt.refresh_from_db()
    assert attempt.verdict == OrderingAttempt.Verdict.WRONG
    assert reference_runs().count() == actions.REFERENCE_TRIES


def test_a_check_whose_own_run_was_lost_settles_instead_of_waiting_forever():
    exercise = make_exercise(lines=PROGRAM, grading="output", expected_output="")
    user = make_user()
    attempt = equivalent_check(user, exercise)
    Run.objects.filter(pk=attempt.run.pk).update(
        created_at=attempt.run.created_at - Run.QUEUED_GRACE * 2
    )
    attempt.run.refresh_from_db()

    # The solution's run is still waiting for a worker; the learner's will never come.
    assert actions.settle_check(attempt=attempt).verdict == OrderingAttempt.Verdict.WRONG
    attempt.run.refresh_from_db()
    assert attempt.run.stderr == Run.WORKER_LOST_MESSAGE
    saved = arrangement(user, exercise)
    assert (saved.checks, saved.wrong_checks) == (1, 0)  # Parsnip's failure, not the learner's


# Too many runs ------------------------------------------------------------------------


def test_a_check_refused_for_too_many_runs_keeps_the_learners_last_move(output_exercise, settings):
    settings.RUNS_PER_MINUTE = 0
    user = make_user()
    with pytest.raises(RunRefused):
        actions.check_order(
            user=user, exercise=output_exercise, order=["l2", "l1", "l3", "l4"], unused=["d1"]
        )
    saved = arrangement(user, output_exercise)
    assert (saved.order, saved.unused, saved.checks) == (["l2", "l1", "l3", "l4"], ["d1"], 0)
    assert not OrderingAttempt.objects.exists()


# Lines edited after the learner started -----------------------------------------------


def test_a_line_added_to_the_exercise_joins_the_end_of_the_answer():
    user, exercise = make_user(), make_exercise(distractors=["nope"])
    OrderingArrangement.objects.create(
        user=user, exercise=exercise, order=["l2", "l1", "l3", "l4"], unused=["d1"]
    )
    exercise.lines.create(key="l5", text="fifth", position=5)
    exercise.lines.create(key="d2", text="also wrong", position=None)

    actions.move_line(user=user, exercise=exercise, key="l1", direction="up")
    saved = arrangement(user, exercise)
    # Even the new distractor: "Not used" would give away that it does not belong.
    assert saved.order[:4] == ["l1", "l2", "l3", "l4"] and set(saved.order[4:]) == {"l5", "d2"}
    assert saved.unused == ["d1"]

    actions.move_line(user=user, exercise=exercise, key="l5", direction="leave-out")
    actions.move_line(user=user, exercise=exercise, key="d2", direction="leave-out")
    actions.move_line(user=user, exercise=exercise, key="l5", direction="use")
    attempt = actions.check_order(user=user, exercise=exercise)
    assert attempt.order == ["l1", "l2", "l3", "l4", "l5"]
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED


def test_a_line_removed_from_the_exercise_leaves_the_answer_and_what_help_did():
    user, exercise = make_user(), make_exercise(distractors=["nope", "never"])
    OrderingArrangement.objects.create(
        user=user,
        exercise=exercise,
        order=["l1", "l2", "l4", "l3"],
        unused=[],
        fixed=["l1", "l2"],
        removed=["d1", "d2"],
        wrong_checks=3,
    )
    exercise.lines.filter(key__in=["l2", "d2"]).delete()

    actions.move_line(user=user, exercise=exercise, key="l3", direction="up")

    saved = arrangement(user, exercise)
    assert saved.order == ["l1", "l3", "l4"]
    assert (saved.fixed, saved.removed) == (["l1"], ["d1"])
    attempt = actions.check_order(user=user, exercise=exercise)
    assert attempt.verdict == OrderingAttempt.Verdict.SOLVED
