"""A learner reads Parsnip in German or Spanish: the switch in the footer keeps them on the
page, and the pages they walk show no English of Parsnip's own (the lessons themselves stay
English until they are translated)."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.factories import make_prediction, make_user
from tests.i18n_check import catalog_entries
from tests.test_translations import TRANSLATED

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
WALK = ["/", "/learn/local-models/", SEED, "/progress/"]
# What the lesson says (its prose, code, outputs, captions, questions): English until translated.
CONTENT = ", ".join(
    [
        ".prose",
        "pre",
        "code",
        "script",
        "style",
        "[hidden]",
        ".term-popover",
        "h1",
        ".lesson-title",
        ".block-caption",
        ".snippet-caption",
        ".lesson-list a",
        ".course-title",
        ".breadcrumbs a",
        ".ordering-line",
        ".question-prompt",
        ".question-option",
        ".term-chips",
        ".lesson-card h2",
        ".lesson-card h3",
        ".lesson-card p",
        ".course-card h2",
        ".course-card p",
        ".who",
        ".brand",
        "option",
        ".lesson-item-title",
        ".lesson-item-summary",
        ".course-summary",
        "h2 a",
        "textarea",
        ".cm-editor",
        ".option-text",
        ".option-feedback",
        ".lesson-terms a",
        ".lesson-pager a",
        "[lang]:not(html)",
    ]
)
UI_TEXT = f"""() => {{
  const body = document.body.cloneNode(true);
  body.querySelectorAll({CONTENT!r}).forEach((node) => node.remove());
  return body.innerText || body.textContent;
}}"""


# Words only English writes: Parsnip's text outside the lesson's own has none of them once translated.
ENGLISH_ONLY = re.compile(
    r"\b(the|your|you|yet|and|of|is|are|with|this|what|have|from|here)\b", re.I
)


def english_phrases(language: str) -> list[str]:
    """Parsnip's own English phrases of two words or more that the language says otherwise."""
    catalog = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
    return sorted(
        {
            entry.msgid
            for entry in catalog_entries(catalog.read_text())
            if any(place.startswith(tuple(TRANSLATED)) for place in entry.locations)
            and len(entry.msgid.split()) >= 2
            and not any(mark in entry.msgid for mark in ("%(", "{", "<", "&"))
            and entry.msgstrs[0] != entry.msgid
        }
    )


def without_content(line: str) -> str:
    """The line with the course's own words taken out: titles and summaries stay English."""
    from course.kinds.code_exercise import CodeTest
    from course.models import Block, Course, Lesson

    for words in [
        *Lesson.objects.values_list("title", flat=True),
        *Course.objects.values_list("title", flat=True),
        *Block.objects.exclude(title="").values_list("title", flat=True),
        *CodeTest.objects.values_list("name", flat=True),
    ]:
        line = line.replace(words, "")
    return line


@pytest.fixture
def learner_page(browser, live_server, client, sample_content):
    from course.kinds.snippet import Snippet

    learner = make_user("ada")
    make_prediction(learner, Snippet.objects.get(block__key="backend-latency"))
    client.force_login(learner)

    def open_at(width: int):
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": width, "height": 900}, locale="en-GB"
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
        return context.new_page()

    return open_at


@pytest.mark.parametrize(
    "language, name, change, lessons",
    [("de", "Deutsch", "Change", "Lektionen"), ("es", "Español", "Change", "Lecciones")],
)
def test_a_learner_switches_language_on_the_lesson_and_reads_no_english_of_parsnips(
    learner_page, language, name, change, lessons
):
    page = learner_page(1280)
    page.goto(SEED + "#exercise-kv-cache-vram-order")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.locator("#language-choice").select_option(language)
    page.get_by_role("button", name=change).click()
    # Still on the lesson, now in the chosen language.
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert page.url.endswith(SEED)
    expect(
        page.get_by_role("navigation", name=None).get_by_role("link", name=lessons).first
    ).to_be_visible()
    phrases = english_phrases(language)
    assert len(phrases) > 100
    for path in WALK:
        page.goto(path)
        expect(page.locator("html")).to_have_attribute("lang", language)
        text = " ".join(page.evaluate(UI_TEXT).split())
        left = [phrase for phrase in phrases if phrase in text]
        assert left == [], (path, left)
        lines = [without_content(line) for line in page.evaluate(UI_TEXT).splitlines()]
        english = [line.strip() for line in lines if ENGLISH_ONLY.search(line)]
        assert english == [], (path, english)
    # The choice is the account's: it holds on the next visit, whatever the browser says.
    assert page.locator("#language-choice").input_value() == language
    for width in (1280, 390):
        shot = learner_page(width)
        shot.goto(SEED)
        expect(shot.locator("html")).to_have_attribute("lang", language)
        shot.screenshot(path=f"artifacts/lesson-{language}-{width}.png", full_page=False)
        shot.locator("#snippet-backend-latency-practice").scroll_into_view_if_needed()
        shot.screenshot(path=f"artifacts/lesson-practice-{language}-{width}.png", full_page=False)
        shot.goto("/progress/")
        shot.screenshot(path=f"artifacts/progress-{language}-{width}.png", full_page=True)
