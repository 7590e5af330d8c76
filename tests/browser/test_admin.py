import re

import pytest
from playwright.sync_api import expect

from course.kinds.ordering import OrderingExercise
from course.kinds.snippet import Snippet
from course.models import Block, Lesson
from tests.factories import make_admin, make_lesson, make_prediction, make_user
from tutor.practice.snippet.models import Prediction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rows(snippet: Snippet) -> tuple:
    lesson = snippet.block.lesson
    return (
        Snippet.objects.filter(pk=snippet.pk).values().get(),
        Lesson.objects.filter(pk=lesson.pk).values().get(),
        list(Block.objects.filter(lesson=lesson).order_by("pk").values()),
        list(Prediction.objects.order_by("pk").values()),
    )


def test_saving_the_seed_snippet_unchanged_in_the_admin_changes_nothing(
    page, login_in_browser, sample_content
):
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_prediction(make_user(), snippet)
    before = rows(snippet)
    assert snippet.expected_output.startswith("\n")  # the leading empty line a strip would lose

    login_in_browser(make_admin())
    page.goto(f"/admin/course/snippet/{snippet.pk}/change/")
    expect(page.locator("#id_code")).to_have_value(snippet.code)
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page).to_have_url(re.compile(r"/admin/course/snippet/$"))
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert rows(snippet) == before
    prediction = Prediction.objects.get()
    assert prediction.is_first and prediction.verdict == Prediction.Verdict.RIGHT
    assert prediction.snippet_version == Snippet.objects.get(pk=snippet.pk).version


def test_the_lesson_admin_page_edits_blocks_in_place_with_monospace_code(
    page, login_in_browser, sample_content
):
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.filter(block__lesson=lesson).order_by("block__position").first()
    before = rows(snippet)
    login_in_browser(make_admin())

    page.goto(f"/admin/course/lesson/{lesson.pk}/change/")
    page.get_by_role("button", name="Open every block").click()

    code = page.locator("textarea[name$='-snippet-0-code']").first
    expect(code).to_be_visible()
    expect(code).to_have_value(snippet.code)
    font = code.evaluate("element => getComputedStyle(element).fontFamily")
    assert "monospace" in font
    line = page.locator("textarea.code-field").first
    assert "monospace" in line.evaluate("element => getComputedStyle(element).fontFamily")
    exercise = page.locator(
        ".djn-inline-form:has(select[name$='-kind'] option[value='ordering']:checked)"
    )
    expect(exercise.get_by_text("Distractor (not part of the solution)").first).to_be_visible()
    expect(exercise.locator("input[name$='-distractor']:checked").first).to_be_visible()
    # A prose block shows no empty snippet or exercise to fill in; a snippet block its snippet.
    prose = page.locator(
        ".djn-inline-form:has(select[name$='-kind'] option[value='try_it']:checked)"
    ).first
    expect(prose.locator(".kind-snippet")).to_be_hidden()
    expect(prose.locator(".kind-code_exercise")).to_be_hidden()
    # Changing a block's kind shows that kind's inline, and only that one.
    kind = page.locator("#" + prose.locator("select[name$='-kind']").get_attribute("id"))
    prose = page.locator(".djn-inline-form").filter(has=kind)
    kind.select_option("code_exercise")
    expect(prose.locator(".kind-code_exercise")).to_be_visible()
    expect(prose.locator(".kind-snippet")).to_be_hidden()
    kind.select_option("try_it")
    expect(prose.locator(".kind-code_exercise")).to_be_hidden()
    # The lines table fits the page.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280

    page.get_by_role("button", name="Save", exact=True).click()
    # Saved as it was shown: the admin says so (issue 39: it said "changed successfully").
    expect(page.locator(".messagelist")).to_contain_text("Nothing changed: the lesson")
    assert rows(snippet) == before


def test_a_line_added_on_the_lesson_admin_page_is_saved(page, login_in_browser, sample_content):
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    login_in_browser(make_admin())
    page.goto(f"/admin/course/lesson/{exercise.block.lesson_id}/change/")

    lines = page.locator("[id$='-ordering_exercise-0-lines-group']")
    block = lines.get_attribute("id").split("-ordering_exercise")[0]
    page.locator(f".lesson-block-links a[href='#{block}']").click()
    count = exercise.lines.count()
    lines.get_by_role("link", name="Add another Ordering Line").click()
    row = lines.locator(f"tr:has(input[name$='-lines-{count}-key'])")
    row.locator("input[name$='-key']").fill("extra")
    row.locator("textarea[name$='-text']").fill("    pass")
    row.locator("input[name$='-distractor']").check()
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    line = exercise.lines.get(key="extra")
    assert (line.text, line.is_distractor) == ("    pass", True)


