"""What a learner's browser shows when the database is busy for a moment: a plain line
at the foot of the window, never a silent click or an error page, gone at the next answer.

SQLite's write lock is held by another connection (as a backup holds it), and the live
server's connections wait 0.2 s for it instead of 20 s.
"""

import sqlite3

import pytest
from django.db import connection
from django.db.backends.signals import connection_created
from playwright.sync_api import expect

from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
FIRST = "#snippet-backend-latency"
BUSY = "Parsnip is busy for a moment. Please try again in a few seconds."


@pytest.fixture
def short_busy_timeout():
    def shorten(sender, connection, **kwargs):
        if connection.vendor == "sqlite":
            connection.connection.execute("PRAGMA busy_timeout = 200")

    connection_created.connect(shorten)
    yield
    connection_created.disconnect(shorten)


@pytest.fixture
def learner_page(page, login_in_browser, sample_content, inline_worker, short_busy_timeout):
    page.expected_errors.append("status of 503")  # the busy answer, as the console logs it
    return login_in_browser(make_user("ada"))


def test_a_run_while_the_database_is_locked_says_busy_and_the_next_run_works(learner_page):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    expect(page.locator(f"{FIRST}-answer .real-output")).to_contain_text("vllm on CPU")
    busy = page.locator("#busy-message")
    expect(busy).to_be_hidden()

    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        practice.get_by_role("button", name="Run", exact=True).click()
        expect(busy).to_have_text(BUSY)
        expect(busy).to_be_visible()
        expect(busy).to_have_attribute("role", "alert")
        expect(practice.get_by_role("button", name="Run", exact=True)).to_be_enabled()
    finally:
        other.execute("ROLLBACK")
        other.close()

    practice.get_by_role("button", name="Run", exact=True).click()
    output = page.locator(f"{FIRST}-output")
    expect(output.locator(".run-status")).to_contain_text("Finished")
    expect(busy).to_be_hidden()
