"""Write code, in the system Chromium: a learner fails a visible test, reads what it
found, fixes the code and passes; a hidden test that fails shows only its name; without
JavaScript the form still submits and the page shows the result. Runs use the
`inline_worker` fixture (tests/browser/conftest.py): the real sandbox, no qcluster."""

import time

import pytest
from playwright.sync_api import expect

from tests.factories import make_user
from tutor.practice.code_exercise.models import ExerciseDraft, Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
PANEL = "#exercise-write-kv-cache-vram"
ONE_DECIMAL = """def kv_cache_vram(bits, capacity):
    return bits * capacity / 1000


print("KV cache VRAM usage:")
for bits in (16, 8, 4):
    print("%d-bit, 1000 units: %.1f GB" % (bits, kv_cache_vram(bits, 1000)))
"""
HARD_CODED = ONE_DECIMAL.replace(
    "return bits * capacity / 1000", "return {16: 16, 8: 8, 4: 4}[bits]"
).replace("%.1f", "%.2f")


@pytest.fixture
def learner_page(page, login_in_browser, sample_content, inline_worker):
    return login_in_browser(make_user("ada"))


def write(page, code: str) -> None:
    """Replace what the editor holds, as pasting would (no auto-indent on the way)."""
    editor = page.locator(f"{PANEL} .cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def test_fail_a_visible_test_read_the_feedback_fix_it_and_pass(learner_page):
    page = learner_page
    page.goto(SEED + PANEL)
    panel = page.locator(PANEL)
    expect(panel).to_contain_text("16 bits for 1000 units is 16 GB")  # the visible tests
    expect(panel).to_contain_text("And 2 hidden tests")

    write(page, ONE_DECIMAL)
    page.keyboard.press("ControlOrMeta+Enter")  # as Test it
    results = page.locator(f"{PANEL}-results")
    expect(results).to_contain_text("5 of 6 tests pass")
    failing = results.locator(".test-failed")
    expect(failing).to_have_count(1)
    expect(failing).to_contain_text("the program prints the table")
    expect(failing).to_contain_text("16-bit, 1000 units: 16.00 GB")  # expected
    expect(failing).to_contain_text("16-bit, 1000 units: 16.0 GB")  # printed
    expect(failing).to_contain_text("%.2f")  # the named slip: two decimals

    write(page, ONE_DECIMAL.replace("%.1f", "%.2f"))
    panel.get_by_role("button", name="Test it").click()
    expect(results).to_contain_text("Every test passes")
    expect(page.locator("#lesson-progress")).to_contain_text("25% done")  # 1 of 4 items
    assert Submission.objects.filter(verdict="passed").count() == 1


def test_a_failing_hidden_test_shows_only_its_name(learner_page):
    page = learner_page
    page.goto(SEED + PANEL)
    write(page, HARD_CODED)
    page.locator(PANEL).get_by_role("button", name="Test it").click()
    results = page.locator(f"{PANEL}-results")
    expect(results).to_contain_text("4 of 6 tests pass")
    hidden = results.locator(".test-failed", has_text="works for other capacities")
    expect(hidden).to_contain_text("(hidden test)")
    expect(hidden).not_to_contain_text("kv_cache_vram(16, 2000)")  # what it checks: not yet
    expect(hidden.locator("table, dl")).to_have_count(0)  # no expected / got values


def test_without_javascript_the_form_submits_and_the_page_shows_the_result(
    browser, live_server, sample_content, inline_worker
):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    make_user("bo")
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("bo")
    page.get_by_label("Password").fill("pw-bo")
    page.get_by_role("button", name="Log in").click()
    page.goto(SEED + PANEL)
    page.locator(f"{PANEL}-code").fill(ONE_DECIMAL.replace("%.1f", "%.2f"))
    page.locator(PANEL).get_by_role("button", name="Test it").click()
    # Back on the lesson with the submission named; it was graded as it was sent (inline
    # worker), so a reload shows the result.
    page.wait_for_url("**?submission=**")
    page.reload()
    expect(page.locator(f"{PANEL}-results")).to_contain_text("Every test passes")
    context.close()


def test_a_modify_exercise_starts_from_the_snippets_code_and_is_solved_by_changing_it(learner_page):
    from course.kinds.code_exercise import CodeExercise

    page = learner_page
    exercise = CodeExercise.objects.get(block__key="max-bits")
    panel_id = "#exercise-max-bits"
    page.goto("/learn/local-models/choosing-hardware-for-local-models/" + panel_id)
    panel = page.locator(panel_id)
    expect(panel.locator(".cm-content")).to_contain_text("def fits(params_billion, bits, vram_gb")
    panel.get_by_role("button", name="Test it").click()  # the snippet as it is: not yet
    results = page.locator(f"{panel_id}-results")
    expect(results).to_contain_text("picks 8-bit for an 8B model on a 12 GB card")
    expect(results).to_contain_text("max_bits")  # the name the tests use, not yet defined

    panel.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(exercise.solution)
    panel.get_by_role("button", name="Test it").click()
    expect(results).to_contain_text("Every test passes")


def test_code_typed_then_left_at_once_is_there_on_return(learner_page):
    page = learner_page
    page.goto(SEED + PANEL)
    page.locator(f"{PANEL} .cm-content").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("# mine")
    page.goto("/glossary/")  # away at once, long before the autosave would have fired
    deadline = (
        time.monotonic() + 15
    )  # the beacon travels beside the navigation (busy machine: room)
    while not ExerciseDraft.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    page.goto(SEED + PANEL)
    expect(page.locator(f"{PANEL} .cm-content")).to_contain_text("# mine")


def test_back_after_leaving_shows_the_code_and_the_latest_result_and_two_tabs_keep_both_submissions(
    learner_page,
):
    """Back and Forward never show a stale panel: the page is never cached, so Back
    brings the code as last submitted and that submission's results; a second tab's
    submission is kept too, and each tab shows the latest on reload."""
    page = learner_page
    page.goto(SEED + PANEL)
    write(page, ONE_DECIMAL)
    page.locator(PANEL).get_by_role("button", name="Test it").click()
    results = page.locator(f"{PANEL}-results")
    expect(results).to_contain_text("5 of 6 tests pass")
    page.get_by_role("link", name="Lessons", exact=True).first.click()
    page.go_back()
    expect(page.locator(f"{PANEL}-results")).to_contain_text("5 of 6 tests pass")
    expect(page.locator(f"{PANEL} .cm-content")).to_contain_text("%.1f GB")
    page.go_forward()
    page.go_back()
    expect(page.locator(f"{PANEL}-results")).to_contain_text("5 of 6 tests pass")

    other = page.context.new_page()
    other.goto(SEED + PANEL)
    expect(other.locator(f"{PANEL} .cm-content")).to_contain_text("%.1f GB")
    editor = other.locator(f"{PANEL} .cm-content")
    editor.click()
    other.keyboard.press("ControlOrMeta+a")
    other.keyboard.press("Delete")
    other.keyboard.insert_text(ONE_DECIMAL.replace("%.1f", "%.2f"))
    other.locator(PANEL).get_by_role("button", name="Test it").click()
    expect(other.locator(f"{PANEL}-results")).to_contain_text("Every test passes")
    page.reload()
    expect(page.locator(f"{PANEL}-results")).to_contain_text("Every test passes")
    assert list(Submission.objects.order_by("pk").values_list("verdict", flat=True)) == [
        "failed",
        "passed",
    ]
