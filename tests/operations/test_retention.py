"""Where and when a person was is kept only as long as its setting says; their work stays."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from operations.tasks import purge_old_records
from tests.operations.population import populate
from tutor.assignments.models import Assignment, ClosedBookSeat
from tutor.live.models import LessonActivity, RaisedHand
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def test_old_presence_addresses_and_logins_go_and_the_work_stays(settings):
    school = populate(students=2)
    old, recent = school["learners"]
    lesson = school["lesson"]
    assignment = Assignment.objects.get()
    for user, when in ((old, NOW - timedelta(days=61)), (recent, NOW - timedelta(days=2))):
        LessonActivity.objects.create(user=user, lesson=lesson, what="ran", acted_at=when)
        RaisedHand.objects.create(user=user, lesson=lesson, raised_at=when)
        ClosedBookSeat.objects.create(assignment=assignment, student=user, session_key="k" * 40,
                                      address="10.1.2.3", seated_at=when)
    AccessAttempt.objects.create(username=old.username, ip_address="10.1.2.3", get_data="",
                                 post_data="", failures_since_start=1)
    AccessAttempt.objects.filter(username=old.username).update(
        attempt_time=NOW - timedelta(days=91))
    expired = SessionStore()
    expired.create()
    Session.objects.filter(pk=expired.session_key).update(expire_date=NOW - timedelta(days=1))
    predictions = Prediction.objects.count()

    done = purge_old_records()

    assert list(LessonActivity.objects.values_list("user", flat=True)) == [recent.pk]
    assert list(RaisedHand.objects.values_list("user", flat=True)) == [recent.pk]
    seats = dict(ClosedBookSeat.objects.values_list("student", "address"))
    assert seats == {old.pk: None, recent.pk: "10.1.2.3"}  # the seat stays, its address not
    assert not AccessAttempt.objects.exists()
    assert not Session.objects.filter(pk=expired.session_key).exists()
    assert Prediction.objects.count() == predictions
    assert done["presence"] == 2 and done["addresses"] == 1


def test_the_settings_decide(settings):
    school = populate(students=1)
    settings.RETENTION_DAYS = {**settings.RETENTION_DAYS, "presence": 400}
    LessonActivity.objects.create(user=school["learners"][0], lesson=school["lesson"],
                                  what="ran", acted_at=NOW - timedelta(days=100))
    purge_old_records()
    assert LessonActivity.objects.count() == 1
