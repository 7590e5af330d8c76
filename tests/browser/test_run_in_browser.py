"""Run in the learner's own browser (static/js/browser-run.js, python-worker.js): Python
loads on the first Run, which the server answers meanwhile; then Run answers in the page,
says so, can be stopped, reads input() from the Input box, and is recorded on the server.
Without WebAssembly, or without JavaScript, Run goes to the server as before."""

import pytest
from playwright.sync_api import expect

from tests.factories import make_prediction, make_run, make_snippet, make_user
from tutor.models import Run
from tutor.practice.snippet.models import Prediction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = 'name = input("Name? ")\nprint("Hello,", name)\n'
# Loading Python (about 13 MB from the test server, then compiling it) on a busy machine.
LOADING_MS = 120_000


@pytest.fixture
def snippet():
    snippet = make_snippet(code=CODE, stdin="Ada\n", expected_output="Name? Hello, Ada\n", key="greet")
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdin="Ada\n", stdout="Name? Hello, Ada\n")
    return snippet


@pytest.fixture
def learner(page, login_in_browser, snippet):
    user = make_user("ada")
    make_prediction(user, snippet, text="Name? Hello, Ada\n", verdict=Prediction.Verdict.RIGHT)
    login_in_browser(user)
    return user


def open_snippet(page, snippet):
    page.goto(snippet.block.lesson.get_absolute_url() + "#snippet-greet")
    return page.locator("#snippet-greet-practice")


