"""Step through the seed lesson's snippets in the system Chromium: by mouse (Next, Previous,
First, Last, the slider), by keyboard (← and →) and without JavaScript; a wrong prediction
opens at the first step whose output differs. Traces are made by the real tracer in the
sandbox, through the same Run rows (the `inline_worker` fixture runs the task in a thread).
Screenshots at desktop and phone widths, light and dark, go to $STEPPING_SHOTS if set."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import make_user
from tutor.practice.stepping.models import Stepping

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
FIRST = "#snippet-backend-latency"
SECOND = "#snippet-kv-cache-vram"
STEP_URL = re.compile(r"/trace/\d+/step/(\d+)/$")


@pytest.fixture
def learner_page(page, login_in_browser, sample_content, inline_worker):
    return login_in_browser(make_user("ada"))


def reveal(page, snippet: str, prediction: str) -> None:
    page.goto(SEED + snippet)
    practice = page.locator(f"{snippet}-practice")
    practice.get_by_label("What will it print?").fill(prediction)
    practice.get_by_role("button", name="Reveal").click()
    expect(page.locator(f"{snippet}-answer .verdict")).to_be_visible()


def step_through(page, snippet: str) -> None:
    page.locator(f"{snippet}-answer").get_by_role("button", name="Step through").click()
    expect(page).to_have_url(STEP_URL)


def shoot(page, name: str, selector: str | None = None) -> None:
    """A screenshot to look at, when $STEPPING_SHOTS names a folder."""
    shots = os.environ.get("STEPPING_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        target = page.locator(selector) if selector else page
        target.screenshot(path=f"{shots}/{name}.png", caret="initial")  # no injected style (CSP)


def expect_step(page, number: int, total: int) -> None:
    expect(page.locator("#step-heading")).to_have_text(f"Step {number} of {total}")
    expect(page).to_have_url(re.compile(rf"/trace/\d+/step/{number}/$"))
    # htmx shows a swapped step at once, and wires its controls when it settles (20 ms
    # later): until then the slider's change has no listener. Nothing to wait for without JS.
    expect(page.locator("#step-region.htmx-added")).to_have_count(0)


def test_by_mouse_a_wrong_prediction_opens_where_the_output_first_differs(learner_page):
    page = learner_page
    # The classic slip: no empty line for the first print().
    reveal(
        page,
        FIRST,
        "Optimising speed and memory\nllama.cpp on NVIDIA: 2.00s\nllama.cpp on CPU: 2.00s\n"
        "vllm on NVIDIA: 1.00s\nvllm on CPU: 3.00s",
    )
    expect(page.locator(f"{FIRST}-answer")).to_contain_text("from where the output first differs")
    shoot(page, "lesson-answer", f"{FIRST}-answer")
    step_through(page, FIRST)
    total = int(page.locator("#step-region").get_attribute("data-total"))
    expect_step(page, 3, total)
    shoot(page, "seed-first-step-3")
    # print() just ran, and printed the empty line the prediction did not have.
    ran = page.locator(".code-line.is-ran")
    expect(ran.locator(".code-line-number")).to_have_text("9")
    expect(ran).to_contain_text("just ran:")
    expect(page.locator(".code-line.is-current .code-line-number")).to_have_text("10")
    expect(page.locator("#step-description")).to_contain_text("It printed an empty line.")

    page.get_by_role("link", name="Next →").click()
    expect_step(page, 4, total)
    expect(page.locator(".step-output pre")).to_contain_text("Optimising speed and memory")
    page.get_by_role("link", name="← Previous").click()
    expect_step(page, 3, total)
    page.locator("#step-slider-input").fill("12")
    expect_step(page, 12, total)
    page.get_by_role("link", name="Last »").click()
    expect_step(page, total, total)
    expect(page.locator(".step-output pre")).to_contain_text("vllm on CPU: 3.00s")
    expect(page.locator("#step-description")).to_contain_text("The program has finished.")
    page.get_by_role("link", name="« First").click()
    expect_step(page, 1, total)
    # Only the step region was swapped: the page's own heading stayed where it was.
    expect(page.locator("h1")).to_have_count(1)
    # How far the learner got is kept (a POST each step region sends when it loads).
    stepping = Stepping.objects.get()
    for _ in range(150):  # until it arrives: up to 15 s on a busy machine
        stepping.refresh_from_db()
        if stepping.furthest_step == total:
            break
        page.wait_for_timeout(100)
    assert stepping.furthest_step == total


def test_by_keyboard_the_second_snippet_from_its_first_step(learner_page):
    page = learner_page
    reveal(
        page,
        SECOND,
        "\nKV cache VRAM usage:\n16-bit, 1000 units: 16.00 GB\n8-bit, 1000 units: 8.00 GB\n"
        "Lower KV cache precision frees VRAM: True\n",
    )
    expect(page.locator(f"{SECOND}-answer .verdict")).to_contain_text("Spot on")
    step_through(page, SECOND)
    total = int(page.locator("#step-region").get_attribute("data-total"))
    expect_step(page, 1, total)
    page.keyboard.press("ArrowRight")
    expect_step(page, 2, total)
    page.keyboard.press("ArrowRight")
    expect_step(page, 3, total)
    expect(page.locator("#step-description")).to_contain_text("It printed an empty line.")
    page.keyboard.press("ArrowLeft")
    expect_step(page, 2, total)
    # Into the function: its frame appears under the global one, with its arguments.
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect_step(page, 5, total)
    expect(page.locator(".frame-current .frame-title")).to_contain_text("kv_cache_vram()")
    expect(page.locator(".frame-current")).to_contain_text("bits")
    expect(page.locator("#step-description")).to_contain_text("`kv_cache_vram` was called.")
    # Going back in history shows the step of that URL again. (Keys pressed faster than
    # steps arrive skip the steps in between: history holds the steps that were shown.)
    page.go_back()
    expect(page).to_have_url(re.compile(r"/step/[34]/$"))
    back = int(STEP_URL.search(page.url).group(1))
    expect(page.locator("#step-heading")).to_have_text(f"Step {back} of {total}")


@pytest.fixture
def plain_page(browser, live_server, client, sample_content, inline_worker):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    client.force_login(make_user("lin"))
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    yield page
    context.close()


def until(page, done) -> None:
    """Reload until `done()` (the worker may still be busy), as a person would."""
    for _ in range(40):
        if done():
            return
        page.wait_for_timeout(500)
        page.reload()
    assert done()


@pytest.mark.parametrize("snippet", [FIRST, SECOND])
def test_without_javascript_both_snippets_step_by_links_and_the_slider_form(plain_page, snippet):
    page = plain_page
    page.goto(SEED + snippet)
    page.locator(f"{snippet}-practice").get_by_label("What will it print?").fill("something else")
    page.locator(f"{snippet}-practice").get_by_role("button", name="Reveal").click()
    until(page, lambda: page.locator(f"{snippet}-answer .verdict").count() > 0)
    page.locator(f"{snippet}-answer").get_by_role("button", name="Step through").click()
    until(page, lambda: STEP_URL.search(page.url) is not None)  # the waiting page refreshes itself
    opened = int(STEP_URL.search(page.url).group(1))
    assert opened == 3  # after the def and the bare print(): "" is not "something else"
    page.get_by_role("link", name="Next →").click()
    expect(page).to_have_url(re.compile(rf"/step/{opened + 1}/$"))
    page.get_by_role("link", name="← Previous").click()
    expect(page).to_have_url(re.compile(rf"/step/{opened}/$"))
    page.locator("#step-slider-input").fill("6")
    page.get_by_role("button", name="Go").click()
    expect(page).to_have_url(re.compile(r"/step/6/$"))
    expect(page.locator("#step-heading")).to_contain_text("Step 6 of")


SHOWN = """def total(values):
    result = 0
    for value in values:
        result += value
    return result


