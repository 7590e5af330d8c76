import re

import pytest
from django.urls import reverse

from tests.factories import (
    make_block,
    make_course,
    make_exercise,
    make_lesson,
    make_snippet,
    make_term,
)

pytestmark = pytest.mark.django_db


def lesson_url(lesson) -> str:
    return reverse("tutor:lesson_detail", args=[lesson.course.slug, lesson.slug])


def full_lesson(*, blocks: int = 1, terms: int = 1, course=None, **fields):
    """A lesson with `blocks` of every kind and `terms` glossary terms mentioned in its prose."""
    lesson = make_lesson(course, **fields)
    made_terms = [make_term() for _ in range(terms)]
    lesson.terms.set(made_terms)
    mention = " ".join(term.term for term in made_terms)
    for n in range(blocks):
        make_block(lesson, "try_it", title=f"Try widgets {n}")
        make_snippet(lesson, code=f"print({n})\n", expected_output=f"{n}\n", caption=f"Caption {n}")
        make_exercise(lesson, intro=f"Order these {n}.", lines=[f"a{n}", f"b{n}", f"c{n}"])
        make_block(lesson, "data_flow", body=f"Flow {mention}", items=["One", "Two"])
        make_block(
            lesson,
            "explanations",
            items=[{"title": f"Why {n}", "body": f"Because {mention}."}],
        )
        make_block(
            lesson,
            "examples",
            items=[{"title": f"Card {n}", "lines": "x -> y\n  z", "body": f"See {mention}."}],
        )
        make_block(lesson, "prose", title=f"Notes {n}", body=f"Prose about {mention}.")
    return lesson


# Catalogue and course -------------------------------------------------------


