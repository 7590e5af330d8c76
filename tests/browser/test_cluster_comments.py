"""One comment for a whole cluster, in the system Chromium: two students make the same
wrong prediction on the seed lesson, their teacher comments once on that group from the
lesson's item analysis, both see it beside their answer, and a third student who makes the
same mistake later sees it as soon as their answer is revealed. The projector shows the
class's answers grouped, without names. Runs use the `inline_worker` fixture."""

import os
import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from course.kinds.snippet import Snippet
from course.models import Lesson
from tests.browser.test_teaching_flow import SEED, logged_in
from tests.factories import make_cohort, make_teacher, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The common slip: the first `print()` prints an empty line, and they left it out.
WITHOUT_THE_EMPTY_LINE = (
    "KV cache VRAM usage:\n16-bit, 1000 units: 16.00 GB\n8-bit, 1000 units: 8.00 GB\n"
    "Lower KV cache precision frees VRAM: True"
)
COMMENT = "Count the print() calls: the very first one prints an empty line."
SHOTS = os.environ.get("PARSNIP_SCREENSHOTS")  # a folder: save the pages' screenshots there


def predict(page, text: str):
    page.goto(SEED)
    practice = page.locator("#snippet-kv-cache-vram-practice")
    practice.get_by_label("What will it print?").fill(text)
    practice.get_by_role("button", name="Reveal").click()
    answer = page.locator("#snippet-kv-cache-vram-answer")
    expect(answer.locator(".verdict")).to_contain_text("Not quite")
    return answer


def test_one_comment_reaches_everyone_with_the_same_wrong_prediction(
    browser, live_server, sample_content, inline_worker
):
    teacher = make_teacher("tess")
    students = [make_user(name) for name in ("sam", "sue", "sid")]
    cohort = make_cohort(teacher, students=students, name="Tuesday group")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.get(block__key="kv-cache-vram")

    pages = {}
    for name in ("sam", "sue"):
        pages[name], _ = logged_in(browser, live_server, name)
        answer = predict(pages[name], WITHOUT_THE_EMPTY_LINE)
        expect(answer.locator(".teacher-comment")).to_have_count(0)

    tess, _ = logged_in(browser, live_server, "tess")
    tess.goto(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    item = tess.locator(f"#groups-{snippet.block_id}").locator("xpath=ancestor::article")
    group = item.locator(".group").filter(has_text="2 students")
    expect(group).to_contain_text("Leaves out line 1, an empty line")
    group.get_by_role("link", name="Comment").click()  # 1
    group.get_by_label("Your comment").fill("   ")  # only spaces: refused, in the group
    group.get_by_role("button", name="Save").click()
    expect(group.get_by_role("alert")).to_contain_text("it is empty")
    if SHOTS:
        tess.set_viewport_size({"width": 1280, "height": 900})
        group.screenshot(path=os.path.join(SHOTS, "inline-refusal-1280.png"))
    group.get_by_label("Your comment").fill(COMMENT)  # 2: typing
    group.get_by_role("button", name="Save").click()  # 3
    expect(group).to_contain_text(COMMENT)
    expect(group).to_contain_text("Shown to the 2 students in this group")
    expect(tess.locator(".groups-coverage")).to_contain_text("100%")

    for name in ("sam", "sue"):
        pages[name].reload()
        comment = pages[name].locator("#snippet-kv-cache-vram-answer .teacher-comment")
        expect(comment).to_contain_text("From your teacher")
        expect(comment).to_contain_text(COMMENT)
        expect(pages[name].locator("#snippet-backend-latency .teacher-comment")).to_have_count(0)

    # The same slip later, with trailing spaces that never count: the comment is there at once.
    pages["sid"], _ = logged_in(browser, live_server, "sid")
    answer = predict(pages["sid"], WITHOUT_THE_EMPTY_LINE.replace("\n", "   \n"))
    expect(answer.locator(".teacher-comment")).to_contain_text(COMMENT)

    tess.reload()
    group = item.locator(".group").filter(has_text="Leaves out line 1, an empty line")
    expect(group).to_contain_text("3 students")
    expect(group).to_contain_text("Shown to the 3 students in this group")

    tess.goto(reverse("tutor:cluster_projector", args=[cohort.pk, snippet.block_id]))
    tess.set_viewport_size({"width": 1280, "height": 900})
    board = tess.locator("#projector-board")
    expect(board).to_contain_text("3 answers")
    expect(board).to_contain_text("0% right")
    expect(board).to_contain_text("Commented")
    for name in ("sam", "sue", "sid", "tess"):
        expect(tess.locator("body")).not_to_contain_text(name)
    expect(board.get_by_role("link", name="Comment")).to_have_count(0)
    # The right answer on demand; it stays open while the board polls.
    tess.get_by_text("Show the right answer").click()
    right = tess.locator(".projector-right-answer .projector-answer")
    expect(right).to_be_visible()
    # The board polls: a fourth answer appears without reloading.
    late = make_user("ola")
    cohort.memberships.create(student=late)
    ola, _ = logged_in(browser, live_server, "ola")
    predict(ola, "16.00 GB")
    expect(board).to_contain_text("4 answers")
    expect(right).to_be_visible()
    if SHOTS:
        tess.screenshot(path=os.path.join(SHOTS, "projector-1280.png"), full_page=True)
        phone = browser.new_context(
            base_url=live_server.url, viewport={"width": 390, "height": 844}
        )
        page = phone.new_page()
        page.context.add_cookies(pages["sam"].context.cookies())
        page.goto(SEED + "#snippet-kv-cache-vram")
        page.locator("#snippet-kv-cache-vram-answer").scroll_into_view_if_needed()
        page.locator("#snippet-kv-cache-vram-answer").screenshot(
            path=os.path.join(SHOTS, "lesson-comment-390.png")
        )
        tess.set_viewport_size({"width": 1280, "height": 900})
        tess.goto(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]) + "#groups")
        tess.locator("#groups").screenshot(path=os.path.join(SHOTS, "groups-1280.png"))
        phone.close()
    for page in (*pages.values(), tess, ola):
        page.context.close()


