"""A question answered reaches the LMS's gradebook through tutor's announcement of a changed
score (tutor.signals.progress_changed): lti imports nothing of the questions."""

import pytest
from django.contrib.auth.models import User

from lti import tasks
from lti.models import ScoreSync
from tests.tutor.question_world import make_question
from tutor.practice.questions.actions import answer_question

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_question_answered_right_is_sent_to_the_gradebook(lms, course_with_link, lesson, person):
    person("s1").launch(course_with_link)
    user = User.objects.get(lti_users__sub="s1")
    block = make_question("choice", lesson)
    answer_question(user=user, block=block, answer=["llama"])
    sync = ScoreSync.objects.get(user=user)
    assert (sync.score_given, sync.score_maximum) == (1, 4)  # three snippets and the question
    tasks.send_score(sync.pk)
    (item_id,) = lms.line_items
    score = lms.scores[item_id]["s1"]
    assert (score["scoreGiven"], score["scoreMaximum"]) == (1, 4)
