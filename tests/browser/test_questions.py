"""Questions in the system Chromium, at desktop and phone width: each kind answered with
the mouse and keyboard (htmx swaps the question alone; the feedback is announced and
focused), the sample course's questions, and one answered without JavaScript."""

import os

import pytest
from playwright.sync_api import expect

from tests.factories import make_lesson, make_user
from tests.tutor.question_world import make_question
from tutor.practice.questions.models import QuestionTries

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("PARSNIP_SCREENSHOTS")  # a folder: save the pages' screenshots there
WIDTHS = [1280, 390]


@pytest.fixture
def learner(login_in_browser):
    user = make_user("ada")
    login_in_browser(user)
    return user


def open_question(page, block, width: int):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{block.lesson.get_absolute_url()}#question-{block.key}")
    return page.locator(f"#question-{block.key}-practice")


def shot(page, region, name: str) -> None:
    if SHOTS:
        region.locator("xpath=..").screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def fits_the_width(page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


@pytest.mark.parametrize("width", WIDTHS)
def test_a_choice_answered_wrong_then_right(page, learner, width):
    block = make_question("choice", make_lesson(), key="backend")
    region = open_question(page, block, width)
    expect(region.get_by_role("group", name="Choose one answer")).to_be_visible()
    region.get_by_label("vLLM").check()
    region.get_by_role("button", name="Answer").click()
    feedback = page.locator("#question-backend-practice .question-feedback")
    expect(feedback).to_contain_text("Not right.")
    expect(feedback).to_be_focused()
    expect(page.locator("#question-backend-practice")).to_contain_text("vLLM is fast on NVIDIA, not on a CPU.")
    expect(page.locator("#question-backend-practice")).not_to_contain_text("Built for CPUs.")
    shot(page, page.locator("#question-backend-practice"), f"question-choice-wrong-{width}")
    page.locator("#question-backend-practice").get_by_label("llama.cpp").check()
    page.locator("#question-backend-practice").get_by_role("button", name="Answer").click()
    expect(feedback).to_contain_text("Right, on try 2.")
    expect(page.locator("#question-backend-practice .option-mark.is-right")).to_have_count(1)
    expect(page.locator("#question-backend-practice")).to_contain_text("Built for CPUs.")
    expect(page.locator("#question-backend-practice").get_by_label("vLLM")).to_be_disabled()
    expect(page.locator("#lesson-progress")).to_contain_text("Complete")
    shot(page, page.locator("#question-backend-practice"), f"question-choice-right-{width}")
    fits_the_width(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_checkboxes_with_the_keyboard(page, learner, width):
    block = make_question("checkboxes", make_lesson(), key="cpu", tries=1)
    region = open_question(page, block, width)
    region.get_by_label("llama.cpp").focus()
    page.keyboard.press("Space")
    region.get_by_label("vLLM").focus()
    page.keyboard.press("Space")
    region.get_by_role("button", name="Answer").focus()
    page.keyboard.press("Enter")
    feedback = page.locator("#question-cpu-practice .question-feedback")
    expect(feedback).to_contain_text("Not right.")
    expect(page.locator("#question-cpu-practice .option-mark.is-right")).to_have_count(2)
    expect(page.locator("#question-cpu-practice")).to_contain_text("It needs a GPU.")
    shot(page, page.locator("#question-cpu-practice"), f"question-checkboxes-{width}")
    fits_the_width(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_number_with_units_and_a_common_mistake(page, learner, width):
    block = make_question("number", make_lesson(), key="kv")
    region = open_question(page, block, width)
    region.get_by_label("Your answer").fill("25 GB")
    region.get_by_label("Your answer").press("Enter")
    feedback = page.locator("#question-kv-practice .question-feedback")
    expect(feedback).to_contain_text("That is at 16 bits.")
    expect(feedback).to_contain_text("2 tries left")
    page.expected_errors.append("status of 400")  # the refused number, on purpose
    page.locator("#question-kv-practice").get_by_label("Your answer").fill("12,5")
    page.locator("#question-kv-practice").get_by_label("Your answer").press("Enter")
    expect(page.locator("#question-kv-message")).to_contain_text("Write decimals with a point")
    page.locator("#question-kv-practice").get_by_label("Your answer").fill("12.5")
    page.locator("#question-kv-practice").get_by_role("button", name="Answer").click()
    expect(feedback).to_contain_text("Right, on try 2.")
    shot(page, page.locator("#question-kv-practice"), f"question-number-{width}")
    fits_the_width(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_blanks_marked_one_by_one(page, learner, width):
    block = make_question("blanks", make_lesson(), key="words")
    region = open_question(page, block, width)
    region.get_by_label("Blank 1").fill("eight")
    region.get_by_label("Blank 2").fill("bf16")
    region.get_by_role("button", name="Answer").click()
    region = page.locator("#question-words-practice")
    expect(region.locator(".question-feedback")).to_contain_text("Partly right.")
    expect(region.locator(".blank.is-right")).to_have_count(1)
    expect(region.locator(".blank.is-wrong")).to_have_count(1)
    expect(region.get_by_label("Blank 1")).to_have_value("eight")
    shot(page, region, f"question-blanks-{width}")
    fits_the_width(page)


def test_the_sample_courses_questions_at_phone_width(page, learner, sample_content):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/learn/local-models/choosing-hardware-for-local-models/#question-m2-max-ceiling")
    region = page.locator("#question-m2-max-ceiling-practice")
    region.get_by_label("Your answer").fill("0.02")
    region.get_by_role("button", name="Answer").click()
    expect(page.locator("#question-m2-max-ceiling-practice")).to_contain_text("upside down")
    fits_the_width(page)
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "sample-questions-390.png"), full_page=True)


def test_a_choice_without_javascript(browser, live_server, client):
    user = make_user("bea")
    block = make_question("choice", make_lesson(), key="plain")
    client.force_login(user)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{block.lesson.get_absolute_url()}#question-plain")
    page.locator("#question-plain-practice").get_by_label("llama.cpp").check()
    page.locator("#question-plain-practice").get_by_role("button", name="Answer").click()
    expect(page.locator("#question-plain-practice")).to_contain_text("Right, on the first try.")
    assert QuestionTries.objects.get(user=user, block=block).right_at is not None
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_number_computed_for_the_learners_own_variant(page, learner, width, inline_worker, settings):
    from tests.tutor.test_question_variants import SIZED
    from tutor.practice.questions import variants

    settings.RUN_WAIT_SECONDS = 20  # the worker computes the variant while the answer waits
    block = make_question("number", make_lesson(), key="sized", **SIZED)
    mine = variants.learner_variant(block, block.kind_spec.values_of(block), user_id=learner.pk)
    region = open_question(page, block, width)
    expect(region.locator(".question-stem")).to_have_text(
        f"How many GB do the weights of a {mine['params']}B model take at {mine['bits']} bits?"
    )
    region.get_by_label("Your answer").fill(f"{mine['params'] * mine['bits'] / 8:g}")
    region.get_by_role("button", name="Answer").click()
    expect(page.locator("#question-sized-practice .question-feedback")).to_contain_text("Right, on the first try.")
    shot(page, page.locator("#question-sized-practice"), f"question-variant-{width}")
    fits_the_width(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_blanks_and_a_choice_computed_for_the_learners_own_variant(page, learner, width, inline_worker, settings):
    from tests.tutor.test_question_variants_kinds import BLANKS, CHOICE, right_choice
    from tutor.practice.questions import variants

    settings.RUN_WAIT_SECONDS = 20  # the worker computes the variant while the answer waits
    lesson = make_lesson()
    blanks = make_question("blanks", lesson, key="sized", **BLANKS)
    choice = make_question("choice", lesson, key="fits", **CHOICE)
    bits = variants.learner_variant(blanks, blanks.kind_spec.values_of(blanks), user_id=learner.pk)["bits"]
    memory = variants.learner_variant(choice, choice.kind_spec.values_of(choice), user_id=learner.pk)["memory"]
    region = open_question(page, blanks, width)
    expect(region).to_contain_text(f"A 2B model at {bits} bits takes")
    region.get_by_label("Blank 1").fill(f"{bits / 4:g}")
    region.get_by_role("button", name="Answer").click()
    expect(page.locator("#question-sized-practice .question-feedback")).to_contain_text("Right, on the first try.")
    shot(page, page.locator("#question-sized-practice"), f"question-blanks-variant-{width}")
    region = open_question(page, choice, width)
    expect(region).to_contain_text(f"Which model fits in {memory} GB at 8 bits?")
    texts = {"small": "a 3B model", "large": "a 13B model", "neither": "neither"}
    region.get_by_label(texts[right_choice(memory)], exact=True).check()
    region.get_by_role("button", name="Answer").click()
    expect(page.locator("#question-fits-practice .question-feedback")).to_contain_text("Right, on the first try.")
    shot(page, page.locator("#question-fits-practice"), f"question-choice-variant-{width}")
    fits_the_width(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_blanks_in_code_filled_and_graded_by_what_the_program_prints(page, learner, width, inline_worker, settings):
    settings.RUN_WAIT_SECONDS = 20  # the worker runs the filled program while the answer waits
    block = make_question("code_blanks", make_lesson(), key="fill")
    region = open_question(page, block, width)
    expect(region.get_by_role("group", name="Fill in the blanks in the program")).to_be_visible()
    expect(region.locator(".code-blanks-expected")).to_contain_text("13.0 GB")
    region.get_by_label("Blank 1").fill("16")
    region.get_by_label("Blank 2").fill("'13b'")
    region.get_by_role("button", name="Answer").click()
    feedback = page.locator("#question-fill-practice .question-feedback")
    expect(feedback).to_contain_text("Not right.")
    expect(feedback).to_be_focused()
    expect(feedback.locator(".code-blanks-output")).to_contain_text("26.0 GB")
    shot(page, page.locator("#question-fill-practice"), f"question-code-blanks-wrong-{width}")
    region = page.locator("#question-fill-practice")
    expect(region.get_by_label("Blank 1")).to_have_value("16")
    region.get_by_label("Blank 1").fill("2 * 4")
    region.get_by_role("button", name="Answer").click()
    expect(feedback).to_contain_text("Right, on try 2.")
    fits_the_width(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_blanks_in_code_graded_by_tests_show_the_visible_tests_and_what_failed(page, learner, width, inline_worker,
                                                                                settings):
    settings.RUN_WAIT_SECONDS = 20  # the worker grades the filled program while the answer waits
    tests = [
        {"key": "eight", "name": "8 billion at 8 bits take 8 GB", "shown": "visible", "stdin": "", "args": [],
         "stdout": "", "check": "assert weights_gb(8, 8) == 8"},
        {"key": "four", "name": "4 bits take half", "shown": "hidden", "stdin": "", "args": [], "stdout": "",
         "check": "assert weights_gb(8, 4) == 4"},
    ]
    block = make_question(
        "code_blanks", make_lesson(), key="fill", expected_output="", tests=tests,
        code="def weights_gb(params_billion, bits):\n    return params_billion * {{per-weight}}\n",
        blanks=[{"key": "per-weight", "solution": "bits / 8", "answers": []}],
    )
    region = open_question(page, block, width)
    expect(region.locator(".code-blanks-tests")).to_contain_text("8 billion at 8 bits take 8 GB")
    expect(region.locator(".code-blanks-tests")).to_contain_text("and 1 hidden test")
    expect(region.locator(".code-blanks-tests")).not_to_contain_text("4 bits take half")
    region.get_by_label("Blank 1").fill("bits")
    region.get_by_role("button", name="Answer").click()
    feedback = page.locator("#question-fill-practice .question-feedback")
    expect(feedback).to_contain_text("Not right.")
    expect(feedback).to_contain_text("What the tests found:")
    expect(feedback.locator(".code-blanks-output")).to_contain_text("8 billion at 8 bits take 8 GB")
    shot(page, page.locator("#question-fill-practice"), f"question-code-blanks-tests-{width}")
    fits_the_width(page)