def test_without_javascript_a_comment_goes_through_a_form_page_and_the_projector_has_no_controls(
    browser, live_server, sample_content
):
    from tests.factories import make_prediction, make_run
    from tutor.models import Run
    from tutor.practice.snippet.models import Prediction

    teacher = make_teacher("tess")
    students = [make_user(name) for name in ("sam", "sue")]
    cohort = make_cohort(teacher, students=students)
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_run(
        snippet, purpose=Run.Purpose.REVEAL, stdout=snippet.expected_output, stdin=snippet.stdin
    )
    for student in students:
        make_prediction(
            student, snippet, text=WITHOUT_THE_EMPTY_LINE, verdict=Prediction.Verdict.WRONG
        )

    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("tess")
    page.get_by_label("Password").fill("pw-tess")
    page.get_by_role("button", name="Log in").click()
    page.goto(reverse("tutor:class_lesson", args=[cohort.pk, snippet.block.lesson_id]))
    group = page.locator(".group").filter(has_text="2 students")
    group.get_by_role("link", name="Comment", exact=True).click()
    page.get_by_label("Your comment").fill(COMMENT)
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "comment-form-no-js.png"), full_page=True)
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("2 students in this group see your comment")
    expect(page.locator(".group").filter(has_text="2 students")).to_contain_text(COMMENT)

    # On the class's screen: no controls, and the right answer only when asked for.
    page.goto(reverse("tutor:cluster_projector", args=[cohort.pk, snippet.block_id]))
    expect(page.locator("#projector-board")).to_contain_text("Commented")
    expect(page.locator(".projector-summary")).to_contain_text("2 answers")
    expect(page.get_by_role("link", name="Comment")).to_have_count(0)
    right = page.locator(".projector-right-answer .projector-answer")
    expect(right).to_be_hidden()
    page.get_by_text("Show the right answer").click()
    expect(right).to_be_visible()
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_groups_the_projector_and_a_comment_have_no_serious_accessibility_violations(
    browser, live_server, sample_content, client, scheme
):
    import json

    from tests.browser.test_accessibility import violations
    from tests.factories import make_prediction, make_run
    from tutor.clusters.models import ClusterComment
    from tutor.models import Run
    from tutor.practice.snippet.clusters import clusters
    from tutor.practice.snippet.models import Prediction

    teacher = make_teacher("tess")
    student = make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_run(
        snippet, purpose=Run.Purpose.REVEAL, stdout=snippet.expected_output, stdin=snippet.stdin
    )
    make_prediction(student, snippet, text=WITHOUT_THE_EMPTY_LINE, verdict=Prediction.Verdict.WRONG)
    from django.db.models import Q

    group = clusters(in_class=Q(user__memberships__cohort=cohort), blocks=[snippet.block])[
        snippet.block_id
    ].groups[0]
    ClusterComment.objects.create(
        cohort=cohort, author=teacher, block=snippet.block, key=group.key, summary="s", text=COMMENT
    )
    found = {}
    for user, urls in [
        (
            teacher,
            [
                reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]),
                reverse("tutor:cluster_projector", args=[cohort.pk, snippet.block_id]),
                reverse("tutor:cluster_comment", args=[cohort.pk, snippet.block_id, group.key]),
            ],
        ),
        (student, [SEED]),
    ]:
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
        for url in urls:
            page.goto(url)
            serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
            if serious:
                found[url] = serious
        context.close()
    assert not found, json.dumps(found, indent=1)


