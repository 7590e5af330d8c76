"""Predict, reveal and run a snippet in the system Chromium.

No qcluster runs here: the `inline_worker` fixture replaces `tutor.queueing.enqueue_run` with a
thread that calls `tutor.tasks.execute_run(run_id)`, so runs go through the real sandbox
and the same Run rows, just without the broker (the real worker path is tested end to end
in tests/tutor/test_worker.py).
"""

import re
import time

import pytest
from playwright.sync_api import expect

from tests.factories import make_user
from tutor.practice.snippet.models import CodeDraft

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
SEED_OUTPUT = (
    "\nOptimising speed and memory\nllama.cpp on NVIDIA: 2.00s\nllama.cpp on CPU: 2.00s\n"
    "vllm on NVIDIA: 1.00s\nvllm on CPU: 3.00s\n"
)
FIRST = "#snippet-backend-latency"


@pytest.fixture
def learner_page(page, login_in_browser, sample_content, inline_worker):
    return login_in_browser(make_user("ada"))


def test_predict_and_reveal_the_first_snippet_shows_the_missing_empty_line(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    expect(page.locator("#lesson-progress")).to_have_text("Not started")
    # Nothing of the answer before the reveal.
    expect(practice).not_to_contain_text("llama.cpp on NVIDIA")
    assert "llama.cpp on NVIDIA: 2.00s" not in page.content()

    practice.get_by_label("What will it print?").fill(
        "Optimising speed and memory\n"
        "llama.cpp on NVIDIA: 2.00s\n"
        "llama.cpp on CPU: 2.00s\n"
        "vllm on NVIDIA: 1.00s\n"
        "vllm on CPU: 3.00s"
    )
    practice.get_by_role("button", name="Reveal").click()

    answer = page.locator(f"{FIRST}-answer")
    expect(answer.get_by_role("heading", name="What it prints")).to_be_visible()
    expect(answer.locator(".real-output")).to_contain_text("vllm on CPU: 3.00s")
    expect(answer.locator(".real-output .empty-line").first).to_have_text("↵ (empty line)")
    expect(answer.locator(".verdict")).to_have_text("Not quite: 5 of 6 lines right, 1 missing.")
    expect(answer).to_contain_text(
        "The output starts with an empty line — the first print() prints one."
    )
    missing = answer.locator("tr.line-missing")
    expect(missing).to_have_count(1)
    expect(missing.locator(".line-expected")).to_have_text("↵ (empty line)")
    expect(answer).not_to_have_attribute("hx-trigger", re.compile(".+"))  # polling has stopped
    # One of the lesson's three items done: the badge at the top says so without a reload.
    expect(page.locator("#lesson-progress")).to_have_text("25% done")  # 1 of its 4 items
    # And the code is now the learner's to change, in the editor.
    expect(practice.locator(".cm-editor .cm-content")).to_contain_text("def backend_latency")


def test_said_out_loud_then_an_honest_self_check(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    answer = page.locator(f"{FIRST}-answer")
    expect(answer).to_contain_text("You said it out loud.")
    expect(answer.locator(".real-output")).to_contain_text("Optimising speed and memory")
    answer.get_by_role("button", name="I got it").click()
    expect(answer).to_contain_text("You got it.")


def colour(locator) -> str:
    return locator.evaluate("element => getComputedStyle(element).color")


def test_an_honest_i_didnt_is_not_shown_in_success_green(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    for key, button in ((FIRST, "I got it"), ("#snippet-kv-cache-vram", "I didn't")):
        page.locator(f"{key}-practice").get_by_role("button", name="I said it out loud").click()
        page.locator(f"{key}-answer").get_by_role("button", name=button).click()
    got_it = page.locator(f"{FIRST}-answer .self-verdict")
    didnt = page.locator("#snippet-kv-cache-vram-answer .self-verdict")
    expect(didnt).to_contain_text("You didn't this time")
    plain_text = colour(page.locator("#snippet-kv-cache-vram-answer"))
    assert colour(got_it) != plain_text  # success green
    assert colour(didnt) == plain_text


def test_edit_and_run_shows_the_output_then_autosave_survives_a_reload(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    editor = practice.locator(".cm-content")
    expect(editor).to_be_visible()

    # Ctrl+Enter runs what is in the editor.
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")  # out of the for loop's body
    page.keyboard.type('print("hello from ada")')
    page.keyboard.press("Control+Enter")
    output = page.locator(f"{FIRST}-output")
    expect(output.locator(".run-status")).to_contain_text("Finished")
    expect(output.locator(".run-stdout")).to_contain_text("hello from ada")
    expect(output.locator(".run-status")).to_contain_text(re.compile(r"in \d+ ms"))

    # A traceback shows, with the status in words.
    page.keyboard.type("\n1 / 0")
    practice.get_by_role("button", name="Run", exact=True).click()
    expect(output.locator(".run-status")).to_contain_text("Stopped with an error")
    expect(output.locator(".output-stderr")).to_contain_text("ZeroDivisionError")

    # The edit is saved as it is typed, and comes back after a reload.
    expect(page.locator(f"{FIRST}-saved")).to_have_text("Saved.")
    page.reload()
    editor = page.locator(f"{FIRST}-practice .cm-content")
    expect(editor).to_contain_text('print("hello from ada")')
    expect(page.locator(f"{FIRST}-saved")).to_have_text("Your changes are saved.")

    # Reset brings back the original and forgets the draft.
    page.locator(f"{FIRST}-practice").get_by_role("button", name="Reset to the original").click()
    expect(page.locator(f"{FIRST}-saved")).to_have_text("Back to the original code.")
    expect(editor).not_to_contain_text("hello from ada")
    page.reload()
    expect(page.locator(f"{FIRST}-practice .cm-content")).not_to_contain_text("hello from ada")


def test_anonymous_reader_logs_in_and_lands_back_on_the_snippet(page, sample_content):
    make_user("grace")
    page.goto(SEED)
    page.locator(f"{FIRST}-practice").get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill("pw-grace")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(re.escape(SEED + FIRST) + "$"))
    expect(page.locator(f"{FIRST}-practice").get_by_label("What will it print?")).to_be_visible()


def test_a_run_still_arrives_when_the_server_drops_the_page_poll(
    page, login_in_browser, sample_content, monkeypatch, settings
):
    """The web server restarting mid-wait loses nothing: the failed poll is asked again."""
    from tutor import queueing, tasks
    from tutor.models import Run

    queued: list[int] = []
    monkeypatch.setattr(queueing, "enqueue_run", queued.append)  # a worker that is slow to start
    settings.RUN_LONG_POLL_SECONDS = 0.5
    page = login_in_browser(make_user("grace"))
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    expect(practice.locator(".cm-content")).to_be_visible()
    # The reveal: the run the content's import queued (the worker has not got to it yet).
    reveal = Run.objects.get(
        purpose=Run.Purpose.REVEAL, status=Run.Status.QUEUED, snippet__block__key=FIRST[9:]
    )
    assert queued == []
    tasks.execute_run(reveal.pk)
    expect(page.locator(f"{FIRST}-answer")).to_contain_text("What it prints")

    dropped: list[str] = []

    def drop_first_polls(route):
        if len(dropped) < 2:
            dropped.append(route.request.url)
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route(re.compile(r"/runs/\d+/"), drop_first_polls)
    page.expected_errors += ["ERR_CONNECTION_RESET", "htmx:sendError", "htmx:afterRequest"]
    practice.get_by_role("button", name="Run", exact=True).click()
    output = page.locator(f"{FIRST}-output")
    expect(output.locator(".run-status")).to_contain_text("Waiting for a worker")
    for _ in range(150):  # until the page's poll has failed, as during a server restart
        if dropped:
            break
        page.wait_for_timeout(100)
    assert len(dropped) >= 1
    run = Run.objects.get(user__username="grace", purpose=Run.Purpose.RUN)
    assert queued == [run.pk]
    tasks.execute_run(run.pk)  # the worker gets to it
    expect(output.locator(".run-status")).to_contain_text("Finished")
    assert len(dropped) == 2


def test_the_prediction_counter_counts_and_says_when_the_limit_is_reached(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    counter = practice.locator(".char-count")
    expect(counter).to_have_text("0 of 5,000 characters")
    practice.get_by_label("What will it print?").fill("hello\nworld")
    expect(counter).to_have_text("11 of 5,000 characters")
    practice.get_by_label("What will it print?").fill("x" * 6000)  # a paste cut at the limit
    expect(counter).to_have_text(
        "5,000 of 5,000 characters: that is the limit, anything longer is cut."
    )
    expect(practice.locator("[data-count-alert]")).to_have_text(
        "Your prediction is at the 5,000 character limit."
    )


def test_an_edit_made_just_before_leaving_the_page_is_kept(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    editor = practice.locator(".cm-content")
    expect(editor).to_be_visible()
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type('\nprint("typed just before leaving")')
    # Away at once, long before the autosave would have fired (800 ms after typing).
    page.goto("/glossary/")
    # The beacon travels beside the navigation; give the server the moment it needs (up to
    # 15 s on a busy machine: this waits only as long as the draft takes to arrive).
    deadline = time.monotonic() + 15
    while not CodeDraft.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    page.goto(SEED + FIRST)
    expect(page.locator(f"{FIRST}-practice .cm-content")).to_contain_text(
        'print("typed just before leaving")'
    )
    expect(page.locator(f"{FIRST}-saved")).to_have_text("Your changes are saved.")


@pytest.fixture
def browser_with_history_cache(browser):
    """Chromium as people run it: pages left are kept in the back/forward cache (Playwright
    turns that cache off by default)."""
    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    with_cache = browser.browser_type.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        ignore_default_args=["--disable-back-forward-cache"],
    )
    yield with_cache
    with_cache.close()


def test_back_shows_the_answer_revealed_since_not_an_empty_form(
    browser_with_history_cache, live_server, client, sample_content, inline_worker
):
    ada = make_user("ada")
    client.force_login(ada)
    context = browser_with_history_cache.new_context(base_url=live_server.url)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    tab_a, tab_b = context.new_page(), context.new_page()
    tab_a.goto(SEED + FIRST)
    expect(tab_a.locator(f"{FIRST}-practice").get_by_label("What will it print?")).to_be_visible()
    tab_a.get_by_role("navigation", name="Main").get_by_role("link", name="Glossary").click()
    expect(tab_a).to_have_url(re.compile("/glossary/$"))

    # Meanwhile the snippet is revealed (here in another tab).
    tab_b.goto(SEED + FIRST)
    tab_b.locator(f"{FIRST}-practice").get_by_label("What will it print?").fill("my guess")
    tab_b.locator(f"{FIRST}-practice").get_by_role("button", name="Reveal").click()
    expect(tab_b.locator(f"{FIRST}-answer .real-output")).to_contain_text("vllm on CPU: 3.00s")

    tab_a.go_back()
    expect(tab_a.locator(f"{FIRST}-answer .real-output")).to_contain_text("vllm on CPU: 3.00s")
    expect(tab_a.locator(f"{FIRST}-practice").get_by_label("What will it print?")).to_have_count(0)
    context.close()


def test_a_prediction_from_a_second_tab_says_it_does_not_count(learner_page):
    tab_a = learner_page
    tab_b = tab_a.context.new_page()
    tab_a.goto(SEED + FIRST)
    tab_b.goto(SEED + FIRST)

    tab_a.locator(f"{FIRST}-practice").get_by_label("What will it print?").fill("guess in tab A")
    tab_a.locator(f"{FIRST}-practice").get_by_role("button", name="Reveal").click()
    expect(tab_a.locator(f"{FIRST}-answer .prediction-said")).to_have_text("guess in tab A")

    tab_b.locator(f"{FIRST}-practice").get_by_label("What will it print?").fill("guess in tab B")
    tab_b.locator(f"{FIRST}-practice").get_by_role("button", name="Reveal").click()
    answer_b = tab_b.locator(f"{FIRST}-answer")
    expect(answer_b.locator(".practice-notice")).to_contain_text(
        "You had already predicted this snippet"
    )
    expect(answer_b.locator(".practice-notice")).to_contain_text("does not count")
    expect(answer_b.locator(".prediction-said")).to_have_text("guess in tab A")


def test_after_editing_the_learner_may_predict_what_their_version_prints(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    editor = practice.locator(".cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")
    page.keyboard.type('print("%.1f" % 2)')
    practice.get_by_text("Predict what your version prints").click()
    practice.get_by_label("What will your version print?").fill(SEED_OUTPUT + "2.0")
    practice.get_by_role("button", name="Run", exact=True).click()
    own = page.locator(f"{FIRST}-output .own-comparison")
    expect(own).to_contain_text("Your prediction of your version: Spot on")
    # The first prediction (said out loud) still waits for its honest self-check.
    expect(page.locator(f"{FIRST}-answer").get_by_role("button", name="I got it")).to_be_visible()
