"""One lesson page in the admin: every block, with its snippet or exercise and the
exercise's lines, edited in place and in order; and the admin refuses what the content
files refuse, with the same words, and derives the same links."""

import html
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from course.content_files.errors import ContentErrors
from course.content_files.reader import read_content
from course.kinds.ordering import OrderingExercise, OrderingLine
from course.kinds.snippet import Snippet
from course.models import (
    Block,
    GlossaryTerm,
    Lesson,
    linked_in_order,
)
from tests.factories import make_admin, make_block, make_lesson, make_term

pytestmark = pytest.mark.django_db

SEED = "optimising-speed-and-memory"


def change_url(lesson: Lesson) -> str:
    return reverse("admin:course_lesson_change", args=[lesson.pk])


def shown_fields(app, url: str, user) -> dict[str, str]:
    """What the lesson form sends back as the page shows it (no empty-form templates)."""
    form = app.get(url, user=user).forms["lesson_form"]
    return {
        name: value
        for name, value in form.submit_fields()
        if "__prefix__" not in name and "-empty-" not in name
    }


def test_the_lesson_page_shows_each_block_with_its_snippet_exercise_and_lines_in_order(
    django_app, sample_content
):
    lesson = Lesson.objects.get(slug=SEED)
    page = django_app.get(change_url(lesson), user=make_admin())
    fields = page.forms["lesson_form"].fields

    keys = [fields[f"blocks-{n}-key"][0].value for n in range(lesson.blocks.count())]
    assert keys == list(lesson.blocks.order_by("position").values_list("key", flat=True))

    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    at = keys.index("kv-cache-vram")
    assert fields[f"blocks-{at}-snippet-0-code"][0].value == snippet.code
    assert f"blocks-{at}-ordering_exercise-0-intro" not in fields

    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    at = keys.index("kv-cache-vram-order")
    prefix = f"blocks-{at}-ordering_exercise-0-lines"
    shown = [
        (fields[f"{prefix}-{n}-key"][0].value, fields[f"{prefix}-{n}-distractor"][0].checked)
        for n in range(exercise.lines.count())
    ]
    # The solution in its order, then the distractors, each ticked as one.
    assert shown == [(line.key, line.is_distractor) for line in exercise.lines.all()]
    assert any(distractor for _, distractor in shown)
    assert "Distractor (not part of the solution)" in page.text
    # Code is written in a monospace field: the page loads the admin stylesheet for it.
    assert 'href="/static/css/admin.css"' in page.text
    assert 'class="code-field' in page.text


def test_the_lesson_page_links_to_each_of_its_blocks_in_order(django_app, sample_content):
    lesson = Lesson.objects.get(slug=SEED)
    page = django_app.get(change_url(lesson), user=make_admin())
    nav = page.html.select_one("nav.lesson-block-links")
    links = [(a["href"], a.text) for a in nav.select("a")]
    keys = list(lesson.blocks.order_by("position", "pk").values_list("key", flat=True))
    assert [href for href, _ in links] == [f"#blocks-{n}" for n in range(len(keys))]
    # Each link leads to the block it names: the inline with that id holds that key.
    for (href, _), key in zip(links, keys, strict=True):
        block = page.html.select_one(href)
        assert block.select_one(f'input[name="{href[1:]}-key"]')["value"] == key
    at = keys.index("kv-cache-vram-order")
    assert (
        links[at][1]
        == f"{lesson.blocks.get(key='kv-cache-vram-order').title or 'kv-cache-vram-order'} (Put it in order)"
    )


