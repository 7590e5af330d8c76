import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# Content cannot add behaviour ---------------------------------------------------------

# Attributes content may carry, by element; glossary links are checked on their own.
CONTENT_ATTRIBUTES = {
    "a": {"href", "title", "rel"},
    "abbr": {"title"},
    "code": {"class"},
    "td": {"align"},
    "th": {"align"},
}
GLOSSARY_LINK_ATTRIBUTES = {
    "class",
    "href",
    "data-term",
    "hx-get",
    "hx-trigger",
    "hx-target",
    "hx-swap",
}

HOSTILE = [
    '<a href="/" hx-get="/accounts/logout/" hx-trigger="load" hx-target="body">x</a>',
    '<a hx-post="/classes/join/" hx-vals=\'{"code": "X"}\' hx-trigger="load">x</a>',
    '<p hx-get="/admin/" hx-trigger="load" hx-swap="outerHTML" hx-target="#main">hi</p>',
    '<div data-hx-get="/x" data-hx-trigger="load">x</div>',
    '<a data-term="vram" class="term-link" href="/glossary/vram/" hx-get="/evil/" '
    'hx-target="body" hx-swap="innerHTML">VRAM</a>',
    '<a href="/" hx-on:click="alert(1)" hx-on::load="alert(2)">x</a>',
    '<span hx-ext="debug" hx-boost="true" hx-headers=\'{"X": "1"}\'>x</span>',
    '<a href="x" onclick="alert(1)" onmouseover="alert(2)" style="position:fixed;inset:0">x</a>',
    "<img src=x onerror=alert(1)>",
    '<svg><script>alert(1)</script></svg><math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<form action="/accounts/logout/" method="post"><button>Log out</button></form>',
    '<iframe src="/admin/"></iframe><object data="x"></object><embed src="x">',
    '<meta http-equiv="refresh" content="0;url=/accounts/logout/"><base href="http://evil/">',
    "<style>body{display:none}</style><link rel=stylesheet href=x>",
    '<a id="term-preview" name="main" href="/">shadow the page\'s ids</a>',
    '<code class="term-link language-python" id="x">x</code>',
    '<table><tr><td align="left" style="color:red" data-x="1">x</td></tr></table>',
    "[click](javascript:alert(1)) [data](data:text/html,<script>alert(1)</script>)",
    '[x](http://a "> VRAM hx-get=/accounts/logout/ hx-trigger=load")',
    '[x](http://a "[[vram]]") and ![alt [[vram]]](/x.png "[[vram]]")',
    '<a title="> [[vram]] onmouseover=alert(1)">x</a> VRAM',
    "[[vram|<b hx-get=/x hx-trigger=load>words</b>]]",
    "\ue0000\ue001 and [[vram]] and \ue000 7 \ue001",
    '<!-- <a hx-get="/x" hx-trigger="load"> --> VRAM',
    '```\n<a hx-get="/x" hx-trigger="load">x</a>\n```\n\n`<b onclick=x>`',
    '<a href="https://example.com" hx-get="/x">[[vram]]</a>',
]


def attributes_of(rendered: str) -> list[tuple[str, dict[str, str]]]:
    from html.parser import HTMLParser

    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, {name: value or "" for name, value in attrs}))

    Collect(convert_charrefs=True).feed(rendered)
    return found


def assert_no_behaviour_from_content(rendered: str) -> None:
    """Every element is one content may write, with attributes content may write; the only
    htmx attributes are those of a glossary link, exactly as Parsnip makes them."""
    for tag, attrs in attributes_of(rendered):
        if attrs.get("class") == "term-link":
            slug = attrs.get("data-term", "")
            assert tag == "a" and set(attrs) == GLOSSARY_LINK_ATTRIBUTES, (tag, attrs)
            assert slug in TERMS
            assert attrs["href"] == f"/glossary/{slug}/"
            assert attrs["hx-get"] == f"/glossary/{slug}/preview/"
            assert attrs["hx-trigger"] == "mouseenter delay:150ms, focus"
            assert attrs["hx-target"] == "#term-preview"
            assert attrs["hx-swap"] == "outerHTML"
            continue
        assert tag in CONTENT_ATTRIBUTES or not attrs, (tag, attrs)
        assert set(attrs) <= CONTENT_ATTRIBUTES.get(tag, set()), (tag, attrs)
        if "class" in attrs:
            assert re.fullmatch(r"language-[\w+#.-]+", attrs["class"]), attrs
        for value in attrs.values():
            assert not value.lower().startswith(("javascript:", "data:")), attrs
    assert "<script" not in rendered and "\ue000" not in rendered and "\ue001" not in rendered


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_content_cannot_add_behaviour(hostile):
    for rendered in (
        render_markdown(hostile),
        render_markdown(hostile, terms=TERMS, autolink=AUTOLINK),
        render_markdown(hostile, terms=TERMS, link_terms=False),
        GlossaryLinker(terms=TERMS, autolink=AUTOLINK).render(hostile),
    ):
        assert_no_behaviour_from_content(rendered)


def test_a_hostile_glossary_link_loses_its_own_htmx_but_a_real_reference_keeps_its_own():
    html = render_markdown(
        '<a href="/glossary/vram/" hx-get="/evil/" hx-trigger="load">VRAM</a> and [[kv-cache]]',
        terms=TERMS,
    )
    assert "/evil/" not in html and 'hx-trigger="load"' not in html
    assert links(html) == ["kv-cache"]


@given(
    st.lists(
        st.sampled_from(
            [
                "<a ",
                "<p ",
                "<code ",
                "<td ",
                ">",
                "</a>",
                '"',
                "'",
                "=",
                " ",
                "hx-get",
                "hx-trigger",
                "data-term",
                "onclick",
                "style",
                "class",
                "term-link",
                "load",
                "/x",
                "[[vram]]",
                "[[kv-cache|KV]]",
                "VRAM",
                "KV cache",
                "[",
                "](",
                ")",
                "`",
                "```\n",
                "\n\n",
                "\ue000",
                "\ue001",
                "0",
                "title",
                "href",
                "javascript:",
                "<!--",
                "-->",
                "*",
                "|",
            ]
        ),
        max_size=40,
    ).map("".join)
)
@settings(max_examples=300, deadline=None)
def test_no_markdown_adds_behaviour(text):
    assert_no_behaviour_from_content(render_markdown(text, terms=TERMS, autolink=AUTOLINK))
