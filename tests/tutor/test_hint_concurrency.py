"""A double click (or a burst of them) on a hint ladder's button takes one rung: the rung
is named by the form and kept once (a unique constraint), on a file SQLite database and,
in `make test`'s second pass, on PostgreSQL."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.tutor.hint_world import code_with_hints, question_with_hints
from tests.tutor.test_concurrent_clicks import at_once
from tutor.practice.hints.actions import take_rung
from tutor.practice.hints.models import HintUse
from tutor.practice.questions.models import QuestionTries

pytestmark = pytest.mark.django_db(transaction=True)


def test_clicks_at_once_on_the_same_rung_take_it_once():
    user = make_user()
    block = code_with_hints()
    results = at_once(6, lambda: take_rung(user=user, block=block, rung=1))
    assert sorted(results) == [False] * 5 + [True]
    assert list(HintUse.objects.filter(user=user, block=block).values_list("rung", flat=True)) == [1]


def test_posts_at_once_from_one_learner_take_one_rung():
    user = make_user()
    block = code_with_hints()
    url = reverse("tutor:hint_next", args=[block.pk])

    def click():
        client = Client()
        client.force_login(user)
        return client.post(url, {"rung": "1"}, HTTP_HX_REQUEST="true").status_code

    assert at_once(4, click) == [200] * 4
    assert HintUse.objects.filter(user=user, block=block).count() == 1


def test_a_questions_answer_rung_taken_twice_at_once_finishes_it_once():
    user = make_user()
    block = question_with_hints()
    take_rung(user=user, block=block, rung=1)
    results = at_once(4, lambda: take_rung(user=user, block=block, rung=2))
    assert sorted(results) == [False] * 3 + [True]
    tries = QuestionTries.objects.get(user=user, block=block)
    assert tries.finished and tries.tries == 0