items = [3, 4]
copy = items
names = {"a": items, "b": (1, 2)}
print(total(items))
"""


@pytest.mark.parametrize(
    "width,scheme", [(1280, "light"), (390, "light"), (1280, "dark"), (390, "dark")]
)
def test_screenshots_of_a_step_with_objects(
    browser, live_server, client, inline_worker, width, scheme
):
    from tutor.actions.runs import execute_run
    from tutor.practice.stepping import actions

    user = make_user(f"shots{width}{scheme}")
    stepping = actions.start_stepping(user=user, code=SHOWN, stdin="", origin=Stepping.Origin.OWN)
    stepping.trace.refresh_from_db()
    if not stepping.trace.run.is_final:
        execute_run(run_id=stepping.trace.run_id)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, color_scheme=scheme
    )
    client.force_login(user)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.goto(f"/trace/{stepping.pk}/")
    expect(page).to_have_url(STEP_URL)
    page.locator("#step-slider-input").fill("14")
    expect(page.locator("#step-heading")).to_contain_text("Step 14")
    expect(page.locator(".object")).not_to_have_count(0)
    # Nothing wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shots = os.environ.get("STEPPING_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{shots}/step-{width}-{scheme}.png", full_page=True)
    # At the last step a dict holds the list and a tuple: two arrows from object to
    # object, drawn beside the objects on a wide screen; on a phone the pointers alone.
    page.get_by_role("link", name="Last »").click()
    expect(page.locator("#step-heading")).not_to_contain_text("Step 14 of")
    expect(page.locator(".memory-links .arrow")).to_have_count(2)
    links = page.locator(".memory-links")
    if width > 600:
        expect(links).to_be_visible()
        box, gutter = page.locator(".memory-objects").bounding_box(), links.bounding_box()
        assert abs(gutter["x"] - (box["x"] + box["width"])) < 2  # right beside the objects
    else:
        expect(links).to_be_hidden()
    expect(page.locator('.entry a[href^="#object-"]')).not_to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


EXERCISE = "#exercise-write-kv-cache-vram"
WRONG_UNIT = """def kv_cache_vram(bits, capacity):
    return bits * capacity