def test_one_save_adds_a_block_with_its_snippet_and_an_exercise_with_its_lines(django_app):
    admin = make_admin()
    lesson = make_lesson()
    data = shown_fields(django_app, change_url(lesson), admin)
    data.update(
        {
            "blocks-TOTAL_FORMS": "2",
            "blocks-0-position": "1",
            "blocks-0-kind": "snippet",
            "blocks-0-key": "hello",
            "blocks-0-snippet-TOTAL_FORMS": "1",
            "blocks-0-snippet-INITIAL_FORMS": "0",
            "blocks-0-snippet-0-language": "python",
            "blocks-0-snippet-0-run_limits": "{}",
            "blocks-0-snippet-0-code": "print('hi')\r\n",
            "blocks-0-snippet-0-expected_output": "hi\r\n",
            "blocks-0-ordering_exercise-TOTAL_FORMS": "0",
            "blocks-0-ordering_exercise-INITIAL_FORMS": "0",
            "blocks-0-code_exercise-TOTAL_FORMS": "0",
            "blocks-0-code_exercise-INITIAL_FORMS": "0",
            "blocks-1-position": "2",
            "blocks-1-kind": "ordering",
            "blocks-1-key": "order-it",
            "blocks-1-snippet-TOTAL_FORMS": "0",
            "blocks-1-snippet-INITIAL_FORMS": "0",
            "blocks-1-ordering_exercise-TOTAL_FORMS": "1",
            "blocks-1-ordering_exercise-INITIAL_FORMS": "0",
            "blocks-1-code_exercise-TOTAL_FORMS": "0",
            "blocks-1-code_exercise-INITIAL_FORMS": "0",
            "blocks-1-ordering_exercise-0-grading": "exact",
            "blocks-1-ordering_exercise-0-lines-TOTAL_FORMS": "3",
            "blocks-1-ordering_exercise-0-lines-INITIAL_FORMS": "0",
            "blocks-1-ordering_exercise-0-lines-0-position": "1",
            "blocks-1-ordering_exercise-0-lines-0-key": "def",
            "blocks-1-ordering_exercise-0-lines-0-text": "def f():",
            "blocks-1-ordering_exercise-0-lines-1-position": "2",
            "blocks-1-ordering_exercise-0-lines-1-key": "ret",
            "blocks-1-ordering_exercise-0-lines-1-text": "    return 1",
            "blocks-1-ordering_exercise-0-lines-2-distractor": "on",
            "blocks-1-ordering_exercise-0-lines-2-key": "bad",
            "blocks-1-ordering_exercise-0-lines-2-text": "    return",
        }
    )
    for block in ("blocks-0", "blocks-1"):
        for inline in ("snippet", "ordering_exercise"):
            data.setdefault(f"{block}-{inline}-MIN_NUM_FORMS", "0")
            data.setdefault(f"{block}-{inline}-MAX_NUM_FORMS", "1")
    data["blocks-1-ordering_exercise-0-lines-MIN_NUM_FORMS"] = "0"
    data["blocks-1-ordering_exercise-0-lines-MAX_NUM_FORMS"] = "1000"
    data["_save"] = "Save"

    response = django_app.post(change_url(lesson), data, user=admin)

    assert response.status_code == 302, re.findall(
        r"errorlist[^>]*>(.*?)</ul>", response.text, re.S
    )
    assert list(lesson.blocks.values_list("key", "kind")) == [
        ("hello", "snippet"),
        ("order-it", "ordering"),
    ]
    snippet = Snippet.objects.get(block__key="hello")
    assert (snippet.code, snippet.expected_output) == ("print('hi')\n", "hi\n")
    exercise = OrderingExercise.objects.get(block__key="order-it")
    assert [(line.key, line.text, line.position) for line in exercise.lines.all()] == [
        ("def", "def f():", 1),
        ("ret", "    return 1", 2),
        ("bad", "    return", None),
    ]


