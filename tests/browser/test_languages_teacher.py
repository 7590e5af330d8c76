"""A teacher reads Parsnip in German or Spanish: the classes list, a class with its students,
a student, a lesson's item analysis, the live view, the assignments, a replay and the class's
review show no English of Parsnip's own (names, lesson titles and code stay as written).
Screenshots at desktop and phone width go to the notes, to look at long German words."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from course.kinds.snippet import Snippet
from course.models import Lesson
from tests.browser.test_languages import (
    CONTENT,
    ENGLISH_ONLY,
    english_phrases,
    without_content,
)
from tests.factories import (
    make_cohort,
    make_lesson_progress,
    make_prediction,
    make_teacher,
    make_user,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("artifacts")
# On a teacher's pages, besides the lesson's own words: the students' answers and the names
# people gave (a class, a student), which no catalog translates.
TEACHER_CONTENT = ", ".join(
    [CONTENT, ".answer-text", ".item-intro", ".join-code", ".join-link", ".hand-who strong"]
)
UI_TEXT = f"""() => {{
  const body = document.body.cloneNode(true);
  body.querySelectorAll({TEACHER_CONTENT!r}).forEach((node) => node.remove());
  return body.innerText || body.textContent;
}}"""


@pytest.fixture
def a_class(sample_content):
    """A class of two on the seed lesson: predictions (one wrong), progress, a raised hand,
    an assignment, a student's code trail, review on."""
    from tutor.assignments.actions import create_assignment
    from tutor.live.models import RaisedHand
    from tutor.trail import actions as trail

    teacher, ada, bob = make_teacher("tess"), make_user("ada"), make_user("bob")
    cohort = make_cohort(teacher, students=[ada, bob], name="10b", review=True)
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.filter(block__lesson=lesson).order_by("block__position").first()
    make_prediction(ada, snippet)
    make_prediction(bob, snippet, text="42", verdict="wrong")
    make_lesson_progress(ada, lesson, snippets_predicted=1)
    make_lesson_progress(bob, lesson, snippets_predicted=1)
    RaisedHand.objects.create(user=bob, lesson=lesson)
    now = timezone.now()
    assignment = create_assignment(
        cohort=cohort, lesson=lesson, blocks=[], opens_at=now, due_at=now + timedelta(days=3)
    )
    trail.record_edits(
        user=ada, block=snippet.block, edits=[(2000, "e", 0, 0, "x = 1\n")], code="x = 1\n"
    )
    return {
        "teacher": teacher,
        "student": ada,
        "cohort": cohort,
        "lesson": lesson,
        "block": snippet.block,
        "assignment": assignment,
    }


def without_teacher_content(line: str) -> str:
    """The line without the course's words: besides titles, a snippet's caption names it."""
    line = without_content(line)
    for caption in Snippet.objects.exclude(caption="").values_list("caption", flat=True):
        line = line.replace(caption, "")
    return line


def walk(a_class) -> list[str]:
    c, lesson = a_class["cohort"].pk, a_class["lesson"].pk
    return [
        reverse("tutor:class_list"),
        reverse("tutor:class_detail", args=[c]),
        reverse("tutor:class_student", args=[c, a_class["student"].pk]),
        reverse("tutor:class_lesson", args=[c, lesson]),
        reverse("tutor:live_view", args=[c, lesson]),
        reverse("tutor:assignment_list", args=[c]),
        reverse("tutor:assignment_create", args=[c]),
        reverse("tutor:assignment_detail", args=[c, a_class["assignment"].pk]),
        reverse("tutor:class_trail", args=[c, a_class["student"].pk, a_class["block"].pk]),
        reverse("tutor:class_review", args=[c]),
    ]


def teacher_page(browser, live_server, client, teacher, language: str, width: int):
    """The teacher signed in, in a browser that asks for `language` first."""
    client.force_login(teacher)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, locale=language
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return context.new_page()


@pytest.mark.parametrize(
    "language, classes, live",
    [("de", "Klassen", "Live-Ansicht"), ("es", "Clases", "Vista en vivo")],
)
def test_a_teacher_walks_their_pages_in_german_and_spanish_and_reads_no_english(
    browser, live_server, client, a_class, language, classes, live
):
    page = teacher_page(browser, live_server, client, a_class["teacher"], language, 1280)
    phrases = english_phrases(language)
    assert len(phrases) > 300
    english = {}  # every page's leftovers at once, not only the first page's
    for path in walk(a_class):
        response = page.goto(path)
        assert response.status == 200, path
        expect(page.locator("html")).to_have_attribute("lang", language)
        text = " ".join(page.evaluate(UI_TEXT).split())
        lines = [without_teacher_content(line) for line in page.evaluate(UI_TEXT).splitlines()]
        left = [phrase for phrase in phrases if phrase in text] + [
            line.strip() for line in lines if ENGLISH_ONLY.search(line)
        ]
        if left:
            english[path] = left
    assert not english, "\n".join(f"{path}: {left}" for path, left in english.items())
    # The translated words are there, not merely the English ones gone.
    page.goto(reverse("tutor:class_detail", args=[a_class["cohort"].pk]))
    expect(page.get_by_role("link", name=classes).first).to_be_visible()
    expect(page.locator(".live-link").first).to_contain_text(live)


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_teachers_pages_in_german_and_spanish_fit_desktop_and_phone_widths(
    browser, live_server, client, a_class, language
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    names = ["classes", "class", "student", "lesson", "live", "assignments", "assignment-form",
             "assignment", "replay", "review"]  # fmt: skip
    for width in (1280, 390):
        page = teacher_page(browser, live_server, client, a_class["teacher"], language, width)
        for name, path in zip(names, walk(a_class), strict=True):
            page.goto(path)
            # No page is wider than the window: a long word wraps instead of pushing it out.
            overflow = page.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, (path, width, overflow)
            page.screenshot(
                path=SHOTS / f"teacher-{name}-{language}-{width}.png", full_page=width > 390
            )
