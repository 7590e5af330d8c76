"""The LMS course's roster read through NRPS: members who never launched join the class (the
teacher's grid shows them); members the LMS dropped leave it, their work kept."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.urls import reverse
from lti_tool.models import LtiMembership

from lti import roster, tasks
from lti.models import ClassLink
from tests.factories import make_cohort, make_prediction, make_score_sync, make_teacher, make_user
from tests.lti.fake_lms import INSTRUCTOR, LEARNER
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


def test_the_lms_courses_other_instructors_teach_its_class_from_a_roster_read(
    lms, course_with_link, person, client
):
    """An instructor the LMS lists teaches the class before their first launch (its pages,
    not a seat in it); one it drops stops; the teacher who made the class stays."""
    link = ClassLink.objects.get()
    lms.add_person("t2", "Ada Coteacher", c1=INSTRUCTOR)
    roster.sync_roster(class_link_id=link.pk)
    ada = User.objects.get(first_name="Ada")
    cohort = link.cohort
    assert list(cohort.co_teachers.all()) == [ada]
    assert "Ada" not in class_members(cohort)
    client.force_login(ada)
    assert client.get(reverse("tutor:class_detail", args=[cohort.pk])).status_code == 200
    # Launching later is the same account, teaching the same class once.
    person("t2").launch(course_with_link)
    assert User.objects.filter(first_name="Ada").count() == 1
    assert list(cohort.co_teachers.all()) == [ada]

    lms.dropped.update({"t1", "t2"})
    roster.sync_roster(class_link_id=link.pk)
    assert list(cohort.co_teachers.all()) == []
    assert client.get(reverse("tutor:class_detail", args=[cohort.pk])).status_code in (403, 404)
    cohort.refresh_from_db()
    assert cohort.teacher.first_name == "Tess"  # the class is still hers


def test_the_teacher_asks_for_a_roster_sync_from_the_grades_page(
    lms, course_with_link, person, client
):
    person("t1").launch(course_with_link)
    cohort = ClassLink.objects.get().cohort
    client.force_login(cohort.teacher)
    response = client.post(reverse("lti:sync_roster", args=[cohort.pk]), follow=True)
    assert "The roster is being read from the LMS" in response.content.decode()


def roster_line(client, cohort) -> tuple[str, str]:
    """What the teacher's Grades in the LMS page says about the roster: (state, text)."""
    from html import unescape

    page = client.get(reverse("lti:class_grades", args=[cohort.pk]))
    assert page.status_code == 200
    found = re.search(
        r'<li id="roster-\d+" data-roster="(\w+)">(.*?)</li>', page.content.decode(), re.S
    )
    return found.group(1), " ".join(unescape(re.sub(r"<[^>]+>", "", found.group(2))).split())


def test_a_failed_roster_read_shows_what_the_lms_said_and_changes_nothing_until_a_good_one(
    lms, course_with_link, person, client, worker_inline
):
    person("s1").launch(course_with_link)
    cohort = ClassLink.objects.get().cohort
    client.force_login(cohort.teacher)
    read = reverse("lti:sync_roster", args=[cohort.pk])
    assert roster_line(client, cohort)[0] == "unread"
    client.post(read)
    state, text = roster_line(client, cohort)
    assert state == "read" and re.search(
        r"Roster read \d{4}-\d\d-\d\d \d\d:\d\d — 1 joined, 0 left", text
    )
    assert class_members(cohort) == {"Sam", "Sue"}

    # The LMS changes its roster, then fails the next reads: the class keeps what it had.
    lms.dropped.add("s1")
    lms.add_person("s3", "Tom Late", c1=LEARNER)
    lms.roster_failures = [500]
    client.post(read)
    state, text = roster_line(client, cohort)
    assert state == "failed"
    assert 'The LMS answered: HTTP 500: {"error": "roster unavailable (500)"}' in text
    assert "Nothing in the class changed (last good read" in text and "1 joined, 0 left)" in text
    assert class_members(cohort) == {"Sam", "Sue"}
    assert not User.objects.filter(first_name="Tom").exists()
    assert all(LtiMembership.objects.values_list("is_active", flat=True))
    # Its token endpoint refusing (once the kept token has run out) is a failed read too,
    # with its own answer.
    cache.clear()
    lms.token_failures = 1
    client.post(read)
    state, text = roster_line(client, cohort)
    assert state == "failed" and "HTTP 503" in text and "temporarily_unavailable" in text
    assert class_members(cohort) == {"Sam", "Sue"}

    # The LMS answers again: the next read brings the class in line and the failure goes.
    client.post(read)
    state, text = roster_line(client, cohort)
    assert state == "read" and "failed" not in text
    assert re.search(r"Roster read \d{4}-\d\d-\d\d \d\d:\d\d — 1 joined, 1 left", text)
    assert class_members(cohort) == {"Sue", "Tom"}