def test_a_snippet_block_without_its_snippet_is_refused(django_app):
    admin = make_admin()
    lesson = make_lesson()
    data = shown_fields(django_app, change_url(lesson), admin)
    data.update(
        {
            "blocks-TOTAL_FORMS": "1",
            "blocks-0-position": "1",
            "blocks-0-kind": "snippet",
            "blocks-0-key": "alone",
            "blocks-0-snippet-TOTAL_FORMS": "0",
            "blocks-0-snippet-INITIAL_FORMS": "0",
            "blocks-0-snippet-MIN_NUM_FORMS": "0",
            "blocks-0-snippet-MAX_NUM_FORMS": "1",
            "blocks-0-ordering_exercise-TOTAL_FORMS": "0",
            "blocks-0-ordering_exercise-INITIAL_FORMS": "0",
            "blocks-0-code_exercise-TOTAL_FORMS": "0",
            "blocks-0-code_exercise-INITIAL_FORMS": "0",
            "blocks-0-ordering_exercise-MIN_NUM_FORMS": "0",
            "blocks-0-ordering_exercise-MAX_NUM_FORMS": "1",
            "_save": "Save",
        }
    )

    page = django_app.post(change_url(lesson), data, user=admin)

    assert page.status_code == 200
    assert "a snippet block needs its snippet: add it below" in page.text
    assert not Block.objects.filter(key="alone").exists()


def exercise_form(django_app, admin):
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    lesson = exercise.block.lesson
    form = django_app.get(change_url(lesson), user=admin).forms["lesson_form"]
    at = next(n for n in range(50) if form[f"blocks-{n}-key"].value == "kv-cache-vram-order")
    prefix = f"blocks-{at}-ordering_exercise-0-lines"
    rows = {form[f"{prefix}-{n}-key"].value: n for n in range(exercise.lines.count())}
    return form, prefix, rows


def errors_on(page, block: int, field: str) -> str:
    """The errors the lesson page shows on one field of one block."""
    row = page.html.select_one(f"#blocks-{block} .form-row.field-{field}")
    return "\n".join(errors.get_text("\n") for errors in row.select(".errorlist"))


def block_errors(page, block: int) -> str:
    """The errors the lesson page shows on one block as a whole."""
    return "\n".join(
        errors.get_text("\n")
        for errors in page.html.select(f"#blocks-{block} > details > .errorlist")
    )


def test_a_line_is_made_a_distractor_with_its_checkbox(django_app, sample_content):
    admin = make_admin()
    form, prefix, rows = exercise_form(django_app, admin)
    distractor = OrderingLine.objects.filter(
        exercise__block__key="kv-cache-vram-order", position=None
    ).first()
    form[f"{prefix}-{rows[distractor.key]}-distractor"] = False

    page = form.submit("_save", user=admin)

    assert "Give the line its place in the solution, or tick Distractor." in page.text
    form = page.forms["lesson_form"]
    form[f"{prefix}-{rows[distractor.key]}-distractor"] = True
    form[f"{prefix}-{rows[distractor.key]}-position"] = "7"
    assert form.submit("_save", user=admin).status_code == 302
    distractor.refresh_from_db()
    assert distractor.is_distractor


def test_a_line_depending_on_a_later_line_is_refused_as_the_files_refuse_it(
    django_app, sample_content
):
    admin = make_admin()
    form, prefix, rows = exercise_form(django_app, admin)
    first, later = OrderingLine.objects.filter(
        exercise__block__key="kv-cache-vram-order", position__isnull=False
    ).order_by("position")[:2]
    form[f"{prefix}-{rows[first.key]}-depends_on"] = [str(later.pk)]

    page = form.submit("_save", user=admin)

    assert (
        html.escape(
            f"line '{first.key}' depends on '{later.key}', which comes after it: "
            "list the lines in an order that works"
        )
        in page.text
    )
    assert not first.depends_on.exists()


def files_message(tmp_path: Path, old: str, new: str) -> str:
    """The message the content files give for the same mistake (without path and line)."""
    content = Path(shutil.copytree(Path(settings.BASE_DIR) / "content", tmp_path / "content"))
    lesson_file = content / "local-models" / f"{SEED}.yaml"
    text = lesson_file.read_text()
    assert old in text
    lesson_file.write_text(text.replace(old, new, 1))
    with pytest.raises(ContentErrors) as errors:
        read_content(content)
    [error] = errors.value.errors
    return error.message


