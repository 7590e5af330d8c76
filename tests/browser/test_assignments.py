"""Assignments in the system Chromium: a teacher sets the seed lesson's ordering exercise
for their class; the student sees it on the home page and on the lesson, with its due
date; once the teacher closes it, the student's Check is refused in the exercise's panel."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.formats import date_format
from playwright.sync_api import expect

from course.kinds.ordering import OrderingExercise
from course.models import Lesson
from tests.browser.test_teaching_flow import logged_in
from tests.factories import make_cohort, make_teacher, make_user
from tutor.assignments.models import Assignment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"


def test_a_teacher_sets_an_exercise_and_the_student_sees_it_then_finds_it_closed(
    browser, live_server, sample_content
):
    cohort = make_cohort(make_teacher("tess"), students=[make_user("sam")], name="Tuesday group")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    due = (timezone.localtime() + timedelta(days=2)).replace(
        hour=17, minute=0, second=0, microsecond=0
    )

    teacher, teacher_errors = logged_in(browser, live_server, "tess")
    teacher.goto(f"/classes/{cohort.pk}/")
    teacher.get_by_role("link", name="Assignments").click()
    teacher.get_by_role("link", name="New assignment").click()
    teacher.get_by_label("Lesson", exact=True).select_option(
        str(lesson.pk)
    )  # htmx swaps its exercises in
    items = teacher.locator("#assignment-items")
    items.get_by_label(f"Put it in order: {exercise.title}").check()
    teacher.get_by_role("textbox", name="Due date").fill(due.strftime("%Y-%m-%dT%H:%M"))
    teacher.get_by_role("button", name="Set it").click()
    expect(teacher.get_by_role("heading", level=1)).to_have_text(lesson.title)
    assignment = Assignment.objects.get()
    assert (assignment.whole_lesson, list(assignment.blocks.all())) == (False, [exercise.block])
    assert assignment.due_at == due

    learner, learner_errors = logged_in(browser, live_server, "sam")
    learner.goto("/")
    assigned = learner.locator("section.assigned")
    expect(assigned).to_contain_text(lesson.title)
    shown_due = date_format(due, "D j M Y, H:i T")
    expect(assigned).to_contain_text(f"Due {shown_due}")
    expect(assigned).to_contain_text("Not yet done")
    assigned.get_by_role("link", name=lesson.title).click()
    banner = learner.locator(".lesson-assignment")
    expect(banner).to_contain_text("for Tuesday group: 1 of this lesson’s exercises")
    expect(banner.get_by_role("listitem")).to_have_text([f"Put it in order: {exercise.title}"])
    expect(banner).to_contain_text(shown_due)

    teacher.get_by_role("button", name="Close it").click()  # htmx swaps the open/closed region
    expect(teacher.locator("#assignment-state")).to_contain_text("Closed since")

    learner.reload()
    expect(learner.locator(".lesson-assignment")).to_contain_text("Closed by your teacher")
    region = learner.locator("#exercise-kv-cache-vram-order-practice")
    # Check is off, and the panel says why (issue 39: it stayed active and refused once pressed).
    expect(region.get_by_role("button", name="Check")).to_be_disabled()
    expect(region.locator(".practice-closed")).to_contain_text("Closed by your teacher")
    assert not exercise.attempts.exists()
    assert teacher_errors == []
    assert learner_errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_assignment_pages_have_no_serious_accessibility_violations(
    browser, live_server, sample_content, client, scheme
):
    import json

    from tests.browser.test_accessibility import violations
    from tests.tutor.assignment_world import do_everything
    from tutor.assignments.models import Extension

    students = [make_user("sam"), make_user("lee"), make_user("ana")]
    cohort = make_cohort(make_teacher("tess"), students=students, name="Tuesday group")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    now = timezone.now()
    past = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        opens_at=now - timedelta(days=3),
        due_at=now - timedelta(hours=2),
    )
    some = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        whole_lesson=False,
        closed_at=now,
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=2),
    )
    some.blocks.set([exercise.block])
    Extension.objects.create(assignment=past, student=students[0], due_at=now + timedelta(days=1))
    do_everything(students[1], {"ordering": exercise}, now - timedelta(hours=1))
    pages = {
        "tess": [
            f"/classes/{cohort.pk}/assignments/",
            f"/classes/{cohort.pk}/assignments/new/",
            f"/classes/{cohort.pk}/assignments/{past.pk}/",
            f"/classes/{cohort.pk}/assignments/{some.pk}/edit/",
            f"/classes/{cohort.pk}/?assignment={past.pk}",
        ],
        "sam": ["/", "/progress/", lesson.get_absolute_url()],
    }
    found = {}
    for username, urls in pages.items():
        client.force_login(User.objects.get(username=username))
        context = browser.new_context(
            base_url=live_server.url, color_scheme=scheme, bypass_csp=True
        )
        context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": client.cookies["sessionid"].value,
                    "url": live_server.url,
                }
            ]
        )
        page = context.new_page()
        for url in urls:
            page.goto(url)
            serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
            if serious:
                found[url] = serious
        context.close()
    assert not found, json.dumps(found, indent=1)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_due_date_is_shown_in_the_browsers_time_zone_with_the_time_left(
    browser, live_server, client, sample_content, width
):
    """The first page is in the class's zone (nothing from the browser yet); from then on
    in the browser's own, as the script tells the server."""
    import os
    from zoneinfo import ZoneInfo

    student = make_user("sam")
    cohort = make_cohort(make_teacher("tess"), students=[student], name="Year 10")
    cohort.time_zone = "Europe/Berlin"
    cohort.save()
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    due = timezone.now().replace(microsecond=0) + timedelta(days=3, hours=2)
    Assignment.objects.create(
        cohort=cohort, lesson=lesson, opens_at=timezone.now() - timedelta(days=1), due_at=due
    )
    client.force_login(student)
    context = browser.new_context(
        base_url=live_server.url, timezone_id="Asia/Tokyo", viewport={"width": width, "height": 900}
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.goto("/")
    assigned = page.locator("section.assigned")
    berlin = due.astimezone(ZoneInfo("Europe/Berlin"))
    expect(assigned).to_contain_text(date_format(berlin, "D j M Y, H:i T"))
    expect(assigned).to_contain_text("due in 3 days")
    page.reload()
    tokyo = due.astimezone(ZoneInfo("Asia/Tokyo"))
    expect(assigned).to_contain_text(date_format(tokyo, "D j M Y, H:i") + " JST")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if shots := os.environ.get("PARSNIP_SCREENSHOTS"):
        assigned.screenshot(path=os.path.join(shots, f"due-{width}.png"))
    assert Assignment.objects.get().due_at == due  # the database keeps the moment, in UTC
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_closed_book_tick_sits_beside_its_word_and_the_addresses_box_is_wide(
    browser, live_server, sample_content, width
):
    cohort = make_cohort(make_teacher("tess"), students=[make_user("sam")])
    teacher, errors = logged_in(browser, live_server, "tess")
    teacher.set_viewport_size({"width": width, "height": 900})
    teacher.goto(f"/classes/{cohort.pk}/assignments/new/")
    tick = teacher.get_by_role("checkbox", name="Closed-book")
    expect(tick).to_be_visible()
    box, word = tick.bounding_box(), teacher.locator("label[for=id_closed_book]").bounding_box()
    # On one line, the tick first: not a tick alone in the middle with its word below.
    assert box["x"] + box["width"] <= word["x"]
    assert box["y"] < word["y"] + word["height"] and word["y"] < box["y"] + box["height"]
    tick.check()
    addresses = teacher.get_by_role("textbox", name="Allowed addresses (closed-book)")
    assert addresses.bounding_box()["width"] >= min(28 * 16, width - 100)
    assert teacher.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    assert errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_the_assignments_items_have_their_bullets_inside_their_box(
    browser, live_server, sample_content, width
):
    cohort = make_cohort(make_teacher("tess"), students=[make_user("sam")])
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=Lesson.objects.get(slug="optimising-speed-and-memory"),
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=1),
    )
    teacher, errors = logged_in(browser, live_server, "tess")
    teacher.set_viewport_size({"width": width, "height": 900})
    teacher.goto(f"/classes/{cohort.pk}/assignments/{assignment.pk}/")
    box = teacher.locator("ul.assignment-items")
    expect(box.locator("li").first).to_be_visible()
    # A bullet is drawn about 1.5em left of its item: the item starts far enough in for it.
    room = box.evaluate(
        "ul => ul.querySelector('li').getBoundingClientRect().left - ul.getBoundingClientRect().left"
    )
    assert room >= 1.5 * 16
    assert errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_each_quiz_feedback_radio_sits_beside_its_words(browser, live_server, width):
    cohort = make_cohort(make_teacher("tess"), students=[make_user("sam")])
    teacher, errors = logged_in(browser, live_server, "tess")
    teacher.set_viewport_size({"width": width, "height": 900})
    teacher.goto(f"/classes/{cohort.pk}/assignments/new/")
    for value in ("at-once", "after-submitting", "after-due"):
        radio = teacher.locator(f"#feedback-{value}")
        expect(radio).to_be_visible()
        box, words = radio.bounding_box(), teacher.locator(f"label[for=feedback-{value}]").bounding_box()
        # The radio just left of its words, on their line: not stretched across the form
        # with the words pushed to the right edge.
        assert box["width"] < 40
        assert box["x"] + box["width"] <= words["x"] <= box["x"] + box["width"] + 24
        assert box["y"] < words["y"] + words["height"] and words["y"] < box["y"] + box["height"]
    assert errors == []
