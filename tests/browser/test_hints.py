"""Hint ladders in the system Chromium, at desktop and phone width: a learner climbs the
sample course's ladder to its last rung with the keyboard (htmx swaps the ladder alone, each
new rung is announced and focused) and reads the solution a line at a time; a question's
answer rung finishes it; and a ladder climbed without JavaScript."""

import os

import pytest
from playwright.sync_api import expect

from course.models import Block
from tests.factories import make_lesson, make_user
from tests.tutor.hint_world import question_with_hints
from tutor.practice.hints.models import HintUse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("PARSNIP_SCREENSHOTS")  # a folder: save the pages' screenshots there
WIDTHS = [1280, 390]
SOLUTION = [
    "def generate(model, prompt, max_tokens):",
    "    words = list(prompt)",
    "    for _ in range(max_tokens):",
    '        if words[-1] == "<end>" or words[-1] not in model:',
    "            break",
    "        scores = model[words[-1]]",
    "        words.append(max(scores, key=scores.get))",
    "    return words",
]


def shot(region, name: str) -> None:
    if SHOTS:
        region.screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def fits_the_width(page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


@pytest.mark.parametrize("width", WIDTHS)
def test_a_learner_climbs_the_ladder_to_the_whole_solution(page, login_in_browser, sample_content, width):
    user = make_user("ada")
    login_in_browser(user)
    block = Block.objects.select_related("lesson__course").get(key="write-generate")
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{block.lesson.get_absolute_url()}#exercise-write-generate-hints")
    ladder = page.locator("#exercise-write-generate-hints")
    expect(ladder.get_by_role("button", name="Show a hint (1 of 4)")).to_be_visible()
    expect(ladder).not_to_contain_text("list(prompt)")
    for n in range(1, 5):
        ladder.get_by_role("button", name=f"Show a hint ({n} of 4)").focus()
        page.keyboard.press("Enter")
        newest = ladder.locator("[data-new-rung]")
        expect(newest).to_be_focused()
        expect(newest).to_have_attribute("role", "status")
        expect(ladder.locator(".hint-rung.is-hint")).to_have_count(n)
    expect(ladder).to_contain_text("max(scores, key=scores.get) gives the word with the highest score")
    expect(ladder).not_to_contain_text("return words")
    shot(ladder, f"hints-ladder-hints-{width}")
    for n in range(1, len(SOLUTION) + 1):
        ladder.get_by_role("button", name=f"Show a line of the solution ({n} of {len(SOLUTION)})").click()
        expect(ladder.locator(".hint-code")).to_have_count(1)  # one solution, growing
        expect(ladder.locator(".hint-code")).to_have_text("\n".join(SOLUTION[:n]))
        expect(ladder.locator("[data-new-rung]")).to_contain_text(f"The solution so far ({n} of {len(SOLUTION)} lines)")
        if n == 3:
            shot(ladder, f"hints-ladder-pieces-{width}")
    expect(ladder).to_contain_text("That is the whole solution.")
    expect(ladder.get_by_role("button")).to_have_count(0)
    assert HintUse.objects.filter(user=user, block=block).count() == 4 + len(SOLUTION)
    fits_the_width(page)
    shot(ladder, f"hints-ladder-done-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_questions_answer_rung_marks_the_right_option(page, login_in_browser, width):
    login_in_browser(make_user("bo"))
    block = question_with_hints(lesson=make_lesson(), hints=["Which is written in C++?"])
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{block.lesson.get_absolute_url()}#question-{block.key}")
    ladder = page.locator(f"#question-{block.key}-hints")
    ladder.get_by_role("button", name="Show a hint (1 of 1)").click()
    expect(ladder).to_contain_text("Which is written in C++?")
    ladder.get_by_role("button", name="Show the answer (this finishes the question)").click()
    expect(ladder).to_contain_text("The right answer:")
    expect(ladder).to_contain_text("llama.cpp")
    question = page.locator(f"#question-{block.key}-practice")
    expect(question.locator(".option-mark.is-right")).to_have_count(1)
    expect(question.get_by_role("button", name="Answer")).to_have_count(0)
    fits_the_width(page)
    shot(page.locator(f"#question-{block.key}"), f"hints-question-{width}")


def test_a_ladder_without_javascript(browser, live_server, client):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    user = make_user("lin")
    client.force_login(user)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    block = question_with_hints("number", lesson=make_lesson(), hints=["Fewer bits, less memory.", "Halve it."])
    page.goto(block.lesson.get_absolute_url())
    ladder = page.locator(f"#question-{block.key}-hints")
    ladder.get_by_role("button", name="Show a hint (1 of 2)").click()
    assert page.url.endswith(f"#question-{block.key}-hints")
    expect(ladder).to_contain_text("Fewer bits, less memory.")
    expect(ladder).not_to_contain_text("Halve it.")
    ladder.get_by_role("button", name="Show a hint (2 of 2)").click()
    ladder.get_by_role("button", name="Show the answer (this finishes the question)").click()
    expect(ladder).to_contain_text("12.5 GB")
    expect(page.locator(f"#question-{block.key}-practice .number-box")).to_be_disabled()
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_teacher_sees_the_hints_used(page, login_in_browser, width):
    from tests.factories import make_cohort, make_teacher
    from tests.tutor.assignment_world import assign
    from tests.tutor.hint_world import code_with_hints
    from tutor.practice.hints.actions import take_rung

    ada, bob, teacher = make_user("ada"), make_user("bob"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[ada, bob], name="Monday group")
    block = code_with_hints(make_lesson(title="Halving"))
    assignment = assign(cohort, block.lesson, hint_cost=10)
    for rung in (1, 2, 3):
        take_rung(user=ada, block=block, rung=rung)
    login_in_browser(teacher)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/classes/{cohort.pk}/lessons/{block.lesson.pk}/")
    table = page.get_by_role("table").filter(has_text="Students who used hints")
    expect(table.get_by_role("row", name="halves")).to_contain_text("1 of 2 (50%)")
    expect(table.get_by_role("row", name="halves")).to_contain_text("3.0 of 4 steps (2 hints, then the solution)")
    fits_the_width(page)
    shot(page.locator("#hints-analysis-heading").locator("xpath=.."), f"hints-teacher-analysis-{width}")
    page.goto(f"/classes/{cohort.pk}/assignments/{assignment.pk}/")
    expect(page.get_by_text("costs 10% of the item’s score")).to_be_visible()
    row = page.get_by_role("row", name="ada")
    expect(row).to_contain_text("3")
    fits_the_width(page)
    shot(page.locator("#assignment-students"), f"hints-teacher-assignment-{width}")


def test_a_hint_error_is_readable_in_dark_mode(page, login_in_browser, sample_content):
    block = Block.objects.get(key="write-generate")
    page.emulate_media(color_scheme="dark")
    login_in_browser(make_user("ada"))
    page.goto(f"{block.lesson.get_absolute_url()}#exercise-write-generate-hints")
    message = page.locator("#exercise-write-generate-hints-message")
    # Light red on the dark page (the light theme's dark red could hardly be read there).
    assert message.evaluate("e => getComputedStyle(e).color") == "rgb(255, 155, 143)"