def test_a_misspelt_term_link_is_refused_with_the_files_message(
    django_app, sample_content, tmp_path
):
    block = Block.objects.filter(lesson__slug=SEED, kind="data_flow").exclude(body="").first()
    phrase = block.body.splitlines()[0]
    expected = files_message(tmp_path, phrase, phrase + " [[kv-cahce]]")
    assert expected == "glossary link '[[kv-cahce]]' points at no term (did you mean 'kv-cache'?)"
    admin = make_admin()
    form = django_app.get(change_url(block.lesson), user=admin).forms["lesson_form"]
    at = next(n for n in range(50) if form[f"blocks-{n}-key"].value == block.key)
    form[f"blocks-{at}-body"] = block.body.replace(phrase, phrase + " [[kv-cahce]]", 1)

    page = form.submit("_save", user=admin)

    assert page.status_code == 200
    assert html.escape(expected) in page.text
    block.refresh_from_db()
    assert "[[kv-cahce]]" not in block.body


def test_misspelt_term_links_are_refused_in_every_markdown_field(django_app, sample_content):
    """Markdown wherever the files check it: the lesson's summary, a term's definition."""
    admin = make_admin()
    lesson = Lesson.objects.get(slug=SEED)
    form = django_app.get(change_url(lesson), user=admin).forms["lesson_form"]
    form["summary"] = "See [[Kv Cache]]."
    page = form.submit("_save", user=admin)
    assert "bad glossary link &#x27;[[Kv Cache]]&#x27;: write [[slug]]" in page.text

    term = GlossaryTerm.objects.get(slug="kv-cache")
    url = reverse("admin:course_glossaryterm_change", args=[term.pk])
    form = django_app.get(url, user=admin).forms["glossaryterm_form"]
    form["definition"] = "Like [[vrma]]."
    page = form.submit("_save", user=admin)
    assert (
        "glossary link &#x27;[[vrma]]&#x27; points at no term (did you mean &#x27;vram&#x27;?)"
        in page.text
    )


def test_a_term_made_in_the_admin_points_at_the_terms_it_links(django_app, client):
    vram, cache = make_term("VRAM", slug="vram"), make_term("KV cache", slug="kv-cache")
    admin = make_admin()
    form = django_app.get(reverse("admin:course_glossaryterm_add"), user=admin).forms[
        "glossaryterm_form"
    ]
    form["term"] = "Offloading"
    form["slug"] = "offloading"
    form["definition"] = "Moving the [[kv-cache]] out of [[vram|video memory]]."
    form["see_also"].force_value([str(cache.pk)])

    assert form.submit("_save", user=admin).status_code == 302

    term = GlossaryTerm.objects.get(slug="offloading")
    # As the files give it: the terms the definition links to, first, in its order.
    assert linked_in_order(term.see_also) == [cache, vram]
    page = client.get(term.get_absolute_url()).content.decode()
    points_at = page[page.index('id="points-at"') :]
    assert re.search(r"KV cache.*VRAM", points_at, re.S)


