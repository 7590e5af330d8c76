"""The teacher's review page: turning review on and off for a class, and the class's
retention (share right at review, by item); only the class's teachers see or change it."""

import pytest
from django.urls import reverse

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.question_world import make_question
from tutor.practice.questions.actions import answer_question
from tutor.review.models import ReviewCard

pytestmark = pytest.mark.django_db


def reviewed(client, student, block, number: str):
    client.force_login(student)
    card = ReviewCard.objects.get(user=student, block=block)
    client.post(reverse("tutor:review_answer", args=[card.pk]), {"number": number})


def test_a_teacher_turns_review_on_and_sees_retention_by_item(client, clock):
    teacher = make_teacher()
    ann, bob, outsider = make_user("ann"), make_user("bob"), make_user("zed")
    cohort = make_cohort(teacher, students=[ann, bob])
    block = make_question("number", tries=1, title="KV cache size")
    for student in (ann, bob, outsider):
        answer_question(user=student, block=block, answer={"text": "1", "value": 1.0})
    client.force_login(teacher)
    page = client.get(reverse("tutor:class_review", args=[cohort.pk]))
    assert page.status_code == 200 and "No answers at review yet" in page.text
    # What comes back at review, every kind named (code exercises too).
    assert "ordering exercises and code exercises" in page.text
    response = client.post(reverse("tutor:class_review_switch", args=[cohort.pk]), {"review": "on"})
    assert response.status_code == 302
    cohort.refresh_from_db()
    assert cohort.review
    clock.move(days=2)
    reviewed(client, ann, block, "12.5")
    reviewed(client, bob, block, "3")
    reviewed(client, outsider, block, "12.5")  # not in the class: not counted
    client.force_login(teacher)
    page = client.get(reverse("tutor:class_review", args=[cohort.pk])).text
    assert "KV cache size" in page and "50%" in page and "(1 of 2)" in page
    assert "(on)" in client.get(reverse("tutor:class_detail", args=[cohort.pk])).text


def test_turning_review_off(client):
    teacher = make_teacher()
    cohort = make_cohort(teacher, review=True)
    client.force_login(teacher)
    client.post(reverse("tutor:class_review_switch", args=[cohort.pk]), {"review": "off"})
    cohort.refresh_from_db()
    assert not cohort.review


@pytest.mark.parametrize("data", [{}, {"review": "maybe"}])
def test_a_malformed_switch_changes_nothing(client, data):
    teacher = make_teacher()
    cohort = make_cohort(teacher)
    client.force_login(teacher)
    response = client.post(reverse("tutor:class_review_switch", args=[cohort.pk]), data, follow=True)
    assert "Say whether review is on or off." in response.text
    cohort.refresh_from_db()
    assert not cohort.review


def test_only_the_class_teachers_see_or_switch_it(client):
    cohort = make_cohort(make_teacher())
    page = reverse("tutor:class_review", args=[cohort.pk])
    switch = reverse("tutor:class_review_switch", args=[cohort.pk])
    assert "/accounts/login/" in client.get(page)["Location"]
    assert "/accounts/login/" in client.post(switch, {"review": "on"})["Location"]
    client.force_login(make_user())
    assert client.get(page).status_code == 403
    assert client.post(switch, {"review": "on"}).status_code == 403
    client.force_login(make_teacher())
    assert client.get(page).status_code == 404
    assert client.post(switch, {"review": "on"}).status_code == 404
    cohort.refresh_from_db()
    assert not cohort.review