def test_a_comment_is_new_on_the_home_page_until_the_student_has_seen_it(
    browser, live_server, sample_content
):
    """Found from the home page, it leads to the answer; seen beside the answer on the
    lesson page (scrolled into view), it is no longer new."""
    from django.db.models import Q

    from tests.factories import make_prediction, make_run
    from tutor.clusters.models import ClusterComment
    from tutor.models import Run
    from tutor.practice.snippet.clusters import clusters
    from tutor.practice.snippet.models import Prediction

    teacher = make_teacher("tess")
    students = [make_user("sam"), make_user("sue")]
    cohort = make_cohort(teacher, students=students)
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_run(
        snippet, purpose=Run.Purpose.REVEAL, stdout=snippet.expected_output, stdin=snippet.stdin
    )
    for student in students:
        make_prediction(
            student, snippet, text=WITHOUT_THE_EMPTY_LINE, verdict=Prediction.Verdict.WRONG
        )
    group = clusters(in_class=Q(user=students[0].pk), blocks=[snippet.block])[
        snippet.block_id
    ].groups[0]
    ClusterComment.objects.create(
        cohort=cohort, author=teacher, block=snippet.block, key=group.key, summary="s", text=COMMENT
    )

    sam, _ = logged_in(browser, live_server, "sam")
    sam.goto("/")
    note = sam.locator(".teacher-note")
    expect(note).to_contain_text("New")
    expect(note).to_contain_text(COMMENT)
    note.get_by_role("button", name="Read it beside your answer").click()
    expect(sam).to_have_url(re.compile(r"#snippet-kv-cache-vram$"))
    expect(sam.locator("#snippet-kv-cache-vram-answer .teacher-comment")).to_be_in_viewport()
    sam.goto("/")
    expect(sam.locator(".teacher-note")).not_to_contain_text("New")

    # Sue opens the lesson herself: once the comment scrolls into view, it has been seen.
    sue, _ = logged_in(browser, live_server, "sue")
    sue.goto("/progress/")
    expect(sue.locator(".teacher-note .teacher-note-new")).to_have_count(1)
    with sue.expect_response(lambda response: "/read/" in response.url and response.status == 204):
        sue.goto(SEED)
        sue.locator("#snippet-kv-cache-vram-answer .teacher-comment").scroll_into_view_if_needed()
    sue.goto("/progress/")
    expect(sue.locator(".teacher-note")).to_have_count(1)
    expect(sue.locator(".teacher-note .teacher-note-new")).to_have_count(0)
    for page in (sam, sue):
        page.context.close()
