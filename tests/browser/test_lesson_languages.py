"""A reader opens the seed lesson in Spanish and in German and reads it in that language:
its prose, captions, steps, cards and the words it uses; a lesson with no translation is
English, with a note in the reader's language (course/translations.py)."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
OTHER = "/learn/local-models/running-a-first-model/"
SHOTS = Path("/work/wt/notes/shots")

LESSONS = {
    "es": {
        "title": "Optimizar la velocidad y la memoria",
        "course": "Ejecutar modelos en local",
        "prose": [
            "Compara la latencia de los backends en distinto hardware.",
            "Antes de escribir nada, vuelve a poner estas líneas en el orden correcto.",
            "Ahora escríbelo tú",
            "Mide el rendimiento",
            "La elección del backend",
            "El batching continuo deja que el backend llene los huecos vacíos",
        ],
        "term": "caché KV",
        "note": "Esta lección aún no está traducida al español; se muestra en inglés.",
    },
    "de": {
        "title": "Geschwindigkeit und Speicher optimieren",
        "course": "Modelle lokal ausführen",
        "prose": [
            "Vergleiche die Latenz der Backends auf verschiedener Hardware.",
            "Bevor du etwas schreibst, bring diese Zeilen wieder in die richtige Reihenfolge.",
            "Jetzt schreibst du es selbst",
            "Durchsatz messen",
            "Die Wahl des Backends",
            "Mit Continuous Batching füllt das Backend frei gewordene Plätze",
        ],
        "term": "KV-Cache",
        "note": "Diese Lektion ist noch nicht auf Deutsch übersetzt; sie wird auf Englisch angezeigt.",
    },
}


@pytest.fixture
def reader(browser, live_server, client, sample_content):
    """A learner's browser page in `language`, `width` pixels wide."""
    client.force_login(make_user("lena"))

    def open_in(language: str, width: int):
        context = browser.new_context(
            base_url=live_server.url,
            viewport={"width": width, "height": 900},
            locale=language,
            extra_http_headers={"Accept-Language": language},
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

    return open_in


@pytest.mark.parametrize("language", ["es", "de"])
def test_the_seed_lesson_reads_in_the_readers_language(reader, language):
    expected = LESSONS[language]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page = reader(language, width)
        page.goto(SEED)
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.get_by_role("heading", level=1)).to_have_text(expected["title"])
        # The breadcrumb names the course in the reader's language too.
        course = page.locator(".breadcrumbs").get_by_role("link", name=expected["course"])
        expect(course).to_be_visible()
        expect(course).not_to_have_attribute("lang", "en")
        lesson = page.locator("article.lesson")
        for text in expected["prose"]:
            expect(lesson.get_by_text(text).first).to_be_attached()
        # The code is the lesson's own, and nothing of the lesson is left in English.
        expect(lesson.locator(".code-block").first).to_contain_text(
            "def backend_latency(backend, device):"
        )
        expect(lesson.locator("[lang=en]")).to_have_count(0)
        expect(lesson.locator(".translation-note")).to_have_count(0)
        expect(
            lesson.locator(".term-chips").get_by_role("link", name=expected["term"])
        ).to_be_visible()
        page.screenshot(path=SHOTS / f"lesson-{language}-{width}.png")
        lesson.locator(".block-examples").scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / f"lesson-examples-{language}-{width}.png")
        page.context.close()

    # A word it uses, in the glossary: its translated entry.
    page = reader(language, 1280)
    page.goto(SEED)
    page.locator(".term-chips").get_by_role("link", name=expected["term"]).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(expected["term"])
    page.screenshot(path=SHOTS / f"term-{language}-1280.png")

    # A lesson with no translation: English, marked so, with a note in the reader's language.
    page.goto(OTHER)
    expect(page.locator(".translation-note")).to_have_text(expected["note"])
    expect(page.locator(".breadcrumbs")).to_contain_text(expected["course"])
    expect(page.get_by_role("heading", level=1)).to_have_attribute("lang", "en")
    page.screenshot(path=SHOTS / f"untranslated-{language}-1280.png")
    page.context.close()
