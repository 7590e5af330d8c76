"""One learner's actions arriving at once (two tabs, a double click, the worker's verdict
beside a new check) lose no count in the live view: threads on a file SQLite database
and, in `make test`'s second pass, on PostgreSQL."""

import pytest

from tests.factories import make_exercise, make_user
from tests.tutor.test_concurrent_clicks import at_once
from tutor.live import actions
from tutor.live.models import LessonActivity, RaisedHand
from tutor.practice.ordering.actions import check_order
from tutor.practice.ordering.models import OrderingAttempt

pytestmark = pytest.mark.django_db(transaction=True)

WRONG = ["l2", "l1", "l3", "l4"]


def test_failures_recorded_at_once_all_count_even_for_the_first_row():
    user, exercise = make_user(), make_exercise()
    results = at_once(
        8,
        lambda: actions.record(
            user=user, block=exercise.block, what="checked — wrong", failed=True
        ),
    )
    assert not [r for r in results if isinstance(r, Exception)]
    assert LessonActivity.objects.get(user=user).failures == 8


def test_wrong_checks_sent_at_once_are_each_counted_in_a_row():
    user, exercise = make_user(), make_exercise()
    check_order(user=user, exercise=exercise, order=WRONG, unused=[])  # the row exists
    results = at_once(6, lambda: check_order(user=user, exercise=exercise, order=WRONG, unused=[]))
    assert all(isinstance(r, OrderingAttempt) for r in results), results
    row = LessonActivity.objects.get(user=user)
    assert row.failures == 7 == OrderingAttempt.objects.filter(user=user).count()


def test_hands_raised_at_once_make_one_hand():
    from tests.factories import make_cohort

    user, exercise = make_user(), make_exercise()
    make_cohort(students=[user])
    results = at_once(6, lambda: actions.raise_hand(user=user, lesson=exercise.block.lesson))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert RaisedHand.objects.count() == 1