def test_a_roster_read_the_lms_never_answers_says_so(lms, course_with_link, client, settings):
    settings.LTI_HTTP_TIMEOUT_SECONDS = 0.5
    lms.roster_hangs = True  # until the test releases it: Parsnip's wait always runs out first
    link = ClassLink.objects.get()
    try:
        assert roster.sync_roster(class_link_id=link.pk) is None
    finally:
        lms.release.set()
    client.force_login(link.cohort.teacher)
    state, text = roster_line(client, link.cohort)
    assert state == "failed" and "No answer within 0.5 s" in text
    assert class_members(link.cohort) == set()  # Sam and Sue never launched: nobody came in


def test_the_sweep_reads_the_roster_of_every_class_linked_from_an_lms_course_only(
    lms, course_with_link, lesson, worker_inline
):
    linked = ClassLink.objects.get()
    unlinked = make_cohort(make_teacher())
    # A class linked from an LMS course that offers no roster (no NRPS): nothing to read.
    no_roster = make_cohort(make_teacher(), students=[make_user()])
    make_score_sync(no_roster, no_roster.students.get(), lesson)
    assert ClassLink.objects.filter(cohort=no_roster, context__memberships_url="").exists()

    assert tasks.sync_all_rosters() == 1
    assert worker_inline == [("lti.tasks.sync_roster", (linked.pk,))]
    assert class_members(linked.cohort) == {"Sam", "Sue"}  # the read happened
    assert not unlinked.memberships.exists()
    linked.refresh_from_db()
    assert linked.roster_synced_at is not None and linked.roster_joined == 2


@pytest.mark.django_db
def test_a_class_linked_from_no_lms_course_says_how_to_link_it_and_offers_no_button(client):
    cohort = make_cohort(make_teacher())
    client.force_login(cohort.teacher)
    page = client.get(reverse("lti:class_grades", args=[cohort.pk])).content.decode()
    assert "This class is not linked to an LMS course." in page
    assert "add Parsnip as an external tool" in page
    assert "Read the roster from the LMS" not in page
    assert "Re-sync the whole class" not in page
    # asked anyway (an old page, a hand-made POST), it says why nothing happens
    answer = client.post(reverse("lti:sync_roster", args=[cohort.pk]), follow=True).content.decode()
    assert "None of this class’s LMS courses lets Parsnip read its roster." in answer


def test_a_linked_class_offers_reading_its_roster_and_re_syncing_once_there_are_grades(
    lms, course_with_link, person, client
):
    person("t1").launch(course_with_link)
    cohort = ClassLink.objects.get().cohort
    client.force_login(cohort.teacher)
    page = client.get(reverse("lti:class_grades", args=[cohort.pk])).content.decode()
    assert "not linked to an LMS course" not in page
    assert "Read the roster from the LMS" in page
    assert "Re-sync the whole class" not in page  # no grade yet: nothing to send again
    assert "No grades yet" in page