@pytest.mark.parametrize(
    "kind, field, items, message",
    [
        ("data_flow", "steps", "\r\n   \r\n", "'steps' must not be empty"),
        (
            "examples",
            "items",
            '[{"titel": "One", "lines": "x"}]',
            "unknown field 'titel' in an item (did you mean 'title'?)",
        ),
        ("explanations", "items", "[]", "'items' must not be empty"),
        (
            "explanations",
            "items",
            '{"title": "One"}',
            "'items' must be a list, not a set of fields",
        ),
    ],
)
def test_a_blocks_items_follow_the_files_rules(django_app, kind, field, items, message):
    admin = make_admin()
    lesson = make_lesson()
    data = shown_fields(django_app, change_url(lesson), admin)
    data.update(
        {
            "blocks-TOTAL_FORMS": "1",
            "blocks-0-position": "1",
            "blocks-0-kind": kind,
            "blocks-0-key": "listed",
            "blocks-0-shown_kinds": kind,
            f"blocks-0-{field}": items,
            "blocks-0-snippet-TOTAL_FORMS": "0",
            "blocks-0-snippet-INITIAL_FORMS": "0",
            "blocks-0-snippet-MIN_NUM_FORMS": "0",
            "blocks-0-snippet-MAX_NUM_FORMS": "1",
            "blocks-0-ordering_exercise-TOTAL_FORMS": "0",
            "blocks-0-ordering_exercise-INITIAL_FORMS": "0",
            "blocks-0-code_exercise-TOTAL_FORMS": "0",
            "blocks-0-code_exercise-INITIAL_FORMS": "0",
            "blocks-0-ordering_exercise-MIN_NUM_FORMS": "0",
            "blocks-0-ordering_exercise-MAX_NUM_FORMS": "1",
            "_save": "Save",
        }
    )

    page = django_app.post(change_url(lesson), data, user=admin)

    assert page.status_code == 200
    assert message in errors_on(page, 0, field)
    assert not Block.objects.filter(key="listed").exists()


def test_a_snippets_own_page_offers_only_snippet_blocks_without_one(django_app, sample_content):
    admin = make_admin()
    lesson = Lesson.objects.get(slug=SEED)
    bare = Block.objects.create(lesson=lesson, kind="snippet", key="bare", position=99)

    form = django_app.get(reverse("admin:course_snippet_add"), user=admin).forms["snippet_form"]
    assert [value for value, _, _ in form["block"].options if value] == [str(bare.pk)]

    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    page = django_app.get(reverse("admin:course_snippet_change", args=[snippet.pk]), user=admin)
    assert "block" not in page.forms["snippet_form"].fields


def block_form(django_app, admin, lesson: Lesson, key: str):
    """The lesson form and the prefix of the block with that key."""
    form = django_app.get(change_url(lesson), user=admin).forms["lesson_form"]
    at = next(n for n in range(50) if form[f"blocks-{n}-key"].value == key)
    return form, f"blocks-{at}"


def test_each_block_shows_the_fields_its_kind_keeps_and_no_others(django_app, sample_content):
    lesson = Lesson.objects.get(slug=SEED)
    page = django_app.get(change_url(lesson), user=make_admin())
    fields = page.forms["lesson_form"].fields
    blocks = list(lesson.blocks.order_by("position", "pk"))

    def own_fields(n: int) -> set[str]:
        shown = {
            name.removeprefix(f"blocks-{n}-")
            for name in fields
            if name and name.startswith(f"blocks-{n}-")
        }
        return {name for name in shown if "-" not in name} - {
            "id", "lesson", "position", "kind", "key", "title", "body", "shown_kinds", "DELETE"
        }  # fmt: skip

    def help_of(n: int, field: str) -> str:
        return page.html.select_one(f"#blocks-{n} .field-{field} .help").get_text(" ", strip=True)

    for n, block in enumerate(blocks):
        expected = {
            "try_it": set(), "snippet": set(), "ordering": {"hints"}, "code_exercise": {"hints"},
            "data_flow": {"steps"}, "explanations": {"items"}, "examples": {"items"},
        }[block.kind]  # fmt: skip
        assert own_fields(n) == expected, block.kind
    flow = next(n for n, block in enumerate(blocks) if block.kind == "data_flow")
    steps = fields[f"blocks-{flow}-steps"][0]
    assert steps.tag == "textarea"
    assert steps.value.splitlines() == blocks[flow].items
    assert help_of(flow, "steps") == "One step a line, in order."
    examples = next(n for n, block in enumerate(blocks) if block.kind == "examples")
    assert help_of(examples, "items") == (
        'In JSON: a list of items, each with "title" (required), "lines", "body" (Markdown).'
    )
    explanations = next(n for n, block in enumerate(blocks) if block.kind == "explanations")
    assert '"lines"' not in help_of(explanations, "items")
    assert "step" not in help_of(explanations, "items")