print("KV cache VRAM usage:")
"""


def submit(page, code: str) -> None:
    """Replace what the exercise's editor holds, as pasting would, and press Test it."""
    editor = page.locator(f"{EXERCISE} .cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    page.locator(EXERCISE).get_by_role("button", name="Test it").click()


def test_a_failed_check_of_a_submission_opens_at_the_check(learner_page):
    page = learner_page
    page.goto(SEED + EXERCISE)
    submit(page, WRONG_UNIT)
    failed = page.locator(f"{EXERCISE}-results .test-failed").filter(
        has_text="16 bits for 1000 units is 16 GB"
    )
    failed.get_by_role("button", name="Step through this test").click()
    expect(page).to_have_url(STEP_URL)
    expect(page.locator("h1")).to_contain_text("test “16 bits for 1000 units is 16 GB”")
    # The learner's five lines, then the check: it opens at the check's first line.
    expect(page.locator(".code-line.is-current .code-line-number")).to_have_text("6")
    expect(page.locator(".code-line.is-current")).to_contain_text(
        "assert kv_cache_vram(16, 1000) == 16"
    )
    page.get_by_role("link", name="Last »").click()
    expect(page.locator(".step-exception").first).to_contain_text("AssertionError")


def test_once_solved_a_failed_hidden_test_shows_and_steps_through(learner_page):
    """Before the exercise is solved a hidden test that fails says only that it failed (no
    step-through: it would read the test out); once solved, it shows in full and steps."""
    from course.kinds.code_exercise import CodeExercise

    solution = CodeExercise.objects.get(block__key=EXERCISE.removeprefix("#exercise-")).solution
    # Knows only the numbers the visible tests try: the hidden ones fail.
    only_the_examples = solution.replace(
        "return bits * capacity / 1000", "return {16: 16, 8: 8, 4: 4}[bits] if capacity == 1000 else 0"
    )
    assert only_the_examples != solution
    page = learner_page
    page.goto(SEED + EXERCISE)
    results = page.locator(f"{EXERCISE}-results")
    submit(page, only_the_examples)
    hidden = results.locator(".test-failed").filter(has_text="hidden")
    expect(hidden.first).to_be_visible()
    expect(results.get_by_role("button", name="Step through this test")).to_have_count(0)
    expect(results).not_to_contain_text("kv_cache_vram(16, 2000)")

    submit(page, solution)
    expect(results).to_contain_text("Every test passes")
    expect(results.locator(".test-failed")).to_have_count(0)
    submit(page, only_the_examples)
    failed = results.locator(".test-failed").filter(has_text="works for other capacities")
    expect(failed).to_contain_text("kv_cache_vram(16, 2000)")  # what it checks, in full now
    shoot(page, "hidden-test-results", f"{EXERCISE}-results")
    failed.get_by_role("button", name="Step through this test").click()
    expect(page).to_have_url(STEP_URL)
    expect(page.locator("h1")).to_contain_text("test “works for other capacities”")
    page.get_by_role("link", name="Last »").click()
    expect(page.locator(".step-exception").first).to_contain_text("AssertionError")
    shoot(page, "hidden-test-step")


LONG_LINE = """def describe(model, backend, seconds):
    return f"{model} on {backend} answered in {seconds:.2f} seconds: {'fast' if seconds < 1 else 'slow'} enough to chat with"


line = describe("llama", "CPU", 2.5)
print(line)
"""

COUNTER = """def make_counter():
    count = 0
    def counter():
        nonlocal count
        count += 1
        return count
    return counter


tick = make_counter()
tick()
print(tick())
"""


def stepping_page(browser, live_server, client, user, code: str, width: int):
    from tutor.actions.runs import execute_run
    from tutor.practice.stepping import actions

    stepping = actions.start_stepping(user=user, code=code, stdin="", origin=Stepping.Origin.OWN)
    stepping.trace.refresh_from_db()
    if not stepping.trace.run.is_final:
        execute_run(run_id=stepping.trace.run_id)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}
    )
    context.set_default_timeout(10_000)
    client.force_login(user)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.goto(f"/trace/{stepping.pk}/")
    expect(page).to_have_url(STEP_URL)
    return context, page


