"""Spaced review's cards: made from the lesson's first finished result and rated by it,
rescheduled by FSRS at each review (the intervals are the `fsrs` package's own for the same
ratings), and never touching the lesson's progress."""

from datetime import timedelta

import fsrs
import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import make_cohort, make_run, make_snippet, make_user
from tests.tutor.question_world import make_question
from tutor.models import LessonProgress, Run
from tutor.practice.questions.actions import answer_question
from tutor.practice.snippet.actions import submit_prediction
from tutor.review import today
from tutor.review.actions import SCHEDULER
from tutor.review.models import ReviewAnswer, ReviewCard

pytestmark = pytest.mark.django_db

PRINTS = 'print("hello")\nprint(2 + 2)\n'


def revealed_snippet(**fields):
    snippet = make_snippet(code=PRINTS, expected_output="hello\n4\n", **fields)
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="hello\n4\n")
    return snippet


def predict(user, snippet, text):
    prediction, _run = submit_prediction(user=user, snippet=snippet, text=text, said_out_loud=False)
    return prediction


def test_a_wrong_prediction_makes_a_card_rated_again():
    user, snippet = make_user(), revealed_snippet()
    predict(user, snippet, "hello\n5")
    card = ReviewCard.objects.get(user=user, block=snippet.block)
    assert card.reviews == 0 and card.due > card.created_at


def test_a_right_prediction_makes_no_card():
    user, snippet = make_user(), revealed_snippet()
    predict(user, snippet, "hello\n4")
    assert not ReviewCard.objects.filter(user=user).exists()


def test_a_later_prediction_does_not_change_the_card():
    user, snippet = make_user(), revealed_snippet()
    predict(user, snippet, "hello\n5")
    due = ReviewCard.objects.get(user=user).due
    predict(user, snippet, "hello\n4")
    assert ReviewCard.objects.get(user=user).due == due


def test_a_question_makes_its_card_once_finished_rated_by_the_tries_it_took(clock):
    user = make_user()
    block = make_question("choice")  # two tries
    answer_question(user=user, block=block, answer=["tgi"])
    assert not ReviewCard.objects.filter(user=user).exists()  # a try left: not finished
    answer_question(user=user, block=block, answer=["llama"])
    card = ReviewCard.objects.get(user=user, block=block)
    expected, _log = SCHEDULER.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Hard, clock.at)
    assert card.due == expected.due  # right after a wrong try: Hard


def test_a_question_right_first_time_is_rated_good(clock):
    user, block = make_user(), make_question("number")
    answer_question(user=user, block=block, answer={"text": "12.5", "value": 12.5})
    expected, _log = SCHEDULER.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Good, clock.at)
    assert ReviewCard.objects.get(user=user).due == expected.due


def test_the_intervals_are_fsrs_own_for_a_scripted_history(client, clock):
    """A wrong prediction, then five reviews on the Review page, each on the day it falls
    due, answered right, right, wrong, right, right: after each, the card is due exactly
    when the fsrs package itself schedules a card with the same ratings at the same times
    (its default parameters, no learning steps, no fuzzing)."""
    user, snippet = make_user(), revealed_snippet()
    client.force_login(user)
    predict(user, snippet, "hello\n5")
    reference = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    expected, _log = reference.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Again, clock.at)
    card = ReviewCard.objects.get(user=user)
    assert card.due == expected.due
    for said, rating in [
        ("hello\n4", fsrs.Rating.Good),
        ("hello\n4", fsrs.Rating.Good),
        ("hello\n2 + 2", fsrs.Rating.Again),
        ("hello\n4", fsrs.Rating.Good),
        ("hello\n4", fsrs.Rating.Good),
    ]:
        clock.at = card.due + timedelta(minutes=5)
        response = client.post(reverse("tutor:review_answer", args=[card.pk]), {"text": said})
        assert response.status_code == 302
        expected, _log = reference.review_card(expected, rating, clock.at)
        card.refresh_from_db()
        assert card.due == expected.due
        assert (card.stability, card.difficulty) == (expected.stability, expected.difficulty)
    assert [a.rating for a in ReviewAnswer.objects.filter(card=card)] == [3, 3, 1, 3, 3]


def test_a_review_changes_nothing_of_the_lesson(client, clock):
    user, snippet = make_user(), revealed_snippet()
    client.force_login(user)
    predict(user, snippet, "hello\n5")
    progress = LessonProgress.objects.get(user=user)
    card = ReviewCard.objects.get(user=user)
    clock.move(days=2)
    client.post(reverse("tutor:review_answer", args=[card.pk]), {"text": "hello\n4"})
    assert LessonProgress.objects.get(user=user).counts == progress.counts
    assert snippet.predictions.count() == 1


def test_the_day_holds_about_ten_minutes_most_overdue_first(clock):
    user = make_user()
    blocks = [make_question("number") for _ in range(12)]
    for block in blocks:
        answer_question(user=user, block=block, answer={"text": "1", "value": 1.0})  # wrong
        answer_question(user=user, block=block, answer={"text": "1", "value": 1.0})
        answer_question(user=user, block=block, answer={"text": "1", "value": 1.0})
        clock.move(minutes=1)
    clock.move(days=3)
    found = today.today(user)
    assert found.count == 10 and found.due == 12 and found.later == 2
    assert [card.block_id for card in found.cards] == [block.pk for block in blocks[:10]]


def test_review_is_open_alone_or_in_a_class_that_turned_it_on():
    alone, in_class = make_user(), make_user()
    cohort = make_cohort(students=[in_class])
    assert today.open_to(alone)
    assert not today.open_to(in_class)
    cohort.review = True
    cohort.save()
    assert today.open_to(in_class)


def test_a_prediction_said_out_loud_and_not_got_makes_a_card():
    from tutor.practice.snippet.actions import record_self_check

    user, snippet = make_user(), revealed_snippet()
    prediction, _run = submit_prediction(user=user, snippet=snippet, text="", said_out_loud=True)
    assert not ReviewCard.objects.filter(user=user).exists()
    record_self_check(prediction=prediction, got_it=False)
    assert ReviewCard.objects.filter(user=user, block=snippet.block).exists()


RATED = {
    fsrs.Rating.Again: (False, 0.0),
    fsrs.Rating.Hard: (False, 0.5),
    fsrs.Rating.Good: (True, 1.0),
}


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    first=st.sampled_from([fsrs.Rating.Again, fsrs.Rating.Hard, fsrs.Rating.Good]),
    history=st.lists(
        st.tuples(st.sampled_from(list(RATED)), st.integers(min_value=0, max_value=30)), max_size=8
    ),
)
def test_any_history_is_scheduled_as_fsrs_schedules_it(first, history):
    """Whatever the ratings and however late each review comes (0 to 30 days after it was
    due), the card is where `fsrs` puts a card with the same history."""
    from datetime import UTC, datetime

    from tutor.review.actions import make_card, review_card
    from tutor.review.items import Graded

    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    card = make_card(user=make_user(), block=make_question("choice"), rating=first, now=start)
    reference = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    expected, _log = reference.review_card(fsrs.Card(due=start), first, start)
    for rating, late in history:
        when = card.due + timedelta(days=late)
        right, score = RATED[rating]
        review_card(card=card, graded=Graded(right=right, score=score, answer=[]), now=when)
        expected, _log = reference.review_card(expected, rating, when)
        assert (card.due, card.stability, card.difficulty) == (expected.due, expected.stability, expected.difficulty)
