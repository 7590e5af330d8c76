import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"


def test_read_the_seed_lesson_follow_a_glossary_word_and_go_on(page, sample_content):
    page.goto(SEED)
    expect(page.get_by_role("heading", level=1)).to_have_text("Optimising speed and memory")

    # Hovering a word in the prose shows its definition next to it.
    link = page.locator(".lesson-summary a.term-link", has_text="KV cache")
    link.hover()
    popover = page.locator("#term-preview")
    expect(popover).to_be_visible()
    expect(popover).to_contain_text("attention keys and values")
    expect(link).to_have_attribute("aria-describedby", "term-preview")
    link_box, popover_box = link.bounding_box(), popover.bounding_box()
    assert abs(popover_box["y"] - (link_box["y"] + link_box["height"])) < 40

    # Escape dismisses it.
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()

    # Following the link opens the term's entry.
    link.click()
    expect(page).to_have_url(re.compile(r"/glossary/kv-cache/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("KV cache")
    expect(page.get_by_role("heading", name="Used in")).to_be_visible()

    page.go_back()
    page.get_by_role("link", name=re.compile("Deploying a private model safely")).click()
    expect(page).to_have_url(re.compile(r"/deploying-a-private-model-safely/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Deploying a private model safely")


def test_keyboard_focus_shows_the_definition(page, sample_content):
    page.goto(SEED)
    chip = page.locator(".term-chips a.term-link", has_text="VRAM")
    chip.focus()

    popover = page.locator("#term-preview")
    expect(popover).to_be_visible()
    expect(popover).to_contain_text("VRAM")

    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    expect(chip).to_be_focused()


def test_live_search_shows_results_while_typing(page, sample_content):
    page.goto("/search/")
    page.locator("#search-q").press_sequentially("paged", delay=30)

    expect(page.locator("#search-results")).to_contain_text("PagedAttention")
    expect(page).to_have_url(re.compile(r"q=paged"))
