"""A lesson started with nothing done yet (a wrong check) reaches the gradebook as what it
is: 0 of its items, in progress (docs/lti.md: the score is items done / items)."""

import pytest
from django.contrib.auth.models import User

from lti import tasks
from lti.models import ScoreSync
from tests.factories import make_exercise
from tutor.practice.ordering.actions import check_order

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_wrong_first_check_posts_zero_of_the_lessons_items_in_progress(
    lms, course_with_link, lesson, person
):
    person("s1").launch(course_with_link)
    user = User.objects.get(lti_users__sub="s1")
    exercise = make_exercise(lesson)
    check_order(user=user, exercise=exercise, order=["l4", "l3", "l2", "l1"], unused=[])
    sync = ScoreSync.objects.get(user=user)
    assert (sync.score_given, sync.score_maximum) == (0, 4)  # three snippets and the exercise
    tasks.send_score(sync.pk)
    (item_id,) = lms.line_items
    score = lms.scores[item_id]["s1"]
    assert (score["scoreGiven"], score["scoreMaximum"]) == (0, 4)
    assert score["activityProgress"] == "InProgress"
