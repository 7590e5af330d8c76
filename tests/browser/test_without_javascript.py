"""Reveal and Run with JavaScript turned off: plain forms, redirects and "See the result".

Runs go through the real sandbox in a thread (the `inline_worker` fixture), so a result may
or may not be ready when the page comes back; a learner without JavaScript follows "See the
result" until it is.
"""

import pytest
from playwright.sync_api import expect

from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
FIRST = "#snippet-backend-latency"


@pytest.fixture
def plain_page(browser, live_server, client, sample_content, inline_worker):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    user = make_user("lin")
    client.force_login(user)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    yield page
    context.close()


def follow_until(page, region, text: str) -> None:
    """Press "See the result" until the region shows `text` (the worker may still be busy)."""
    for _ in range(40):
        if text in region.inner_text():
            return
        page.wait_for_timeout(500)  # as a person reading the page would
        link = region.get_by_role("link", name="See the result")
        if link.count():
            link.first.click()
        else:
            page.reload()
    expect(region).to_contain_text(text)


def test_reveal_and_run_work_without_javascript(plain_page):
    page = plain_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_label("What will it print?").fill("Optimising speed and memory")
    practice.get_by_role("button", name="Reveal").click()

    follow_until(page, page.locator(f"{FIRST}-practice"), "vllm on CPU: 3.00s")
    answer = page.locator(f"{FIRST}-answer")
    expect(answer.locator(".real-output")).to_contain_text("vllm on CPU: 3.00s")
    expect(answer.locator(".verdict")).to_contain_text("Not quite")

    code = page.locator(f"{FIRST}-practice textarea[name=code]")
    code.fill('print("no script needed")\n')
    page.locator(f"{FIRST}-practice").get_by_role("button", name="Run", exact=True).click()
    follow_until(page, page.locator(f"{FIRST}-output"), "Finished")
    expect(page.locator(f"{FIRST}-output .run-stdout")).to_contain_text("no script needed")
