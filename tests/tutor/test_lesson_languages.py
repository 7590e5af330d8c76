"""A lesson page in the reader's language: the lesson's translation where there is one, field
by field, and English with a note where there is none (course/translations.py)."""

import re

import pytest

from tests.factories import make_block, make_lesson, make_snippet, make_term, make_user

pytestmark = pytest.mark.django_db

SEED_URL = "/learn/local-models/optimising-speed-and-memory/"


def page(client, url: str, language: str) -> str:
    return client.get(url, headers={"accept-language": language}).text


def test_the_seed_lesson_reads_in_spanish(client, sample_content):
    html = page(client, SEED_URL, "es")
    assert '<h1 id="lesson-title">Optimizar la velocidad y la memoria</h1>' in html
    assert "Compara la latencia de los backends en distinto hardware." in html
    assert "Antes de escribir nada, vuelve a poner estas líneas en el orden correcto." in html
    assert "Elige un backend" in html and "Mide el rendimiento" in html
    # Code and outputs are the lesson's own, in every language.
    assert "backend_latency" in html
    # Nothing is in English, so no note says so.
    assert "translation-note" not in html and 'lang="en"' not in html.split("<footer")[0]
    assert "Compare backend latency across hardware." not in html


def test_the_seed_lesson_reads_in_german_for_a_learner(client, sample_content):
    client.force_login(make_user("sam"))
    html = page(client, SEED_URL, "de")
    assert "Geschwindigkeit und Speicher optimieren" in html
    assert "Vergleiche die Latenz der Backends auf verschiedener Hardware." in html
    assert "Jetzt schreibst du es selbst" in html
    assert "16 Bit für 1000 Einheiten sind 16 GB" in html  # what the tests check, listed
    # In English, the same page is the lesson as written.
    html = page(client, SEED_URL, "en")
    assert "Optimising speed and memory" in html and "Geschwindigkeit" not in html


def test_a_lesson_without_a_translation_is_english_with_a_note(client):
    lesson = make_lesson(title="Tokens and context", summary="What a token is.")
    make_block(lesson, title="Counting tokens", body="Words are split into tokens.")
    html = page(client, lesson.get_absolute_url(), "es")
    assert "Esta lección aún no está traducida al español; se muestra en inglés." in html
    assert '<h1 id="lesson-title" lang="en">Tokens and context</h1>' in html
    assert re.search(r'<div lang="en">\s*<section class="block block-prose"', html)
    # The page around it is in Spanish, and in English there is no note.
    assert '<html lang="es" dir="ltr">' in html
    assert "translation-note" not in page(client, lesson.get_absolute_url(), "en")


def test_a_partial_translation_shows_each_field_it_has_and_english_for_the_rest(client):
    lesson = make_lesson(title="Tokens and context")
    make_block(lesson, key="counting", title="Counting tokens", body="Words are split into tokens.")
    make_block(lesson, key="limits", title="Limits", body="A window holds so many.")
    snippet = make_snippet(lesson, key="count", caption="Count the words.")
    lesson.translations = {
        "de": {
            "title": "Tokens und Kontext",
            "blocks": {
                "counting": {"title": "Tokens zählen"},
                snippet.block.key: {"caption": "Zähl die Wörter."},
            },
        }
    }
    lesson.save()
    html = page(client, lesson.get_absolute_url(), "de")
    assert '<h1 id="lesson-title">Tokens und Kontext</h1>' in html
    assert "Tokens zählen" in html and "Words are split into tokens." in html
    assert "Zähl die Wörter." in html
    assert "Teile dieser Lektion sind noch nicht auf Deutsch übersetzt" in html
    # The block with no translation at all is marked English; Spanish readers see English.
    assert re.search(
        r'<div lang="en">\s*<section class="block block-prose" aria-labelledby="limits-heading">',
        html,
    )
    assert "Tokens und Kontext" not in page(client, lesson.get_absolute_url(), "es")


def test_cached_fragments_are_kept_per_language(client):
    lesson = make_lesson(title="Tokens and context")
    make_block(lesson, key="counting", title="Counting tokens")
    lesson.translations = {"es": {"blocks": {"counting": {"title": "Contar tokens"}}}}
    lesson.save()
    url = lesson.get_absolute_url()
    for _ in range(2):  # the second time from the cache
        assert "Contar tokens" in page(client, url, "es")
        assert "Counting tokens" in page(client, url, "en")
        assert "Counting tokens" in page(client, url, "de")


def test_the_glossary_and_a_terms_page_show_the_translation(client):
    term = make_term("KV cache", slug="kv-cache", definition="Keys and values kept.")
    term.translations = {"es": {"term": "caché KV", "definition": "Claves y valores guardados."}}
    term.save()
    make_term("VRAM", slug="vram", definition="Memory on a graphics card.")
    glossary = page(client, "/glossary/", "es")
    assert "caché KV" in glossary and "Claves y valores guardados." in glossary
    assert '<div class="term-index-entry" lang="en">' in glossary  # VRAM, not translated
    term_page = page(client, term.get_absolute_url(), "es")
    assert '<h1 id="term-title">caché KV</h1>' in term_page
    assert "Claves y valores guardados." in term_page
    assert '<h1 id="term-title">KV cache</h1>' in page(client, term.get_absolute_url(), "en")


def test_a_hint_taken_on_a_translated_lesson_is_in_the_readers_language(client, sample_content):
    from django.urls import reverse

    from course.models import Block

    client.force_login(make_user("sam"))
    block = Block.objects.get(key="write-kv-cache-vram")
    response = client.post(
        reverse("tutor:hint_next", args=[block.pk]),
        {"rung": "1"},
        headers={"accept-language": "es", "hx-request": "true"},
    )
    assert "La función solo calcula" in response.text
    assert "The function only computes" not in response.text


COURSE_TITLES = {"es": "Ejecutar modelos en local", "de": "Modelle lokal ausführen"}


@pytest.mark.parametrize("language", ["es", "de"])
def test_the_seed_course_reads_in_the_page_language(client, sample_content, language):
    title = COURSE_TITLES[language]
    summary = {"es": "en doce lecciones", "de": "in zwölf Lektionen"}[language]
    for url in ["/", "/learn/local-models/"]:
        html = page(client, url, language)
        assert title in html and summary in html, url
        assert "Running models locally" not in html and "in twelve lessons" not in html
    html = page(client, SEED_URL, language)
    assert f'<li><a href="/learn/local-models/">{title}</a></li>' in html  # the breadcrumb
    assert "Running models locally" not in html
    html = page(client, "/glossary/vram/", language)
    assert title in html and "Running models locally" not in html


def test_a_course_without_a_translation_is_english_marked_so(client):
    lesson = make_lesson(title="Tokens and context")
    course = lesson.course
    course.title, course.summary = "Small models", "What fits on a laptop."
    course.translations = {"de": {"title": "Kleine Modelle"}}
    course.save()
    html = page(client, course.get_absolute_url(), "de")
    assert "<h1>Kleine Modelle</h1>" in html
    assert re.search(r'<div class="lede prose" lang="en">\s*<p>What fits on a laptop.</p>', html)
    html = page(client, lesson.get_absolute_url(), "es")
    assert f'<a href="{course.get_absolute_url()}" lang="en">Small models</a>' in html
    html = page(client, "/", "en")
    assert "Small models" in html and "Kleine Modelle" not in html and 'lang="en">Small' not in html