def write(page, code: str) -> None:
    """Replace what the editor holds, as pasting would."""
    page.locator("#snippet-greet-practice .cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def run(practice):
    practice.get_by_role("button", name="Run", exact=True).click()


def python_ready(practice):
    expect(practice.locator(".browser-python-status")).to_contain_text(
        "Python is ready in your browser", timeout=LOADING_MS
    )


def test_the_first_run_goes_to_the_server_and_the_next_ones_run_in_the_browser(
    page, python_in_browser, learner, snippet, inline_worker
):
    practice = open_snippet(page, snippet)
    output = page.locator("#snippet-greet-output")
    run(practice)
    expect(output.locator(".ran-where")).to_have_text("Ran on the server")
    expect(output.locator(".run-stdout")).to_have_text("Name? Hello, Ada\n")
    python_ready(practice)

    practice.get_by_label("Input").fill("Grace")
    run(practice)
    expect(output.locator(".ran-where")).to_have_text("Ran in your browser")
    expect(output.locator(".run-stdout")).to_have_text("Name? Hello, Grace\n")

    # An error reads the server's beginner's words, and its traceback is the learner's frames.
    write(page, "print('start')\nprint(1 / 0)\n")
    run(practice)
    expect(output.locator(".ran-where")).to_have_text("Ran in your browser")
    expect(output.locator(".run-explanation")).to_contain_text("Your program stopped with an error on line 2")
    expect(output.locator(".output-stderr")).to_contain_text("ZeroDivisionError: division by zero")

    # input() with nothing to read: the same plain words as the server's.
    write(page, "x = input()\n")
    practice.get_by_label("Input").fill("")
    run(practice)
    expect(output.locator(".run-explanation")).to_contain_text("but no input was given")

    # The server keeps a record of each, flagged as run in the browser (sent in batches).
    expect(page.locator("#snippet-greet-output .step-through-form [name=run]")).not_to_have_value("")
    browser_runs = Run.objects.filter(user=learner, in_browser=True).order_by("pk")
    assert [(r.status, r.stdout) for r in browser_runs] == [
        ("ok", "Name? Hello, Grace\n"), ("error", "start\n"), ("error", ""),
    ]
    assert Run.objects.filter(user=learner, in_browser=False, purpose=Run.Purpose.RUN).count() == 1


def test_a_loop_that_never_ends_can_be_stopped_and_python_comes_back(
    page, python_in_browser, learner, snippet, inline_worker
):
    practice = open_snippet(page, snippet)
    output = page.locator("#snippet-greet-output")
    run(practice)  # the first Run: on the server, while Python loads
    python_ready(practice)

    write(page, "n = 0\nwhile True:\n    n += 1\n")
    run(practice)
    stop = practice.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    expect(practice.get_by_role("button", name="Run", exact=True)).to_be_disabled()
    # The last run's output, still there, is marked as being replaced: not this run's.
    expect(output).to_have_attribute("aria-busy", "true")
    expect(output).to_have_css("opacity", "0.5")
    stop.click()
    expect(output.locator(".run-status strong")).to_have_text("Stopped")
    expect(output.locator(".ran-where")).to_have_text("Ran in your browser")
    expect(stop).to_be_hidden()
    expect(output).not_to_have_attribute("aria-busy", "true")

    # Python loads again (from the browser's cache) and runs the next program.
    python_ready(practice)
    write(page, "print('back again')\n")
    run(practice)
    expect(output.locator(".run-stdout")).to_have_text("back again\n")
    expect(output.locator(".ran-where")).to_have_text("Ran in your browser")


def test_stepping_through_a_browser_run_steps_through_it_on_the_server(
    page, python_in_browser, learner, snippet, inline_worker
):
    practice = open_snippet(page, snippet)
    run(practice)
    python_ready(practice)
    write(page, "total = 0\nfor n in range(3):\n    total += n\nprint(total)\n")
    run(practice)
    output = page.locator("#snippet-greet-output")
    expect(output.locator(".ran-where")).to_have_text("Ran in your browser")
    # At once, before the run's batch went: the page sends it first, then steps through it.
    output.get_by_role("button", name="Step through your version").click()
    page.wait_for_url("**/trace/**")
    recorded = Run.objects.get(user=learner, in_browser=True)
    assert recorded.code.startswith("total = 0")
    expect(page.locator("main")).to_contain_text("total")


def test_a_program_that_needs_threads_runs_on_the_server(
    page, python_in_browser, learner, snippet, inline_worker
):
    practice = open_snippet(page, snippet)
    output = page.locator("#snippet-greet-output")
    run(practice)
    python_ready(practice)
    write(page, "import threading\nprint(threading.active_count())\n")
    run(practice)
    expect(output.locator(".ran-where")).to_have_text("Ran on the server")
    expect(output.locator(".run-stdout")).to_have_text("1\n")


def test_without_webassembly_every_run_goes_to_the_server(
    page, python_in_browser, learner, snippet, inline_worker
):
    page.add_init_script("delete window.WebAssembly;")
    practice = open_snippet(page, snippet)
    output = page.locator("#snippet-greet-output")
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    for name in ("Grace", "Alan"):
        practice.get_by_label("Input").fill(name)
        run(practice)
        expect(output.locator(".run-stdout")).to_have_text(f"Name? Hello, {name}\n")
        expect(output.locator(".ran-where")).to_have_text("Ran on the server")
    expect(practice.locator(".browser-python-status")).to_have_count(0)
    assert not [url for url in requested if "pyodide" in url or "python-worker" in url]


def test_without_javascript_run_goes_to_the_server(
    browser, live_server, client, python_in_browser, snippet, inline_worker
):
    user = make_user("ada")
    make_prediction(user, snippet, text="Name? Hello, Ada\n", verdict=Prediction.Verdict.RIGHT)
    client.force_login(user)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        context.add_cookies(
            [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
        )
        page = context.new_page()
        page.goto(snippet.block.lesson.get_absolute_url())
        practice = page.locator("#snippet-greet-practice")
        practice.get_by_label("Input").fill("Grace")
        practice.get_by_role("button", name="Run", exact=True).click()
        output = page.locator("#snippet-greet-output")
        # The plain form: the page comes back with the run (or a link to its result).
        expect(output.locator(".ran-where").or_(output.locator(".see-result"))).to_be_visible()
        if output.locator(".see-result").count():
            output.locator(".see-result").click()
        expect(page.locator("#snippet-greet-output .run-stdout")).to_have_text("Name? Hello, Grace\n")
        expect(page.locator("#snippet-greet-output .ran-where")).to_have_text("Ran on the server")
        expect(practice.get_by_role("button", name="Stop")).to_be_hidden()
    finally:
        context.close()


def test_a_german_page_explains_a_browser_runs_error_in_german(
    page, python_in_browser, learner, snippet, inline_worker
):
    page.context.set_extra_http_headers({"Accept-Language": "de"})
    practice = open_snippet(page, snippet)
    output = page.locator("#snippet-greet-output")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    practice.get_by_role("button", name="Ausführen", exact=True).click()  # on the server
    expect(practice.locator(".browser-python-status")).to_contain_text(
        "Python ist in deinem Browser bereit", timeout=LOADING_MS
    )

    write(page, "print('start')\nprint(nmae)\n")
    practice.get_by_role("button", name="Ausführen", exact=True).click()
    expect(output.locator(".ran-where")).to_have_text("Im Browser ausgeführt")
    explanation = output.locator(".run-explanation")
    expect(explanation).to_contain_text("Dein Programm ist in Zeile 2 mit einem Fehler abgebrochen")
    expect(explanation).to_contain_text("Die letzte Zeile von Python sagt, was schiefging")
    expect(explanation).to_contain_text("NameError: name 'nmae' is not defined")
    expect(output.locator(".output-stderr")).to_contain_text("NameError")