def test_a_kinds_boolean_and_choice_are_a_checkbox_and_a_select_saved_as_the_files_keep_them(
    django_app, quiz_kind
):
    lesson = make_lesson()
    options = [{"text": "Yes", "right": True}, {"text": "No", "right": False}]
    block = make_block(
        lesson, "quiz", values={"options": options, "shuffle": True, "layout": "grid"}
    )
    admin = make_admin()
    form, prefix = block_form(django_app, admin, lesson, block.key)
    page = django_app.get(change_url(lesson), user=admin)

    shuffle, layout = form[f"{prefix}-shuffle"], form[f"{prefix}-layout"]
    assert shuffle.checked
    assert [(value, selected) for value, selected, _ in layout.options] == [
        ("list", False),
        ("grid", True),
    ]
    assert f"{prefix}-values" not in form.fields and f"{prefix}-items" not in form.fields
    row = page.html.select_one(f"#{prefix} .field-shuffle")
    assert row.select_one("label").get_text(strip=True) == "Shuffle the options"
    assert "Each learner sees them in an order of their own." in row.get_text()
    assert (
        "How the options are laid out."
        in page.html.select_one(f"#{prefix} .field-layout").get_text()
    )

    # Saved unchanged, nothing changes; changed, the Block keeps what the files would.
    assert form.submit("_save", user=admin).status_code == 302
    block.refresh_from_db()
    assert block.values == {"options": options, "shuffle": True, "layout": "grid"}
    form, prefix = block_form(django_app, admin, lesson, block.key)
    form[f"{prefix}-shuffle"] = False
    form[f"{prefix}-layout"] = "list"
    assert form.submit("_save", user=admin).status_code == 302
    block.refresh_from_db()
    assert block.values == {"options": options, "shuffle": False, "layout": "list"}


def test_a_new_blocks_own_fields_appear_when_it_is_saved_with_its_kind(django_app):
    admin = make_admin()
    lesson = make_lesson()
    # The form "Add another Block" copies says where they will be.
    note = django_app.get(change_url(lesson), user=admin).html.select_one(
        "#blocks-empty .kind-fields-note"
    )
    assert "appear here when you save the block with its kind" in note.get_text()
    data = shown_fields(django_app, change_url(lesson), admin)
    data.update(
        {
            "blocks-TOTAL_FORMS": "1",
            "blocks-0-position": "1",
            "blocks-0-kind": "data_flow",
            "blocks-0-key": "flow",
            "blocks-0-snippet-TOTAL_FORMS": "0",
            "blocks-0-snippet-INITIAL_FORMS": "0",
            "blocks-0-ordering_exercise-TOTAL_FORMS": "0",
            "blocks-0-ordering_exercise-INITIAL_FORMS": "0",
            "blocks-0-code_exercise-TOTAL_FORMS": "0",
            "blocks-0-code_exercise-INITIAL_FORMS": "0",
            "_save": "Save",
        }
    )

    page = django_app.post(change_url(lesson), data, user=admin)

    assert page.status_code == 200
    assert "'steps' must not be empty" in errors_on(page, 0, "steps")
    assert not Block.objects.filter(key="flow").exists()
    form = page.forms["lesson_form"]
    form["blocks-0-steps"] = "Read the file\r\n\r\n  Count the words  \r\n"
    assert form.submit("_save", user=admin).status_code == 302
    assert Block.objects.get(key="flow").items == ["Read the file", "  Count the words  "]


