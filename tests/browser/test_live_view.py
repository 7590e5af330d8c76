"""The live view, in the system Chromium: a student fails the seed's ordering exercise
three times and raises a hand; the teacher's live view, open all along, flags them stuck
and queues the hand without a reload (its next polls, every 3 s), and the teacher clears the hand,
which goes down on the student's page too.
Checks run through the real sandbox (the `inline_worker` fixture)."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from course.models import Lesson
from tests.factories import make_cohort, make_lesson, make_teacher, make_user
from tutor.live.models import RaisedHand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"


def page_of(browser, live_server, user, *, width=1280):
    """A browser tab logged in as `user` (a session cookie from the test client)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}
    )
    context.set_default_timeout(15_000)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    return page


def test_a_stuck_student_with_a_raised_hand_shows_up_live_and_the_teacher_clears_the_hand(
    browser, live_server, sample_content, inline_worker
):
    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student, make_user("ada")], name="Year 10")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")

    teacher_page = page_of(browser, live_server, teacher)
    teacher_page.goto(reverse("tutor:live_view", args=[cohort.pk, lesson.pk]))
    board = teacher_page.locator("#live-board")
    sam = board.get_by_role("row").filter(has_text="sam")
    expect(sam).to_contain_text("Not started")
    expect(board.locator(".hand-queue")).to_have_count(0)
    teacher_page.evaluate("window.stillThisPage = true")  # gone if the page reloads

    student_page = page_of(browser, live_server, student)
    student_page.goto(SEED + "#exercise-kv-cache-vram-order")
    region = student_page.locator("#exercise-kv-cache-vram-order-practice")
    expect(region).to_have_class(re.compile("has-script"))
    for n in (1, 2, 3):
        region.get_by_role("button", name="Check").click()
        expect(region.locator(".ordering-feedback")).to_contain_text(f"Check {n}: not yet.")
    student_page.get_by_role("button", name="Raise hand").click()
    expect(student_page.get_by_role("button", name="Hand raised — lower it")).to_be_visible()

    # The teacher's page polls (every 3 s): it shows without a reload; 15 s leaves a busy
    # machine a few polls, and "without a reload" is checked by window.stillThisPage.
    expect(sam).to_contain_text("Stuck")
    expect(sam).to_contain_text("3 failed in a row")
    expect(sam).to_contain_text("checked the order — wrong")
    queue = board.locator(".hand-queue")
    expect(queue).to_contain_text("sam")
    expect(queue).to_contain_text("waiting")
    assert teacher_page.evaluate("window.stillThisPage") is True
    # Stuck students come first.
    expect(board.locator("tbody tr").first).to_contain_text("sam")

    queue.get_by_role("button", name="Clear sam’s hand").click()
    expect(board.get_by_text("No hands raised.")).to_be_visible()
    assert not RaisedHand.objects.exists()
    assert teacher_page.evaluate("window.stillThisPage") is True
    # The student's raised hand asks again every 10 s: it goes down by itself.
    expect(student_page.get_by_role("button", name="Raise hand")).to_be_visible()
    assert teacher_page.errors == [] and student_page.errors == []
    teacher_page.context.close()
    student_page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_live_view_and_a_raised_hand_have_no_serious_accessibility_violations(
    browser, live_server, sample_content, scheme
):
    from course.models import OrderingExercise
    from tests.browser.test_accessibility import violations
    from tutor.live import actions

    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student, make_user("ada")])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    block = OrderingExercise.objects.get(block__key="kv-cache-vram-order").block
    for _ in range(3):
        actions.record(user=student, block=block, what="checked the order — wrong", failed=True)
    actions.raise_hand(user=student, lesson=lesson)
    found = {}
    for user, url in (
        (teacher, reverse("tutor:live_view", args=[cohort.pk, lesson.pk])),
        (student, SEED),
    ):
        client = Client()
        client.force_login(user)
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
        page.goto(url)
        serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
        if serious:
            found[url] = serious
        context.close()
    assert not found, found


HIDE = """hidden => {
    Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
    Object.defineProperty(document, "visibilityState",
                          {value: hidden ? "hidden" : "visible", configurable: true});
    document.dispatchEvent(new Event("visibilitychange"));
}"""


RECORD_REFRESHES = """
window.refreshes = [];
document.addEventListener("htmx:beforeSend", event => {
    const by = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
    window.refreshes.push({hidden: document.hidden, by: by ? by.type : "timer"});
});
"""


def test_the_live_view_stops_asking_while_its_tab_is_hidden_and_catches_up_when_shown(
    browser, live_server, monkeypatch
):
    from tutor.live import views

    monkeypatch.setattr(views, "POLL_SECONDS", 1)
    teacher = make_teacher("tess")
    cohort = make_cohort(teacher, students=[make_user("sam")], name="Year 10")
    lesson = make_lesson()  # any lesson: nobody needs to have worked on it
    url = reverse("tutor:live_view", args=[cohort.pk, lesson.pk])
    page = page_of(browser, live_server, teacher)
    # Each refresh the page sends, noted in the page as it is sent: whether the tab was
    # hidden then, and what asked for it (the timer, or being shown again).
    page.add_init_script(RECORD_REFRESHES)
    page.goto(url)
    page.wait_for_function("() => window.refreshes.length >= 1")  # it refreshes by itself
    page.evaluate(HIDE, True)
    page.wait_for_timeout(3500)  # three of its seconds hidden
    assert page.evaluate("window.refreshes.filter(r => r.hidden)") == []  # not one request
    before = page.evaluate("window.refreshes.length")
    page.evaluate(HIDE, False)
    page.wait_for_function("before => window.refreshes.length > before", arg=before)
    # shown: it asks at once, because it was shown, not when its timer next fires
    assert page.evaluate(f"window.refreshes[{before}].by") == "parsnip:shown"
    assert page.errors == []
