"""A learner who had a Parsnip account links it once; their LMS then opens it."""

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from lti.models import ClassLink
from tests.factories import make_prediction, make_user
from tutor.actions.progress import refresh_lesson_progress
from tutor.models import Membership

pytestmark = pytest.mark.django_db(transaction=True)


def link(person, lms, username, password):
    form = person.session.get(lms.base + reverse("lti:link_account"), timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
    return person.session.post(
        lms.base + reverse("lti:link_account"),
        data={"csrfmiddlewaretoken": token, "username": username, "password": password},
        headers={"Referer": form.url},
        timeout=30,
    )


def test_a_learner_links_their_old_account_once_and_the_lms_opens_it(
    lms, course_with_link, person, lesson
):
    grace = make_user("grace")
    sam = person("s1")
    first = sam.launch(course_with_link)
    assert "Had a Parsnip account before?" in first.text
    assert (
        "Link my Parsnip account"
        in sam.session.get(lms.base + reverse("tutor:class_list"), timeout=30).text
    )

    wrong = link(sam, lms, "grace", "not-her-password")
    assert wrong.status_code == 400 and "do not match" in wrong.text
    done = link(sam, lms, "grace", "pw-grace")
    assert done.status_code == 200 and "your LMS now opens Parsnip as grace" in done.text
    assert done.url.endswith(lesson.get_absolute_url())
    assert Membership.objects.filter(student=grace, cohort=ClassLink.objects.get().cohort).exists()

    again = person("s1").launch(course_with_link)  # another day, another browser
    assert ">grace<" in again.text
    assert not User.objects.get(username__startswith="lms-", first_name="Sam").is_active


def test_an_lms_account_that_already_has_work_is_not_linked(lms, course_with_link, person, lesson):
    make_user("grace")
    sam = person("s1")
    sam.launch(course_with_link)
    account = User.objects.get(lti_users__sub="s1")
    make_prediction(account, lesson.snippets_for_test[0])
    refresh_lesson_progress(user=account, lesson=lesson)
    refused = link(sam, lms, "grace", "pw-grace")
    assert refused.status_code == 400 and "already worked in Parsnip" in refused.text
    assert User.objects.get(lti_users__sub="s1") == account


def test_a_parsnip_account_of_its_own_has_nothing_to_link(client):
    client.force_login(make_user("grace"))
    assert client.get(reverse("lti:link_account")).status_code == 400


def test_a_second_instructor_who_links_their_old_account_co_teaches_with_it(
    lms, course_with_link, person
):
    from tests.factories import make_teacher
    from tests.lti.fake_lms import INSTRUCTOR

    theo = make_teacher("theo")
    lms.add_person("t2", "Theo Second", c1=INSTRUCTOR)
    second = person("t2")
    second.launch(course_with_link)
    assert link(second, lms, "theo", "pw-theo").status_code == 200
    cohort = ClassLink.objects.get().cohort
    assert list(cohort.co_teachers.all()) == [theo]  # the LMS-made account no longer is one
    grid = second.session.get(
        lms.base + reverse("tutor:class_detail", args=[cohort.pk]), timeout=30
    )
    assert grid.status_code == 200 and ">theo<" in grid.text