def test_the_lesson_page_carries_each_kinds_own_fields_blank_for_a_kind_chosen_on_it(
    django_app, quiz_kind
):
    """What static/js/admin-kinds.js copies under a block whose kind is chosen: each kind
    that keeps fields on the Block row, its fields with their defaults, outside the form."""
    admin = make_admin()
    for url in (change_url(make_lesson()), reverse("admin:course_lesson_add")):
        page = django_app.get(url, user=admin)
        templates = {
            template["data-kind"]: template
            for template in page.html.select("template.kind-fields-template")
        }

        assert set(templates) == {
            "data_flow", "examples", "explanations", "quiz", "choice", "checkboxes", "number", "blanks", "code_blanks",
            "code_exercise", "ordering",  # their hints
        }, url
        assert not page.html.select("form template")
        steps = templates["data_flow"].select_one("textarea")
        assert (steps["name"], steps.get_text()) == ("blocks-__block__-steps", "")
        quiz = templates["quiz"]
        assert {field["name"] for field in quiz.select("[name]")} == {
            "blocks-__block__-options",
            "blocks-__block__-shuffle",
            "blocks-__block__-layout",
        }
        assert quiz.select_one("[name$='-shuffle']").has_attr("checked")  # its default
        assert quiz.select_one("[name$='-layout'] option[selected]")["value"] == "list"
        assert all(t["data-prefix"] == "blocks-__block__" for t in templates.values())


def test_a_blocks_kind_is_not_changed_while_a_field_the_new_kind_lacks_holds_something(
    django_app, sample_content
):
    block = Block.objects.filter(lesson__slug=SEED, kind="data_flow").get()
    steps = list(block.items)
    admin = make_admin()
    form, prefix = block_form(django_app, admin, block.lesson, block.key)
    form[f"{prefix}-kind"] = "prose"

    page = form.submit("_save", user=admin)

    assert page.status_code == 200
    assert (
        "a prose block has no 'steps': empty it to make it a prose block, "
        "or keep it a data_flow block"
    ) in errors_on(page, int(prefix.removeprefix("blocks-")), "steps")
    block.refresh_from_db()
    assert (block.kind, block.items) == ("data_flow", steps)

    form = page.forms["lesson_form"]
    form[f"{prefix}-steps"] = ""
    assert form.submit("_save", user=admin).status_code == 302
    block.refresh_from_db()
    assert (block.kind, block.items, block.values) == ("prose", [], {})


def test_a_field_the_new_kind_has_too_is_kept_when_the_kind_changes(django_app, sample_content):
    block = Block.objects.filter(lesson__slug=SEED, kind="explanations").get()
    items = list(block.items)
    admin = make_admin()
    form, prefix = block_form(django_app, admin, block.lesson, block.key)
    form[f"{prefix}-kind"] = "examples"

    assert form.submit("_save", user=admin).status_code == 302

    block.refresh_from_db()
    assert (block.kind, block.items) == ("examples", items)


def test_a_step_the_steps_box_cannot_show_is_kept_when_the_block_is_saved(django_app):
    """A step holding a line break (the files allow it) shows as two lines; saved with its
    steps unchanged, the block keeps it whole."""
    lesson = make_lesson()
    block = make_block(lesson, "data_flow", items=["Read\nthe file", "Count"])
    admin = make_admin()
    form, prefix = block_form(django_app, admin, lesson, block.key)
    form[f"{prefix}-title"] = "Counting"

    assert form.submit("_save", user=admin).status_code == 302

    block.refresh_from_db()
    assert (block.title, block.items) == ("Counting", ["Read\nthe file", "Count"])


def test_each_block_is_folded_and_an_error_opens_its_block_and_links_to_its_field(
    django_app, sample_content
):
    lesson = Lesson.objects.get(slug=SEED)
    admin = make_admin()
    page = django_app.get(change_url(lesson), user=admin)
    folds = page.html.select("#blocks-group .djn-item > details.block-fold")
    assert len(folds) == lesson.blocks.count()
    assert not any(fold.has_attr("open") for fold in folds)
    form = page.forms["lesson_form"]
    at = next(n for n in range(50) if form[f"blocks-{n}-key"].value == "kv-cache-vram")
    form[f"blocks-{at}-snippet-0-code"] = ""

    page = form.submit("_save", user=admin)

    assert page.status_code == 200
    opened = [
        fold.find_parent(class_="djn-inline-form")["id"]
        for fold in page.html.select("#blocks-group .djn-item > details.block-fold[open]")
    ]
    assert opened == [f"blocks-{at}"]
    assert "1 error" in page.html.select_one(f"#blocks-{at} summary").get_text()
    [link] = page.html.select(".error-links a")
    assert link["href"] == f"#id_blocks-{at}-snippet-0-code"
    assert page.html.select_one(link["href"]).name == "textarea"
    assert link.get_text() == "Block 3 (kv-cache-vram) › Snippet › Code"
    assert "This field is required." in link.parent.get_text()
    assert Snippet.objects.get(block__key="kv-cache-vram").code


