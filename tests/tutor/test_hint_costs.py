"""An assignment may state what each hint costs: the teacher sets it on the assignment's
form, the students read it beside the hints, and the assignment's page shows each
student's hints and their score after the cost (Parsnip keeps no other per-item score)."""

import pytest
from django.urls import reverse

from tests.factories import make_user
from tests.tutor.assignment_world import NOW, assign, class_of, do_code
from tests.tutor.hint_world import code_with_hints
from tests.tutor.test_assignment_views import HOUR, minute
from tutor.assignments.models import Assignment
from tutor.practice.hints.actions import take_rung
from tutor.practice.hints.teaching import score_after_hints

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    from tests.factories import make_teacher

    teacher = make_teacher("teacher")
    ann, bob = make_user("ann"), make_user("bob")
    cohort = class_of(ann, bob, teacher=teacher)
    block = code_with_hints()
    return {"teacher": teacher, "ann": ann, "bob": bob, "cohort": cohort, "block": block}


def form_data(world, **changes):
    data = {"lesson": world["block"].lesson_id, "opens_at": minute(NOW), "due_at": minute(NOW + 24 * HOUR)}
    return data | changes


def test_a_teacher_sets_a_hint_cost_and_changes_it(client, world):
    client.force_login(world["teacher"])
    create = reverse("tutor:assignment_create", args=[world["cohort"].pk])
    page = client.get(create).content.decode()
    assert 'name="hint_cost"' in page and "Hint cost (%)" in page
    assert client.post(create, form_data(world, hint_cost="10")).status_code == 302
    assignment = Assignment.objects.get()
    assert assignment.hint_cost == 10
    edit = reverse("tutor:assignment_edit", args=[world["cohort"].pk, assignment.pk])
    assert 'value="10"' in client.get(edit).content.decode()
    assert client.post(edit, form_data(world, hint_cost="")).status_code == 302
    assignment.refresh_from_db()
    assert assignment.hint_cost == 0


@pytest.mark.parametrize(("value", "error"), [
    ("101", "at most 100%"), ("-5", "at least 0%"), ("ten", "whole number of percent"), ("2.5", "whole number of percent"),
])
def test_a_hint_cost_outside_0_to_100_is_refused(client, world, value, error):
    client.force_login(world["teacher"])
    create = reverse("tutor:assignment_create", args=[world["cohort"].pk])
    response = client.post(create, form_data(world, hint_cost=value))
    assert response.status_code == 400
    assert error in response.content.decode()
    assert not Assignment.objects.exists()


def test_the_assignment_page_shows_hints_used_and_the_score_after_their_cost(client, world):
    block, ann, bob = world["block"], world["ann"], world["bob"]
    assignment = assign(world["cohort"], block.lesson, hint_cost=10)
    for rung in (1, 2, 3):
        take_rung(user=ann, block=block, rung=rung)
    do_code(ann, block.code_exercise, NOW)
    do_code(bob, block.code_exercise, NOW)
    client.force_login(world["teacher"])
    html = client.get(reverse("tutor:assignment_detail", args=[world["cohort"].pk, assignment.pk])).content.decode()
    assert "costs 10% of the item’s score" in html
    assert "Parsnip keeps no other per-item score yet" in html
    ann_row = html[html.index(">ann</a>"):]
    ann_row = ann_row[: ann_row.index("</tr>")]
    assert '<td data-label="Hints used">3</td>' in ann_row
    assert '<td data-label="Score after hints">70%</td>' in ann_row
    bob_row = html[html.index(">bob</a>"):]
    assert '<td data-label="Score after hints">100%</td>' in bob_row[: bob_row.index("</tr>")]


def test_without_a_cost_the_page_shows_hints_but_no_score(client, world):
    assignment = assign(world["cohort"], world["block"].lesson)
    take_rung(user=world["ann"], block=world["block"], rung=1)
    client.force_login(world["teacher"])
    html = client.get(reverse("tutor:assignment_detail", args=[world["cohort"].pk, assignment.pk])).content.decode()
    assert '<td data-label="Hints used">1</td>' in html
    assert "Score after hints" not in html and "costs" not in html


def test_the_score_after_hints_never_goes_below_zero_and_counts_undone_items_as_zero():
    assert score_after_hints(done=[True, True], rungs=[0, 3], cost=10) == 85
    assert score_after_hints(done=[True], rungs=[20], cost=10) == 0
    assert score_after_hints(done=[False, True], rungs=[0, 0], cost=50) == 50
    assert score_after_hints(done=[], rungs=[], cost=10) == 0