def test_catalogue_lists_courses_with_their_lessons_in_order(client):
    course = make_course(title="Running models locally")
    make_lesson(course, title="Second lesson", position=2)
    make_lesson(course, title="First lesson", position=1, level="Beginner")

    response = client.get(reverse("tutor:catalogue"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Running models locally" in html
    assert html.index("First lesson") < html.index("Second lesson")
    assert "Beginner" in html


def test_course_page_lists_its_lessons_in_order_under_their_levels(client):
    course = make_course(title="Local models")
    make_lesson(course, title="Later", position=5, level="Master")
    make_lesson(course, title="Earlier", position=1, level="Beginner")
    make_lesson(course, title="Between", position=3, level="Beginner")
    make_lesson(title="Another course's lesson")

    response = client.get(reverse("tutor:course_detail", args=[course.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    order = ['id="level-1">Beginner</h2>', "Earlier", "Between", 'id="level-2">Master</h2>', "Later"]
    assert [html.index(text) for text in order] == sorted(html.index(text) for text in order)
    assert "Beginner</h2>" in html and html.count("Beginner</h2>") == 1
    assert "Another course&#x27;s lesson" not in html


def test_unknown_course_is_404(client):
    assert client.get(reverse("tutor:course_detail", args=["nope"])).status_code == 404


# Lesson ---------------------------------------------------------------------


def test_lesson_page_shows_every_block_kind_in_order(client):
    lesson = full_lesson(title="Speed", level="Master", summary="Make it fast.")

    response = client.get(lesson_url(lesson))

    assert response.status_code == 200
    html = response.content.decode()
    headings = [
        "Master",
        "<h1",
        "Make it fast.",
        "Try It",
        "Try widgets 0",
        'id="snippet-',
        "Caption 0",
        'class="highlight"',
        "Before you run it, say out loud what it will print. Then open the answer.",
        "Put it in order",
        "Order these 0.",
        "Data Flow",
        "↓",
        "Why this works",
        "Why 0",
        "Examples",
        "Card 0",
        "Notes 0",
        "Words this lesson uses",
    ]
    positions = [html.index(text) for text in headings]
    assert positions == sorted(positions)
    assert html.count("<h1") == 1


def test_lesson_page_shows_reading_time_and_what_you_will_see(client):
    lesson = make_lesson(what_you_will_see="Line one\nLine two\n")

    html = client.get(lesson_url(lesson)).content.decode()

    assert "About 1 min of reading" in html
    assert '<pre class="output">Line one\nLine two</pre>' in html


def test_lesson_page_never_shows_a_snippets_output(client):
    lesson = make_lesson()
    make_snippet(lesson, code='print("hidden answer" * 1)\n', expected_output="THE-SECRET-OUTPUT\n")

    html = client.get(lesson_url(lesson)).content.decode()

    assert "THE-SECRET-OUTPUT" not in html
    assert 'class="practice-slot"' in html


def test_ordering_lines_are_listed_but_not_in_the_solved_order(client):
    lesson = make_lesson()
    exercise = make_exercise(
        lesson, lines=["alpha", "bravo", "charlie", "delta"], distractors=["echo"]
    )

    html = client.get(lesson_url(lesson)).content.decode()

    shown = [text for text in re.findall(r"alpha|bravo|charlie|delta|echo", html)]
    assert sorted(shown) == ["alpha", "bravo", "charlie", "delta", "echo"]
    assert [t for t in shown if t != "echo"] != ["alpha", "bravo", "charlie", "delta"]
    assert f'id="exercise-{exercise.key}-practice"' in html


def test_code_is_highlighted_on_the_server(client):
    lesson = make_lesson()
    make_snippet(lesson, code="def f(x):\n    return x  # done\n")

    html = client.get(lesson_url(lesson)).content.decode()

    assert '<span class="k">def</span>' in html
    assert '<span class="c1"># done</span>' in html
    assert "style=" not in html


def test_glossary_terms_in_lesson_prose_link_to_their_entry(client):
    term = make_term("KV cache", slug="kv-cache")
    lesson = make_lesson(summary="Tune the KV cache. The KV cache grows.")
    lesson.terms.add(term)
    make_block(lesson, "prose", body="More about the KV cache here.")

    html = client.get(lesson_url(lesson)).content.decode()

    summary_link = (
        f'<a class="term-link" href="{term.get_absolute_url()}" data-term="kv-cache" '
        f'hx-get="{reverse("course:term_preview", args=["kv-cache"])}" '
        'hx-trigger="mouseenter delay:150ms, focus" hx-target="#term-preview" '
        'hx-swap="outerHTML">KV cache</a>'
    )
    assert summary_link in html
    # Linked where first mentioned on the page, plus once in "Words this lesson uses".
    assert html.count('data-term="kv-cache"') == 2
    assert 'id="term-preview"' in html


def test_lesson_page_links_previous_and_next_lesson(client):
    course = make_course()
    first = make_lesson(course, title="Choosing hardware for local models", position=1)
    middle = make_lesson(course, title="Optimising speed and memory", position=2)
    last = make_lesson(course, title="Deploying a private model safely", position=3)

    html = client.get(lesson_url(middle)).content.decode()

    assert f'rel="prev" href="{lesson_url(first)}"' in html
    assert "← Choosing hardware for local models" in html
    assert f'rel="next" href="{lesson_url(last)}"' in html
    assert "Deploying a private model safely →" in html
    assert html.index("Previous Lesson") < html.index("Next Lesson")

    first_html = client.get(lesson_url(first)).content.decode()
    assert "Previous Lesson" not in first_html
    assert "Next Lesson" in first_html


def test_unknown_lesson_is_404(client):
    lesson = make_lesson()
    other = make_course()

    assert (
        client.get(reverse("tutor:lesson_detail", args=[lesson.course.slug, "nope"])).status_code
        == 404
    )
    assert (
        client.get(reverse("tutor:lesson_detail", args=[other.slug, lesson.slug])).status_code
        == 404
    )


def test_lesson_page_costs_the_same_queries_whatever_it_holds(client, django_assert_num_queries):
    small = full_lesson(blocks=1, terms=1)
    big = full_lesson(blocks=6, terms=8)

    # Rendered for the first time: the content version, then the content (6 queries) and
    # the ordering exercises' dependencies (the reader's scramble is never a solution).
    with django_assert_num_queries(8):
        assert client.get(lesson_url(small)).status_code == 200
    with django_assert_num_queries(8):
        assert client.get(lesson_url(big)).status_code == 200


# Glossary -------------------------------------------------------------------


def test_glossary_groups_terms_under_letters_with_jump_links(client):
    make_term("vLLM", slug="vllm")
    make_term("VRAM", slug="vram")
    make_term("backend", slug="backend")
    make_term("4-bit", slug="four-bit")

    html = client.get(reverse("course:glossary")).content.decode()

    assert '<a href="#letter-v">V</a>' in html
    assert '<a href="#letter-b">B</a>' in html
    assert '<span aria-hidden="true">Q</span>' in html
    assert 'id="letter-v"' in html
    assert 'id="letter-other"' in html
    assert html.index("backend") < html.index("vLLM") < html.index("VRAM")


def test_term_page_shows_definition_links_and_lessons(client):
    vram = make_term("VRAM", slug="vram")
    cache = make_term("KV cache", slug="kv-cache", definition="Keys and values, kept in [[vram]].")
    cache.see_also.add(vram)
    lesson = make_lesson(title="Optimising speed and memory")
    lesson.terms.add(cache)

    response = client.get(cache.get_absolute_url())

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1" in html and "KV cache</h1>" in html
    assert f'href="{vram.get_absolute_url()}" data-term="vram"' in html
    assert "Points at" in html
    assert "Used in" in html
    assert f'href="{lesson_url(lesson)}">Optimising speed and memory</a>' in html


def test_unknown_term_is_404(client):
    assert client.get(reverse("course:term_detail", args=["nope"])).status_code == 404
    assert client.get(reverse("course:term_preview", args=["nope"])).status_code == 404


def test_term_preview_is_a_partial_for_htmx(client):
    make_term("VRAM", slug="vram")
    make_term("KV cache", slug="kv-cache", definition="Keys and values, kept in [[vram]].")

    response = client.get(
        reverse("course:term_preview", args=["kv-cache"]), headers={"HX-Request": "true"}
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="term-preview"')
    assert "<html" not in html
    assert "KV cache" in html
    # Inside the popover the reference reads as a word, not as another link: the one
    # link opens the entry.
    assert "kept in VRAM." in html
    assert re.findall(r"<a [^>]*>", html) == ['<a href="/glossary/kv-cache/">']
    assert "HX-Request" in response["Vary"]


def test_term_preview_without_htmx_is_the_full_term_page(client):
    make_term("KV cache", slug="kv-cache")

    response = client.get(reverse("course:term_preview", args=["kv-cache"]))

    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert "Used in" in html


# Search ---------------------------------------------------------------------


def test_search_finds_lessons_and_terms(client):
    lesson = make_lesson(title="Optimising speed and memory")
    make_block(lesson, "prose", body="Continuous batching fills empty slots.")
    make_term("continuous batching", slug="continuous-batching")
    make_lesson(title="Unrelated")

    response = client.get(reverse("course:search"), {"q": "batching"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "Optimising speed and memory" in html
    assert "continuous batching" in html
    assert "Unrelated" not in html
    assert "1 lesson and 1 word" in html


def test_search_without_a_query_asks_for_one(client):
    response = client.get(reverse("course:search"))

    assert response.status_code == 200
    assert "Type a word" in response.content.decode()


def test_live_search_answers_htmx_with_just_the_results(client):
    make_term("throughput", slug="throughput")

    response = client.get(
        reverse("course:search"), {"q": "through"}, headers={"HX-Request": "true"}
    )

    html = response.content.decode()
    assert html.lstrip().startswith('<div id="search-results"')
    assert "<html" not in html
    assert "throughput" in html


# The shipped sample course ---------------------------------------------------


SEED_URL = "/learn/local-models/optimising-speed-and-memory/"


@pytest.fixture
def seed_html(client, sample_content):
    response = client.get(SEED_URL)
    assert response.status_code == 200
    return response.content.decode()


def test_seed_lesson_reads_like_the_seed(seed_html):
    texts = [
        "Master",
        "Optimising speed and memory</h1>",
        "Once a model runs, you can make it faster and lighter",
        "What you will see",
        "About 1 min of reading",
        "Try It",
        "Pick a backend and tune the KV cache",
        "Compare backend latency across hardware.",
        "Before you run it, say out loud what it will print. Then open the answer.",
        '<figcaption class="snippet-caption">Show how lower KV cache precision frees VRAM.',
        "Put it in order",
        "Before you write anything, put these lines back in the right order.",
        "Data Flow",
        "A model is served through a fast",
        '<span class="flow-name">Pick a backend</span>',
        '<span class="flow-name">Tune KV cache</span>',
        '<span class="flow-name">Batch requests</span>',
        '<span class="flow-name">Measure throughput</span>',
        "Why this works",
        "Backend choice",
        "KV cache tuning",
        "Examples",
        "Run it lean",
        "KV cache budget",
        "Continuous batching</h3>",
        "Words this lesson uses",
        "Each one is defined here on this site. Open the entry for the full definition and the other words it points at.",
        "Previous Lesson",
        "← Batching and throughput",
        "Next Lesson",
        "Deploying a private model safely →",
    ]
    positions = [seed_html.index(text) for text in texts]
    assert positions == sorted(positions)


def test_seed_lesson_keeps_the_first_snippets_output_hidden(seed_html):
    # The second snippet's output is also the lesson's "What you will see": it is there,
    # folded, saying whose answer it is; the first one's must wait for the reveal.
    for line in ["llama.cpp on NVIDIA: 2.00s", "vllm on NVIDIA: 1.00s", "vllm on CPU: 3.00s"]:
        assert line not in seed_html
    folded = seed_html.split('<details class="what-you-will-see is-answer">')[1].split(
        "</details>"
    )[0]
    assert "This is what “Show how lower KV cache precision frees VRAM.” prints" in folded
    assert "16-bit, 1000 units: 16.00 GB" in folded


def test_seed_lesson_links_its_glossary_words(seed_html):
    for slug in ["kv-cache", "vram", "continuous-batching", "vllm", "llama-cpp", "backend"]:
        assert f'data-term="{slug}"' in seed_html


def test_reading_time_counts_prose_not_code(client):
    lesson = make_lesson(summary="word " * 476)  # 476 words: two minutes at 238 a minute
    make_snippet(lesson, code="x = 1\n" * 400)
    html = client.get(lesson_url(lesson)).content.decode()
    assert "About 2 min of reading" in html


def test_a_lesson_page_read_again_costs_one_query_for_anonymous_readers(
    client, django_assert_num_queries
):
    """The content is rendered once per content version; a cached page only looks up the
    lesson (and its content version, in the same query)."""
    lesson = full_lesson(blocks=6, terms=8)
    first = client.get(lesson_url(lesson)).content.decode()
    with django_assert_num_queries(1):
        again = client.get(lesson_url(lesson)).content.decode()
    assert again == first


def test_a_lesson_page_from_the_cache_is_never_stored_by_the_browser(
    client, django_assert_num_queries
):
    """Back and Forward ask again: even the cached page for readers not logged in (one who
    logs in, then goes Back, must not see the page they had before)."""
    lesson = make_lesson()
    first = client.get(lesson_url(lesson))
    with django_assert_num_queries(1):  # the whole page, from the cache
        again = client.get(lesson_url(lesson))
    assert "no-store" in first["Cache-Control"]
    assert "no-store" in again["Cache-Control"]


@pytest.mark.parametrize("where", ["lesson", "block", "snippet", "exercise line", "term"])
def test_an_edit_shows_at_once_on_a_cached_lesson_page(client, where):
    lesson = make_lesson(summary="The old summary.")
    block = make_block(lesson, kind="prose", body="The old prose.")
    snippet = make_snippet(lesson, code='print("old code")\n')
    exercise = make_exercise(lesson, lines=["old_line = 1", "other = 2"])
    term = make_term("Oldterm", slug="oldterm", definition="An old definition.")
    lesson.terms.add(term)
    assert "old" in client.get(lesson_url(lesson)).content.decode()  # now cached

    if where == "lesson":
        lesson.summary = "The new summary."
        lesson.save()
    elif where == "block":
        block.body = "The new prose."
        block.save()
    elif where == "snippet":
        snippet.code = 'print("new code")\n'
        snippet.save()
    elif where == "exercise line":
        line = exercise.lines.get(text="old_line = 1")
        line.text = "new_line = 1"
        line.save()
    else:
        term.term = "Newterm"
        term.save()

    html = client.get(lesson_url(lesson)).content.decode()
    expected = {
        "lesson": "The new summary.",
        "block": "The new prose.",
        "snippet": "new code",
        "exercise line": "new_line",
        "term": "Newterm",
    }[where]
    assert expected in html


def test_a_re_import_shows_at_once_on_a_cached_lesson_page(client, tmp_path, sample_content):
    import shutil

    from django.conf import settings
    from django.core.management import call_command

    url = "/learn/local-models/optimising-speed-and-memory/"
    assert "Optimising speed and memory" in client.get(url).content.decode()
    content = tmp_path / "content"
    shutil.copytree(settings.BASE_DIR / "content", content)
    seed = content / "local-models" / "optimising-speed-and-memory.yaml"
    seed.write_text(
        seed.read_text().replace("Optimising speed and memory", "Speed and memory, tuned")
    )
    call_command("import_content", str(content), verbosity=0)
    assert "Speed and memory, tuned" in client.get(url).content.decode()


def test_term_preview_links_to_the_entry_it_mentions(client):
    make_term("KV cache", slug="kv-cache")
    html = client.get(
        reverse("course:term_preview", args=["kv-cache"]), headers={"HX-Request": "true"}
    ).content.decode()
    assert '<a href="/glossary/kv-cache/">Open the entry</a> for the words it points at.' in html


def test_a_preview_that_is_a_snippets_answer_is_folded_and_says_so(client):
    lesson = make_lesson(what_you_will_see="Total: 3\nDone\n")
    make_snippet(lesson, caption="Add them up.", expected_output="\nTotal: 3  \nDone\n\n")

    html = client.get(lesson_url(lesson)).content.decode()

    # A reader who is not practising opens it with one click; it says what it gives away.
    folded = html.split('<details class="what-you-will-see is-answer">')[1].split("</details>")[0]
    assert "This is what “Add them up.” prints" in folded
    assert '<pre class="output">Total: 3\nDone</pre>' in folded


def test_a_preview_that_is_no_snippets_answer_stays_open(client):
    lesson = make_lesson(what_you_will_see="Total: 3\n")
    make_snippet(lesson, expected_output="Total: 4\n")
    html = client.get(lesson_url(lesson)).content.decode()
    assert "<details" not in html.split("What you will see")[0][-200:]
    assert '<section class="what-you-will-see"' in html