def test_a_blocks_own_error_links_to_its_block(django_app, sample_content):
    lesson = Lesson.objects.get(slug=SEED)
    admin = make_admin()
    form = django_app.get(change_url(lesson), user=admin).forms["lesson_form"]
    at = next(n for n in range(50) if form[f"blocks-{n}-key"].value == "kv-cache-vram")
    form[f"blocks-{at}-snippet-0-DELETE"] = True

    page = form.submit("_save", user=admin)

    links = page.html.select(".error-links a")
    assert [link["href"] for link in links] == [f"#id_blocks-{at}-kind"]
    assert "a snippet block needs its snippet" in links[0].parent.get_text()
    assert page.html.select_one(f"#blocks-{at} > details")["open"] is not None


def test_the_kind_inlines_rendered_once_a_page_give_the_page_rendered_in_full(
    django_app, sample_content, monkeypatch
):
    """Each block carries every kind's inline; those without rows are rendered once and
    copied: the page is the one rendering each would give (a form's token aside)."""
    from course.templatetags import lesson_admin

    lesson = Lesson.objects.get(slug=SEED)
    admin = make_admin()
    token = re.compile(r'(?<=name="csrfmiddlewaretoken" value=)"[^"]*"|(?<=nonce=)"[^"]*"')
    copied = token.sub("", django_app.get(change_url(lesson), user=admin).text)
    form = django_app.get(change_url(lesson), user=admin).forms["lesson_form"]
    form["blocks-1-snippet-0-code"] = ""  # a bound page with an error, its inlines bound too
    copied_bound = token.sub("", form.submit("_save", user=admin).text)
    monkeypatch.setattr(lesson_admin, "BLANK_INLINES", "no-such-context-variable")

    assert token.sub("", django_app.get(change_url(lesson), user=admin).text) == copied
    assert token.sub("", form.submit("_save", user=admin).text) == copied_bound


def test_a_fill_in_the_code_question_graded_by_tests_is_edited_in_the_admin(django_app):
    """Its tests are a field of the block: saved unchanged they are kept; given with an
    expected output too, the kind's own check refuses it on the page."""
    from tests.tutor.question_world import make_question

    tests = [{"key": "eight", "name": "8 bits take 8 GB", "shown": "hidden", "stdin": "", "args": [],
              "stdout": "", "check": "assert weights_gb(8, 8) == 8"}]
    block = make_question(
        "code_blanks", key="by-tests", expected_output="", tests=tests,
        code="def weights_gb(params_billion, bits):\n    return params_billion * {{per-weight}}\n",
        blanks=[{"key": "per-weight", "solution": "bits / 8", "answers": []}],
    )
    before = block.kind_spec.values_of(block)
    admin = make_admin()
    form, prefix = block_form(django_app, admin, block.lesson, block.key)
    assert "weights_gb(8, 8)" in form[f"{prefix}-tests"].value
    assert form.submit("_save", user=admin).status_code == 302
    block.refresh_from_db()
    assert block.kind_spec.values_of(block) == before

    form, prefix = block_form(django_app, admin, block.lesson, block.key)
    form[f"{prefix}-expected_output"] = "8\n"
    page = form.submit("_save", user=admin)
    assert page.status_code == 200
    assert "give 'expected_output' or 'tests', not both" in page.html.get_text()
    block.refresh_from_db()
    assert block.kind_spec.values_of(block) == before
