"""Run with an input box, and failures explained, in the system Chromium (see
test_snippet_practice.py for the `inline_worker` that runs code in the real sandbox)."""

import pytest
from playwright.sync_api import expect

from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEPLOYING = "/learn/local-models/deploying-a-private-model-safely/"
SNIPPET = "#snippet-refused-request"


def test_type_an_input_run_and_read_what_went_wrong(
    page, login_in_browser, sample_content, inline_worker
):
    login_in_browser(make_user("grace"))
    page.goto(DEPLOYING + SNIPPET)
    practice = page.locator(f"{SNIPPET}-practice")
    practice.get_by_label("What will it print?").fill(
        "200 OK /health\nAsking the model with the key from the input...\nPermissionError"
    )
    practice.get_by_role("button", name="Reveal").click()
    answer = page.locator(f"{SNIPPET}-answer")
    expect(answer.locator(".verdict")).to_have_text(
        "Spot on: your prediction matches the output line for line."
    )
    expect(answer.locator(".output-stderr")).to_contain_text(
        "PermissionError: 401 Unauthorized: wrong or missing API key"
    )

    # The input box starts with the snippet's own input: the run fails as the reveal did.
    stdin = practice.get_by_label("Input")
    expect(stdin).to_have_value("change-me-7f3b\n")
    output = page.locator(f"{SNIPPET}-output")
    practice.get_by_role("button", name="Run", exact=True).click()
    expect(output.locator(".run-explanation")).to_contain_text(
        "Your program stopped with an error on line 9"
    )

    # No input at all: input() has nothing to read, and the page says so in plain words.
    stdin.fill("")
    practice.get_by_role("button", name="Run", exact=True).click()
    expect(output.locator(".run-explanation")).to_contain_text("Your program waited for input")
    expect(output.locator(".run-explanation")).to_contain_text("but no input was given")
    expect(output.locator(".output-stderr")).to_contain_text("EOFError: EOF when reading a line")

    # The right key: every request answered, nothing to explain.
    stdin.fill("change-me-7f3a")
    practice.get_by_role("button", name="Run", exact=True).click()
    expect(output.locator(".run-stdout")).to_contain_text("Answer received")
    expect(output.locator(".run-explanation")).to_have_count(0)