def a_new_block(page, login_in_browser):
    """A new lesson's admin page, with a block added on it (not saved yet)."""
    lesson = make_lesson()
    login_in_browser(make_admin())
    page.goto(f"/admin/course/lesson/{lesson.pk}/change/")
    page.get_by_role("link", name="Add another Block").click()
    return page.locator("#blocks-0")


def test_a_kind_chosen_for_a_new_block_shows_its_own_fields_at_once(page, login_in_browser):
    block = a_new_block(page, login_in_browser)
    note = block.locator(".kind-fields-note")
    expect(note).to_be_visible()

    # Chosen, a kind's own fields appear; chosen away untouched, they go again.
    kind = block.locator("select[name='blocks-0-kind']")
    kind.select_option("explanations")
    expect(block.locator("textarea[name='blocks-0-items']")).to_be_visible()
    expect(note).to_be_hidden()
    kind.select_option("data_flow")
    expect(block.locator("[name='blocks-0-items']")).to_have_count(0)
    steps = block.locator("textarea[name='blocks-0-steps']")
    expect(steps).to_be_visible()
    expect(block.get_by_text("One step a line, in order.")).to_be_visible()

    block.locator("input[name='blocks-0-position']").fill("1")
    block.locator("input[name='blocks-0-key']").fill("flow")
    steps.fill("Read the file\nCount the words")
    page.get_by_role("button", name="Save and continue editing").click()

    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert Block.objects.get(key="flow").items == ["Read the file", "Count the words"]
    expect(page.locator("textarea[name='blocks-0-steps']")).to_have_value(
        "Read the file\nCount the words"
    )


def test_fields_typed_for_one_kind_are_kept_when_another_is_chosen(page, login_in_browser):
    """What was typed is never dropped by the page: the server says what to do."""
    block = a_new_block(page, login_in_browser)
    block.locator("select[name='blocks-0-kind']").select_option("data_flow")
    block.locator("textarea[name='blocks-0-steps']").fill("Read the file")
    block.locator("select[name='blocks-0-kind']").select_option("try_it")
    expect(block.locator("textarea[name='blocks-0-steps']")).to_have_value("Read the file")
    block.locator("input[name='blocks-0-position']").fill("1")
    block.locator("input[name='blocks-0-key']").fill("try")
    page.get_by_role("button", name="Save and continue editing").click()

    expect(page.locator("#blocks-0 .field-steps .errorlist")).to_contain_text(
        "a try_it block has no 'steps': empty it to make it a try_it block"
    )
    expect(page.locator("textarea[name='blocks-0-steps']")).to_have_value("Read the file")
    assert not Block.objects.filter(key="try").exists()


def test_the_lesson_admin_page_folds_its_blocks_and_a_link_opens_one(
    page, login_in_browser, sample_content
):
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    login_in_browser(make_admin())
    page.goto(f"/admin/course/lesson/{lesson.pk}/change/")

    code = page.locator("textarea[name$='-snippet-0-code']").filter(has_text=snippet.code[:30])
    expect(code).to_be_hidden()
    # Folded, the page is a list of headings: far shorter than the 17,000 px it was.
    assert page.evaluate("document.documentElement.scrollHeight") < 5000
    block = code.evaluate("field => field.closest('details.block-fold').parentElement.id")
    page.locator(f".lesson-block-links a[href='#{block}']").click()
    expect(code).to_be_visible()

    # An error opens its block, and the list at the top links to its field.
    code.fill("")
    page.get_by_role("button", name="Save and continue editing").click()
    error = page.locator(".error-links a")
    expect(error).to_have_text(re.compile(r"› Snippet › Code$"))
    expect(page.locator(".errornote")).to_be_hidden()  # the list says it, and where
    page.get_by_role("button", name="Fold every block").click()
    expect(code).to_be_hidden()
    error.click()
    field = page.locator(error.get_attribute("href"))
    expect(field).to_be_visible()
    expect(field).to_have_value("")
    assert Snippet.objects.get(pk=snippet.pk).code == snippet.code