@pytest.mark.parametrize("width", [1280, 390])
def test_long_code_lines_wrap_in_sight_and_each_step_has_its_url(
    browser, live_server, client, inline_worker, width
):
    context, page = stepping_page(
        browser, live_server, client, make_user(f"long{width}"), LONG_LINE, width
    )
    total = int(page.locator("#step-region").get_attribute("data-total"))
    expect_step(page, 1, total)
    # The long line is shown whole: no part of it is cut off or scrolled out of sight.
    code = page.locator(".code-lines")
    longest = page.locator(".code-line-text").nth(1)
    expect(longest).to_have_text(LONG_LINE.split("\n")[1])
    box, text = code.bounding_box(), longest.bounding_box()
    assert text["x"] + text["width"] <= box["x"] + box["width"] + 1
    assert code.evaluate("element => element.scrollWidth <= element.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if width > 900:  # beside the frames: the code takes the room a short objects panel leaves
        layout = page.locator(".step-layout").bounding_box()
        assert box["width"] > 0.45 * layout["width"]  # 0.41 when it had a fixed share
    shoot(page, f"long-line-{width}")
    # Next, Previous and the slider each put the step's own URL in the address bar, so
    # Back and Forward go through the steps shown.
    page.get_by_role("link", name="Next →").click()
    expect_step(page, 2, total)
    page.get_by_role("link", name="Next →").click()
    expect_step(page, 3, total)
    page.get_by_role("link", name="← Previous").click()
    expect_step(page, 2, total)
    page.locator("#step-slider-input").fill(str(total))
    expect_step(page, total, total)
    page.go_back()
    expect_step(page, 2, total)
    page.go_back()
    expect_step(page, 3, total)
    page.go_forward()
    expect_step(page, 2, total)
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_counters_kept_frame_and_its_arrow_on_screen(
    browser, live_server, client, inline_worker, width
):
    context, page = stepping_page(
        browser, live_server, client, make_user(f"counter{width}"), COUNTER, width
    )
    total = int(page.locator("#step-region").get_attribute("data-total"))
    page.get_by_role("link", name="Last »").click()
    expect_step(page, total, total)
    page.get_by_role("link", name="← Previous").click()
    expect_step(page, total - 1, total)
    kept = page.locator(".frame-kept")
    expect(kept).to_have_count(1)
    expect(kept).to_contain_text("make_counter()")
    expect(kept).to_contain_text("count")
    made_in = page.locator(".made-in a")
    expect(made_in).to_have_text(re.compile("make_counter()"))
    if width > 600:
        expect(page.locator(".arrow-made-in")).to_be_visible()
    made_in.click()  # the link goes to the frame (no JavaScript needed)
    expect(page).to_have_url(re.compile(r"#frame-f\d+$"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shoot(page, f"kept-frame-{width}")
    context.close()


SHARED_DEFAULT = """def handle(prompt, history=[]):
    history.append(prompt)
    return history


print(handle("alice: my key is change-me-7f3a"))
print(handle("bob: hello"))
"""


@pytest.mark.parametrize("width", [1280, 390])
def test_a_shared_default_list_is_drawn_with_an_arrow_from_the_function(
    browser, live_server, client, inline_worker, width
):
    context, page = stepping_page(
        browser, live_server, client, make_user(f"default{width}"), SHARED_DEFAULT, width
    )
    total = int(page.locator("#step-region").get_attribute("data-total"))
    page.get_by_role("link", name="Next →").click()
    expect_step(page, 2, total)  # the def ran: no call yet
    function = page.locator(".object-function")
    expect(function.locator(".object-title")).to_contain_text("function handle(prompt, history=…)")
    default = function.locator(".entry").filter(has_text="history=")
    expect(default.locator("a.pointer")).to_be_visible()
    target = default.locator("a.pointer").get_attribute("href")
    expect(page.locator(target)).to_contain_text("empty")
    if width > 600:
        expect(page.locator(".memory-links .arrow")).to_have_count(1)  # function → its list
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shoot(page, f"shared-default-{width}")
    page.get_by_role("link", name="Last »").click()
    expect_step(page, total, total)
    expect(page.locator(target)).to_contain_text("2 items")
    shoot(page, f"shared-default-last-{width}")
    context.close()
