"""Teaching a live class, end to end in the system Chromium (issue 15's "done when"): a
teacher sets the seed lesson as an assignment; two students work it; one fails the
ordering exercise three times and raises a hand; the teacher's live view, open all along,
flags them at its next polls and the teacher clears the hand; the teacher writes one comment on
the group of a common wrong prediction; both students with that prediction see it, and a
third student who makes the same mistake later sees it too. Checks and reveals run in the
real sandbox (the `inline_worker` fixture)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from course.kinds.snippet import Snippet
from course.models import Lesson
from tests.browser.test_cluster_comments import COMMENT, WITHOUT_THE_EMPTY_LINE, predict
from tests.browser.test_teaching_flow import logged_in
from tests.factories import make_cohort, make_teacher, make_user
from tutor.assignments.models import Assignment
from tutor.live.models import RaisedHand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_live_class_assignment_a_stuck_student_and_one_comment_for_a_group(
    browser, live_server, sample_content, inline_worker
):
    teacher = make_teacher("tess")
    sam, sue, sid = (make_user(name) for name in ("sam", "sue", "sid"))
    cohort = make_cohort(teacher, students=[sam, sue, sid], name="Tuesday group")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.get(block__key="kv-cache-vram")

    # The teacher sets the whole lesson, due in two days.
    tess, tess_errors = logged_in(browser, live_server, "tess")
    tess.goto(reverse("tutor:class_detail", args=[cohort.pk]))
    tess.get_by_role("link", name="Assignments").click()
    tess.get_by_role("link", name="New assignment").click()
    tess.get_by_label("Lesson", exact=True).select_option(str(lesson.pk))
    due = (timezone.localtime() + timedelta(days=2)).replace(
        hour=17, minute=0, second=0, microsecond=0
    )
    tess.get_by_role("textbox", name="Due date").fill(due.strftime("%Y-%m-%dT%H:%M"))
    tess.get_by_role("button", name="Set it").click()
    expect(tess.get_by_role("heading", level=1)).to_have_text(lesson.title)
    assert Assignment.objects.get().whole_lesson

    # The live view stays open from here on.
    tess.goto(reverse("tutor:live_view", args=[cohort.pk, lesson.pk]))
    board = tess.locator("#live-board")
    tess.evaluate("window.stillThisPage = true")  # gone if the page reloads

    # Two students work the lesson: the same wrong prediction, and sam is stuck on the order.
    pages = {}
    for name in ("sam", "sue"):
        pages[name], _ = logged_in(browser, live_server, name)
        expect(pages[name].locator("section.assigned")).to_contain_text(lesson.title)
        predict(pages[name], WITHOUT_THE_EMPTY_LINE)
    page = pages["sam"]
    page.goto(lesson.get_absolute_url() + "#exercise-kv-cache-vram-order")
    expect(page.locator(".lesson-assignment")).to_contain_text("Tuesday group")
    region = page.locator("#exercise-kv-cache-vram-order-practice")
    for n in (1, 2, 3):
        region.get_by_role("button", name="Check").click()
        expect(region.locator(".ordering-feedback")).to_contain_text(f"Check {n}: not yet.")
    page.get_by_role("button", name="Raise hand").click()
    expect(page.get_by_role("button", name="Hand raised — lower it")).to_be_visible()

    row = board.get_by_role("row").filter(has_text="sam")
    expect(row).to_contain_text("Stuck")
    expect(board.get_by_role("row").filter(has_text="sue")).not_to_contain_text("Stuck")
    queue = board.locator(".hand-queue")
    expect(queue).to_contain_text("sam")
    queue.get_by_role("button", name="Clear sam’s hand").click()
    expect(board.get_by_text("No hands raised.")).to_be_visible()
    assert not RaisedHand.objects.exists()
    assert tess.evaluate("window.stillThisPage") is True

    # One comment on the group of the common wrong prediction, in three clicks.
    tess.goto(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    item = tess.locator(f"#groups-{snippet.block_id}").locator("xpath=ancestor::article")
    group = item.locator(".group").filter(has_text="2 students")
    group.get_by_role("link", name="Comment").click()
    group.get_by_label("Your comment").fill(COMMENT)
    group.get_by_role("button", name="Save").click()
    expect(group).to_contain_text("Shown to the 2 students in this group")

    for name in ("sam", "sue"):
        pages[name].goto(lesson.get_absolute_url())
        comment = pages[name].locator("#snippet-kv-cache-vram-answer .teacher-comment")
        expect(comment).to_contain_text("From your teacher")
        expect(comment).to_contain_text(COMMENT)

    # A third student makes the same mistake later: the comment is there at once.
    pages["sid"], _ = logged_in(browser, live_server, "sid")
    answer = predict(pages["sid"], WITHOUT_THE_EMPTY_LINE)
    expect(answer.locator(".teacher-comment")).to_contain_text(COMMENT)

    # The grid filtered to the assignment: nobody has finished, and it is not due yet.
    tess.goto(
        reverse("tutor:class_detail", args=[cohort.pk])
        + f"?assignment={Assignment.objects.get().pk}"
    )
    for name in ("sam", "sue", "sid"):
        expect(tess.get_by_role("row").filter(has_text=name)).to_contain_text("Not yet done")
    assert tess_errors == []
    for page in (tess, *pages.values()):
        page.context.close()
