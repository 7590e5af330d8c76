"""The site's htmx conventions (course/htmx.py), as people meet them in the browser: a
refused click says why in the panel's message line; an expired session leads to the log-in
page and back; scripts set up what a swap brings, once."""

import re

import pytest
from playwright.sync_api import expect

from tests.factories import make_cohort, make_exercise, make_lesson, make_teacher, make_user
from tutor.practice.ordering import actions as ordering_actions

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
FIRST = "#snippet-backend-latency"
# Chromium reports every 4xx in the console; these are the refusals the tests provoke.
REFUSED = r"status of 4(00|29)"


@pytest.fixture
def learner_page(page, login_in_browser, sample_content, inline_worker):
    page.expected_errors.append(REFUSED)
    return login_in_browser(make_user("ada"))


def test_a_refused_reveal_or_run_says_why_in_the_snippets_message_line(learner_page, settings):
    page = learner_page
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    message = page.locator(f"{FIRST}-message")
    expect(message).to_be_hidden()

    practice.get_by_role("button", name="Reveal").click()  # nothing typed: 400
    expect(message).to_have_text(
        "Type what you think it prints first, or choose “I said it out loud”."
    )
    expect(message).to_have_attribute("role", "status")
    expect(practice.get_by_label("What will it print?")).to_be_visible()  # the form stays

    practice.get_by_role("button", name="I said it out loud").click()
    expect(page.locator(f"{FIRST}-answer")).to_contain_text("What it prints")
    expect(message).to_be_hidden()  # the panel came back without the old refusal

    settings.RUNS_PENDING_MAX = 0  # too many runs waiting: 429
    practice.get_by_role("button", name="Run", exact=True).click()
    expect(message).to_contain_text("You already have runs waiting for a worker.")
    expect(page.locator(f"{FIRST}-output")).not_to_contain_text("Finished")

    settings.RUNS_PENDING_MAX = 3
    practice.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator(f"{FIRST}-output .run-status")).to_contain_text("Finished")
    expect(message).to_be_hidden()  # a request that works clears the refusal


def test_a_poll_arriving_after_a_refusal_leaves_the_refusal_there(
    page, login_in_browser, sample_content, settings
):
    """The answer polls while its reveal waits for a worker (none runs here); a Run refused
    meanwhile says why, and the next poll's answer does not wipe the reason away."""
    page.expected_errors.append(REFUSED)
    login_in_browser(make_user("ada"))
    settings.RUN_WAIT_SECONDS = 0
    settings.RUN_LONG_POLL_SECONDS = 0.3  # a poll answers every 0.3 s: several below
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_role("button", name="I said it out loud").click()
    answer = page.locator(f"{FIRST}-answer")
    expect(answer).to_have_attribute("data-poll", "")  # waiting for the worker, polling
    settings.RUNS_PENDING_MAX = 0
    practice.get_by_role("button", name="Run", exact=True).click()
    message = page.locator(f"{FIRST}-message")
    expect(message).to_contain_text("You already have runs waiting for a worker.")
    with page.expect_response(lambda r: "/predictions/" in r.url and r.request.method == "GET"):
        pass
    with page.expect_response(lambda r: "/predictions/" in r.url and r.request.method == "GET"):
        pass
    expect(answer).to_have_attribute("data-poll", "")  # still polling: the polls came
    expect(message).to_contain_text("You already have runs waiting for a worker.")


def test_a_refused_move_or_check_says_why_under_the_lines(page, login_in_browser):
    page.expected_errors.append(REFUSED)
    learner = make_user("ada")
    login_in_browser(learner)
    exercise = make_exercise(make_lesson(), lines=["a = 1", "b = a + 1", "print(a, b)"], key="abc")
    page.goto(exercise.block.lesson.get_absolute_url() + "#exercise-abc")
    region = page.locator("#exercise-abc-practice")
    expect(region).to_have_class(re.compile("has-script"))
    message = page.locator("#exercise-abc-message")
    expect(message).to_be_hidden()

    # Solved in another tab: this page is out of date, and the server refuses its moves.
    ordering_actions.check_order(
        user=learner, exercise=exercise, order=["l1", "l2", "l3"], unused=[]
    )
    region.locator(".tool-down").first.click()
    expect(message).to_have_text(
        "You have solved this one already. Choose “Practise again” to start over. "
        "Reload the page to see your lines as saved."
    )
    expect(message).to_have_attribute("role", "alert")

    region.locator(".tool-down").first.click()  # the next move forgets the old refusal…
    expect(message).to_contain_text("You have solved this one already.")  # …until refused again
    region.get_by_role("button", name="Check").click()
    expect(message).to_contain_text("You have solved this one already.")

    page.reload()
    expect(page.locator("#exercise-abc-practice .ordering-feedback")).to_contain_text("Solved")


def session_expires():
    """Every session ends on the server, as when a session times out: the browser's cookie
    now names none."""
    from django.contrib.sessions.models import Session

    Session.objects.all().delete()


def log_in_again(page, username: str):
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}")
    page.get_by_role("button", name="Log in").click()


def test_an_expired_session_leads_to_log_in_and_back_to_the_snippet(
    page, login_in_browser, sample_content
):
    login_in_browser(make_user("ada"))
    page.goto(SEED + FIRST)
    practice = page.locator(f"{FIRST}-practice")
    practice.get_by_label("What will it print?").fill("hello")

    session_expires()
    practice.get_by_role("button", name="Reveal").click()

    # The whole page goes to log in (the log-in form is not swapped into the panel)…
    log_in_again(page, "ada")
    # …and comes back to the snippet, not yet revealed.
    expect(page).to_have_url(re.compile(re.escape(SEED + FIRST) + "$"))
    expect(page.locator(f"{FIRST}-practice").get_by_label("What will it print?")).to_be_visible()
    expect(page.locator(".who")).to_have_text("ada")


def test_an_expired_session_leads_to_log_in_and_back_to_the_exercise(page, login_in_browser):
    login_in_browser(make_user("ada"))
    exercise = make_exercise(make_lesson(), lines=["a = 1", "print(a)"], key="abc")
    lesson = exercise.block.lesson.get_absolute_url()
    page.goto(lesson)
    region = page.locator("#exercise-abc-practice")
    expect(region).to_have_class(re.compile("has-script"))

    session_expires()
    region.get_by_role("button", name="Check").click()

    log_in_again(page, "ada")
    expect(page).to_have_url(re.compile(re.escape(lesson) + "#exercise-abc$"))
    expect(
        page.locator("#exercise-abc-practice").get_by_role("button", name="Check")
    ).to_be_visible()


def test_sorting_the_class_grid_leaves_one_working_copy_link_button(
    page, login_in_browser, sample_content
):
    teacher = make_teacher("tess")
    cohort = make_cohort(teacher, students=[make_user("sam")])
    login_in_browser(teacher)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"/classes/{cohort.pk}/")
    page.locator("#class-grid").get_by_role("link", name="Overall").click()  # an htmx swap
    expect(page.locator("th.overall-col")).to_have_attribute("aria-sort", re.compile("."))

    button = page.locator(".copy-button")
    button.click()
    expect(button).to_have_text("Copied")
    expect(button).to_have_text("Copy link")  # set up once: one handler puts its label back
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(f"/classes/join/{cohort.join_code}/")
