"""A learner walks the sample course from its page to the last lesson in Chromium: each
lesson by its Next link, one snippet predicted and revealed in each, and the course page
then shows their progress on every lesson and where to go on. Screenshots of the course
page and of a few lessons, at desktop and phone width, when $COURSE_SHOTS names a folder.
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from course.kinds.snippet import Snippet
from course.models import Course
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COURSE = "/learn/local-models/"


def shoot(page, name: str) -> None:
    shots = os.environ.get("COURSE_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{shots}/{name}.png", full_page=True, caret="initial")


def first_snippets(course: Course) -> list[Snippet]:
    """Each lesson's first snippet, in the course's order."""
    found = []
    for lesson in course.lessons.order_by("position"):
        found.append(
            Snippet.objects.filter(block__lesson=lesson).select_related("block").order_by("block__position")[0]
        )
    return found


def test_a_learner_walks_the_course_from_the_first_lesson_to_the_last(
    page, login_in_browser, sample_content, inline_worker
):
    course = Course.objects.get(slug="local-models")
    lessons = list(course.lessons.order_by("position"))
    snippets = first_snippets(course)
    assert len(lessons) >= 12
    page = login_in_browser(make_user("ada"))

    page.goto(COURSE)
    for level in ("Beginner", "Practitioner", "Master"):
        expect(page.get_by_role("heading", name=level, level=2)).to_be_visible()
    expect(page.locator(".progress-new")).to_have_count(len(lessons))
    page.get_by_role("link", name=f"Start with: {lessons[0].title}").click()

    for n, (lesson, snippet) in enumerate(zip(lessons, snippets, strict=True)):
        expect(page.get_by_role("heading", name=lesson.title, level=1)).to_be_visible()
        if n:
            expect(page.locator("a.pager-previous")).to_contain_text(lessons[n - 1].title)
        practice = page.locator(f"#snippet-{snippet.block.key}-practice")
        practice.get_by_label("What will it print?").fill(snippet.expected_output.strip("\n"))
        practice.get_by_role("button", name="Reveal").click()
        answer = page.locator(f"#snippet-{snippet.block.key}-answer")
        expect(answer.locator(".verdict")).to_be_visible(timeout=20_000)
        expect(answer.locator(".real-output")).to_contain_text(snippet.expected_output.strip().splitlines()[-1])
        if n + 1 < len(lessons):
            page.locator("a.pager-next").click()
    expect(page.locator("a.pager-next")).to_have_count(0)  # the last lesson

    page.goto(COURSE)
    expect(page.locator(".progress-new")).to_have_count(0)  # every lesson started
    expect(page.locator(".progress-started")).to_have_count(len(lessons))
    expect(page.get_by_role("link", name=f"Continue where you left off: {lessons[-1].title}")).to_be_visible()
    shoot(page, "course-page-learner-1280")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_course_reads_at_desktop_and_phone_width(page, sample_content, width):
    """Every lesson opens, with nothing wider than the window; screenshots to look at."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(COURSE)
    shoot(page, f"course-page-{width}")
    hrefs = page.locator(".lesson-item-title a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert len(hrefs) >= 12
    for href in hrefs:
        page.goto(href)
        expect(page.locator("h1")).to_be_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{href} is {overflow}px wider than a {width}px window"
        shoot(page, f"{href.strip('/').split('/')[-1]}-{width}")


def test_a_teacher_picks_a_class_and_the_lessons_show_how_it_stands(page, login_in_browser, sample_content):
    from tests.factories import make_cohort, make_teacher

    teacher = make_teacher()
    make_cohort(teacher, name="Alpha")
    beta = make_cohort(teacher, name="Beta", students=[make_user("ada"), make_user("bob")])
    page = login_in_browser(teacher)
    page.goto(COURSE)
    expect(page.locator(".course-class-summary")).to_contain_text("Alpha: 0 students.")
    chooser = page.get_by_label("Show how this class stands on each lesson")
    # The list in the page's type, not the browser's small default.
    assert chooser.evaluate("e => getComputedStyle(e).fontSize") == page.locator(
        ".course-class-chooser label"
    ).evaluate("e => getComputedStyle(e).fontSize")

    chooser.select_option(label="Beta")

    expect(page.locator(".course-class-summary")).to_contain_text("Beta: 2 students.")
    expect(page).to_have_url(f"{page.url.split('?')[0]}?class={beta.pk}")
    expect(page.get_by_role("link", name="Assign to Beta")).to_have_count(Course.objects.get(slug="local-models").lessons.count())
    page.go_back()
    expect(page.locator(".course-class-summary")).to_contain_text("Alpha: 0 students.")


LABEL_AND_FIRST_LINE = """() => [...document.querySelectorAll('.code-block[data-language]')].map(block => {
    const label = getComputedStyle(block, '::before');
    const pre = block.querySelector('pre');
    return {
        labelBottom: parseFloat(label.top) + parseFloat(label.height),
        textTop: pre.offsetTop + parseFloat(getComputedStyle(pre).paddingTop),
    };
})"""


@pytest.mark.parametrize("width", [1280, 390])
def test_a_snippets_language_label_sits_above_its_first_line(page, sample_content, width):
    """'PYTHON' ran over a long first line ('Batching and throughput' on a phone)."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(COURSE + "batching-and-throughput/")
    blocks = page.evaluate(LABEL_AND_FIRST_LINE)
    assert blocks
    for block in blocks:
        assert block["labelBottom"] <= block["textTop"], block
