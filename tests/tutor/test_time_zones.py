"""Due dates in the viewer's time zone: the browser's (its `tz` cookie), else the class's;
UTC in the database. And how far away a due date is, in words."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from tests.factories import make_teacher, make_user
from tests.tutor.assignment_world import assign, class_of, practice_lesson
from tutor.assignments.models import Assignment
from tutor.time_zones import time_left

pytestmark = pytest.mark.django_db

DUE = datetime(2031, 1, 15, 16, 0, tzinfo=UTC)  # 17:00 in Berlin (CET), 11:00 in New York (EST)


@pytest.fixture
def world(client):
    student = make_user("stu")
    teacher = make_teacher("tina")
    cohort = class_of(student, teacher=teacher)
    cohort.time_zone = "Europe/Berlin"
    cohort.save()
    lesson, _ = practice_lesson(title="Loops")
    assign(cohort, lesson, opens=datetime(2020, 1, 1, tzinfo=UTC), due=DUE)
    return {"student": student, "teacher": teacher, "cohort": cohort, "lesson": lesson}


@pytest.mark.parametrize("page", ["tutor:catalogue", "tutor:my_progress"])
def test_without_the_browsers_zone_a_student_sees_the_class_zone(client, world, page):
    client.force_login(world["student"])
    html = client.get(reverse(page)).text
    assert "Wed 15 Jan 2031, 17:00 CET" in html and "UTC" not in html


def test_with_the_browsers_zone_a_student_sees_their_own(client, world):
    client.force_login(world["student"])
    client.cookies["tz"] = "America%2FNew_York"  # as the script writes it
    html = client.get(reverse("tutor:catalogue")).text
    assert "Wed 15 Jan 2031, 11:00 EST" in html
    html = client.get(world["lesson"].get_absolute_url()).text
    assert "11:00 EST" in html


def test_a_made_up_zone_in_the_cookie_is_ignored(client, world):
    client.force_login(world["student"])
    client.cookies["tz"] = "Mars/Olympus_Mons"
    assert "17:00 CET" in client.get(reverse("tutor:catalogue")).text


def test_a_student_is_told_how_long_is_left(client, world, monkeypatch):
    from django.utils import timezone

    monkeypatch.setattr(timezone, "now", lambda: DUE - timedelta(days=3, hours=1))
    client.force_login(world["student"])
    assert "due in 3 days" in client.get(reverse("tutor:catalogue")).text
    monkeypatch.setattr(timezone, "now", lambda: DUE - timedelta(hours=2, minutes=5))
    assert "2 hours left" in client.get(world["lesson"].get_absolute_url()).text


def test_the_teacher_types_due_dates_in_the_class_zone_and_they_are_kept_in_utc(client, world):
    client.force_login(world["teacher"])
    url = reverse("tutor:assignment_create", args=[world["cohort"].pk])
    form = client.get(url).text
    assert "(Europe/Berlin, CE" in form  # the label names the zone the times are typed in
    client.post(
        url,
        {
            "lesson": world["lesson"].pk,
            "opens_at": "2031-02-01T08:00",
            "due_at": "2031-02-08T17:00",
        },
    )
    made = Assignment.objects.order_by("-pk").first()
    assert made.due_at == datetime(2031, 2, 8, 16, 0, tzinfo=UTC)
    # From a browser in Tokyo, the same words mean Tokyo's time.
    client.cookies["tz"] = "Asia%2FTokyo"
    client.post(
        url,
        {
            "lesson": world["lesson"].pk,
            "opens_at": "2031-02-01T08:00",
            "due_at": "2031-02-08T17:00",
        },
    )
    assert Assignment.objects.order_by("-pk").first().due_at == datetime(
        2031, 2, 8, 8, 0, tzinfo=UTC
    )


def test_the_teacher_sets_the_class_zone(client, world):
    client.force_login(world["teacher"])
    url = reverse("tutor:class_time_zone", args=[world["cohort"].pk])
    page = client.get(reverse("tutor:class_detail", args=[world["cohort"].pk])).text
    assert '<option value="Europe/Berlin" selected>' in page
    response = client.post(url, {"time_zone": "Asia/Kolkata"}, follow=True)
    assert "is now in Asia/Kolkata time" in response.text
    world["cohort"].refresh_from_db()
    assert world["cohort"].time_zone == "Asia/Kolkata"
    response = client.post(url, {"time_zone": "Nowhere/Special"}, follow=True)
    assert "Choose a time zone from the list" in response.text
    world["cohort"].refresh_from_db()
    assert world["cohort"].time_zone == "Asia/Kolkata"
    assert client.get(url).status_code == 405


def test_a_new_class_is_in_the_teachers_browser_zone(client, world):
    client.force_login(world["teacher"])
    client.cookies["tz"] = "Australia%2FSydney"
    client.post(reverse("tutor:class_create"), {"name": "Year 11"})
    from tutor.models import Cohort

    assert Cohort.objects.get(name="Year 11").time_zone == "Australia/Sydney"


def test_time_left_in_words():
    now = datetime(2031, 1, 1, tzinfo=UTC)
    assert time_left(now + timedelta(days=3, hours=5), now) == "due in 3 days"
    assert time_left(now + timedelta(days=1, hours=5), now) == "due in 1 day"
    assert time_left(now + timedelta(hours=2, minutes=59), now) == "2 hours left"
    assert time_left(now + timedelta(minutes=70), now) == "1 hour left"
    assert time_left(now + timedelta(minutes=20), now) == "20 minutes left"
    assert time_left(now - timedelta(hours=5), now) == "5 hours late"
    assert time_left(now - timedelta(days=4), now) == "4 days late"


@given(st.integers(min_value=-(10**8), max_value=10**8))
def test_time_left_always_says_one_thing_that_is_true(seconds):
    now = datetime(2031, 1, 1, tzinfo=UTC)
    said = time_left(now + timedelta(seconds=seconds), now)
    match = re.fullmatch(r"due in (\d+) days?|(\d+) (day|hour|minute)s? (left|late)", said)
    assert match, said
    assert said.endswith("late") == (seconds < 0)
    number = int(match.group(1) or match.group(2))
    unit = {"hour": 3600, "minute": 60}.get(match.group(3), 86400)
    # The number is the whole units in the gap (at least one minute).
    assert number * unit <= max(abs(seconds), 60) < (number + 1) * unit
