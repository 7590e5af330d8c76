"""Parsnip used from an LMS, in Chromium: the admin registers the (fake) LMS, its teacher
deep-links the seed lesson, two students launch and work, their scores reach the LMS's
gradebook (one after the LMS refused it once), and the teacher watches and re-syncs."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from course.models import Lesson
from lti import grades
from tests.browser.conftest import inline_worker  # noqa: F401 (a fixture)
from tests.factories import make_admin
from tests.lti.conftest import learner_course, register
from tests.lti.fake_lms import INSTRUCTOR, LEARNER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIRST = "#snippet-backend-latency"
SECOND = "#snippet-kv-cache-vram"


def said_and_got(page, key):
    page.locator(f"{key}-practice").get_by_role("button", name="I said it out loud").click()
    page.locator(f"{key}-answer").get_by_role("button", name="I got it").click()
    expect(page.locator(f"{key}-answer")).to_contain_text("You got it.")


@pytest.mark.usefixtures("inline_worker")
def test_a_class_taught_from_an_lms(
    browser, page, login_in_browser, lms, sample_content, live_server
):
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")

    # The admin registers the LMS and reads the values to paste into it.
    admin = login_in_browser(make_admin("ada"))
    admin.goto("/admin/lti_tool/ltiregistration/add/")
    admin.get_by_label("Name").fill("School LMS")
    admin.get_by_label("Issuer").fill(lms.issuer)
    admin.get_by_label("Client ID").fill(lms.client_id)
    admin.get_by_label("Auth URL").fill(lms.url("authorize/"))
    admin.get_by_label("Access token URL").fill(lms.url("token/"))
    admin.get_by_label("Keyset URL").fill(lms.url("jwks/"))
    admin.locator("#id_deployments-0-deployment_id").fill(lms.deployment_id)
    admin.locator("#id_deployments-0-is_active").check()
    admin.get_by_role("button", name="Save and continue editing").click()
    expect(admin.locator(".lti-values")).to_be_visible()
    values = dict(
        zip(
            admin.locator(".lti-values dt").all_inner_texts(),
            admin.locator(".lti-values dd").all_inner_texts(),
            strict=True,
        )
    )
    lms.tool_login_url = values["Login initiation URL (OpenID Connect)"]
    lms.tool_launch_url = values["Redirect URI / launch URL"]
    lms.tool_jwks_url = values["Public keyset URL (JWKS)"]

    lms.contexts["c1"] = "Local models, autumn"
    lms.add_person("t1", "Tess Teacher", c1=INSTRUCTOR)
    lms.add_person("s1", "Sam Student", c1=LEARNER)
    lms.add_person("s2", "Sue Student", c1=LEARNER)

    def person():
        context = browser.new_context(base_url=live_server.url)
        context.set_default_timeout(10_000)
        return context.new_page()

    # The teacher adds the seed lesson from Parsnip's picker, inside the LMS.
    teacher = person()
    teacher.goto(lms.start_url("t1", deep_link_in="c1"))
    teacher.get_by_role("button", name="Open in Parsnip").click()
    teacher.get_by_label(re.compile("Optimising speed and memory")).check()
    teacher.get_by_role("button", name="Add to my LMS course").click()
    expect(teacher.locator(".made-link")).to_contain_text("Added Optimising speed and memory")
    (link_id,) = lms.links
    assert lms.line_items[lms.links[link_id]["lineitem"]]["scoreMaximum"] == 4

    # Two students launch it, land on the lesson signed in, and do some of it.
    students = {}
    for sub, keys in (("s1", [FIRST]), ("s2", [FIRST, SECOND])):
        student = person()
        student.goto(lms.start_url(sub, link=link_id))
        student.get_by_role("button", name="Open in Parsnip").click()
        expect(student).to_have_url(re.compile(re.escape(lesson.get_absolute_url())))
        for key in keys:
            said_and_got(student, key)
        students[sub] = student

    # The worker sends the grades; the LMS refuses the first post.
    lms.score_failures = [500]
    grades.send_due_scores()
    (item_id,) = lms.line_items
    assert len(lms.scores[item_id]) == 1

    # The teacher sees who is sent and who failed, and re-syncs the failed one.
    teacher.goto(lms.start_url("t1", link=link_id))
    teacher.get_by_role("button", name="Open in Parsnip").click()
    teacher.get_by_role("navigation", name="Breadcrumbs").get_by_role(
        "link", name="Local models, autumn"
    ).click()
    teacher.get_by_role("link", name="Grades in the LMS").click()
    expect(teacher.locator("#sync-tally")).to_have_text(
        "1 sent · 0 waiting · 1 failed (retried automatically)"
    )
    failed = teacher.locator("tr[data-status=failed]")
    expect(failed).to_contain_text("HTTP 500")
    failed.get_by_role("button", name="Re-sync").click()
    expect(teacher.locator("tr[data-status=pending]")).to_have_count(1)
    grades.send_due_scores()
    teacher.reload()
    expect(teacher.locator("#sync-tally")).to_have_text(
        "2 sent · 0 waiting · 0 failed (retried automatically)"
    )
    gradebook = {
        sub: (score["scoreGiven"], score["scoreMaximum"])
        for sub, score in lms.scores[item_id].items()
    }
    assert gradebook == {"s1": (1, 4), "s2": (2, 4)}


def test_a_browser_that_keeps_no_parsnip_cookie_in_the_lms_frame_opens_it_in_a_new_window(
    browser, lms, live_server, lesson
):
    """The LMS at one site (127.0.0.1), Parsnip at another (localhost), the link opened in
    the LMS's iframe: Chromium keeps no cookie Parsnip sets there (over plain HTTP they are
    SameSite=Lax, which a cross-site frame never gets: what a browser blocking third-party
    cookies does to SameSite=None ones over HTTPS). The learner is told, and the new window
    launches."""
    lms.base = live_server.url.replace("localhost", "127.0.0.1")
    registration = register(lms)
    lms.tool_login_url = live_server.url + reverse("lti:login", args=[registration.uuid])
    lms.tool_launch_url = live_server.url + reverse("lti:launch")
    lms.tool_jwks_url = live_server.url + reverse("lti:jwks")
    learner_course(lms, lesson)
    context = browser.new_context()
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(lms.url("course/?user=s1&link=l1"))
    framed = page.frame_locator("iframe[title=Parsnip]")
    expect(framed.get_by_role("heading", level=1)).to_have_text(
        "Your browser blocked Parsnip’s cookies inside Fake LMS"
    )
    with page.expect_popup() as opened:
        framed.get_by_role("link", name="Open Parsnip in a new window").click()
    window = opened.value
    window.get_by_role("button", name="Open in Parsnip").click()  # the LMS's launch form
    expect(window).to_have_url(re.compile(re.escape(lesson.get_absolute_url())))
    expect(window.get_by_role("heading", level=1)).to_contain_text("Caches")
    context.close()
