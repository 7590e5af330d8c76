import re

import pytest

from course.markup import (
    GlossaryLinker,
    highlight_code,
    linked_term_slugs,
    render_markdown,
    render_plain_text,
)

pytestmark = pytest.mark.urls("config.urls")

TERMS = {"kv-cache": "KV cache", "vram": "VRAM", "llama-cpp": "llama.cpp"}
AUTOLINK = [("kv-cache", "KV cache"), ("vram", "VRAM"), ("llama-cpp", "llama.cpp")]


def links(html: str) -> list[str]:
    return re.findall(r'data-term="([a-z0-9-]+)"', html)


def test_term_reference_becomes_a_link_with_a_preview():
    html = render_markdown("Keys live in [[vram]].", terms=TERMS)

    assert 'href="/glossary/vram/"' in html
    assert 'hx-get="/glossary/vram/preview/"' in html
    assert 'hx-trigger="mouseenter delay:150ms, focus"' in html
    assert 'hx-target="#term-preview"' in html
    assert ">VRAM</a>" in html


def test_term_reference_can_show_other_words():
    html = render_markdown("Spend less [[vram|video memory]].", terms=TERMS)

    assert ">video memory</a>" in html


def test_unknown_term_reference_is_plain_text():
    html = render_markdown("See [[nothing-here]].", terms=TERMS)

    assert "<a" not in html
    assert "nothing-here" in html


def test_references_can_be_rendered_as_words_only():
    html = render_markdown("Keys live in [[vram]].", terms=TERMS, link_terms=False)

    assert html == "<p>Keys live in VRAM.</p>"


def test_linked_term_slugs_lists_each_reference_once_in_order():
    assert linked_term_slugs("[[vram]] and [[kv-cache|cache]] and [[vram]]") == ["vram", "kv-cache"]


def test_script_tags_are_stripped():
    html = render_markdown('Hello <script>alert("x")</script> world')

    assert "<script" not in html
    assert "alert" not in html


def test_javascript_urls_are_stripped():
    html = render_markdown('[click](javascript:alert(1)) and <a href="javascript:alert(2)">me</a>')

    assert "javascript:" not in html
    assert "click" in html


def test_event_handler_attributes_are_stripped():
    html = render_markdown('<img src="x" onerror="alert(1)"><p onclick="alert(2)">hi</p>')

    assert "onerror" not in html
    assert "onclick" not in html


def test_autolink_links_only_the_first_mention():
    html = render_markdown("The KV cache grows. The KV cache shrinks.", autolink=AUTOLINK)

    assert links(html) == ["kv-cache"]
    assert html.count("KV cache") == 2


def test_autolink_is_case_insensitive_and_keeps_the_writers_case():
    html = render_markdown("Kv Cache sizes matter.", autolink=AUTOLINK)

    assert ">Kv Cache</a>" in html


def test_autolink_skips_code_and_existing_links():
    html = render_markdown(
        "Run `llama.cpp` or [VRAM docs](https://example.com) first, then VRAM and llama.cpp.",
        autolink=AUTOLINK,
    )

    assert "<code>llama.cpp</code>" in html
    assert '<a href="https://example.com" rel="noopener noreferrer">VRAM docs</a>' in html
    assert links(html) == ["vram", "llama-cpp"]


def test_autolink_skips_code_blocks():
    html = render_markdown("```\nKV cache\n```\n\nThe KV cache.", autolink=AUTOLINK)

    assert "<pre><code>KV cache\n</code></pre>" in html
    assert links(html) == ["kv-cache"]


def test_autolink_needs_whole_words():
    html = render_markdown("VRAMs and preVRAM are not VRAM-like words.", autolink=AUTOLINK)

    assert links(html) == []


def test_autolink_does_not_repeat_a_term_already_referenced():
    html = render_markdown("[[vram]] is memory. VRAM is fast.", terms=TERMS, autolink=AUTOLINK)

    assert links(html) == ["vram"]


def test_glossary_linker_links_each_term_once_per_page():
    linker = GlossaryLinker(terms=TERMS, autolink=AUTOLINK)

    first = linker.render("The KV cache lives in VRAM.")
    second = linker.render("The KV cache again, and llama.cpp.")

    assert links(first) == ["kv-cache", "vram"]
    assert links(second) == ["llama-cpp"]


def test_plain_text_keeps_only_the_words():
    text = render_plain_text("**Bold** words in [[vram]] and `code`.", terms=TERMS)

    assert text == "Bold words in VRAM and code."


def test_code_is_highlighted_with_classes_not_styles():
    html = highlight_code('print("<b>")\n', "python")

    assert '<span class="nb">print</span>' in html
    assert "&lt;b&gt;" in html
    assert "style=" not in html


def test_unknown_language_is_shown_as_plain_text():
    html = highlight_code("just <text>\n", "no-such-language")

    assert "just &lt;text&gt;" in html
