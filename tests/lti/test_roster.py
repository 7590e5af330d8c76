"""The LMS course's roster read through NRPS: members who never launched join the class (the
teacher's grid shows them); members the LMS dropped leave it, their work kept."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from lti import roster
from lti.models import ClassLink
from tests.factories import make_prediction
from tests.lti.fake_lms import LEARNER
from tutor.models import Membership
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db(transaction=True)


def class_members(cohort) -> set[str]:
    return set(
        Membership.objects.filter(cohort=cohort).values_list("student__first_name", flat=True)
    )


def test_a_roster_sync_brings_in_members_who_never_launched_and_lets_dropped_ones_go(
    lms, course_with_link, person, lesson
):
    person("s1").launch(course_with_link)
    link = ClassLink.objects.get()
    lms.add_person("s3", "Tom Neverlaunched", c1=LEARNER)
    assert roster.sync_roster(class_link_id=link.pk) == {"joined": 2, "left": 0}  # Sue and Tom
    assert class_members(link.cohort) == {"Sam", "Sue", "Tom"}

    sam = User.objects.get(first_name="Sam")
    make_prediction(sam, lesson.snippets_for_test[0])
    lms.dropped.add("s1")
    assert roster.sync_roster(class_link_id=link.pk) == {"joined": 0, "left": 1}
    assert class_members(link.cohort) == {"Sue", "Tom"}
    assert Prediction.objects.filter(user=sam).count() == 1  # Sam's work stays Sam's
    # Tom, who never launched, signs in through the LMS into the same account.
    person("s3").launch(course_with_link)
    assert User.objects.filter(first_name="Tom").count() == 1


def test_the_teacher_asks_for_a_roster_sync_from_the_grades_page(
    lms, course_with_link, person, client
):
    person("t1").launch(course_with_link)
    cohort = ClassLink.objects.get().cohort
    client.force_login(cohort.teacher)
    response = client.post(reverse("lti:sync_roster", args=[cohort.pk]), follow=True)
    assert "The roster is being read from the LMS" in response.content.decode()
