"""Spaced review in the system Chromium: a learner gets a prediction and a question with
variants wrong in a lesson; a week later (the clock moved, no sleep) the Review page brings
both back, the question with another variant; answered, each is rescheduled; the teacher
sees the class's retention. At desktop and phone width, and the review without JavaScript."""

import os

import pytest
from playwright.sync_api import expect

from tests.factories import (
    make_cohort,
    make_lesson,
    make_run,
    make_snippet,
    make_teacher,
    make_user,
)
from tests.tutor.question_world import make_question
from tutor.models import Run
from tutor.practice.questions import variants
from tutor.review.models import ReviewAnswer, ReviewCard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("PARSNIP_SCREENSHOTS")  # a folder: save the pages' screenshots there
CODE = 'word = "abra"\nprint(word + "cad" + word)\n'
OUTPUT = "abracadabra"
SIZED = {
    "body": "How many GB do the weights of a {{params}}B model take at {{bits}} bits?",
    "answer": None,
    "program": "print(params * bits / 8)\n",
    "parameters": [{"name": "bits", "values": [4, 8, 16]}, {"name": "params", "values": [2]}],
    "units": "GB",
    "mistakes": [],
    "tries": 1,
}


@pytest.fixture
def world(db):
    teacher, learner = make_teacher("tess"), make_user("ada")
    cohort = make_cohort(teacher, students=[learner], name="Monday group", review=True)
    lesson = make_lesson(title="Speed and memory")
    snippet = make_snippet(lesson, key="spell", code=CODE, expected_output=OUTPUT + "\n", caption="A spell")
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT + "\n")
    question = make_question("number", lesson, key="sized", title="Weights in memory", **SIZED)
    variants.check_question(question)  # every variant's answer computed in the sandbox and kept
    return teacher, learner, cohort, lesson, question


def bits_in(text: str) -> int:
    return next(bits for bits in (4, 8, 16) if f"at {bits} bits" in text)


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def fits_the_width(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0


@pytest.mark.parametrize("width", [1280, 390])
def test_a_week_later_review_brings_back_what_was_wrong(page, login_in_browser, world, clock, width):
    teacher, learner, cohort, lesson, question = world
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(learner)
    page.goto(lesson.get_absolute_url())
    predict = page.locator("#snippet-spell-practice")
    predict.get_by_label("What will it print?").fill("abra cad abra")
    predict.get_by_role("button", name="Reveal").click()
    expect(page.locator("#snippet-spell-answer .verdict")).to_contain_text("Not quite")
    asked = page.locator("#question-sized-practice")
    lesson_bits = bits_in(asked.inner_text())
    asked.get_by_label("Your answer").fill("1000")
    asked.get_by_role("button", name="Answer").click()
    expect(asked.locator(".question-feedback")).to_contain_text("Not right.")
    assert ReviewCard.objects.filter(user=learner).count() == 2

    page.goto("/")
    expect(page.locator(".review-due")).to_have_count(0)  # due tomorrow, not today
    clock.move(days=7)
    page.goto("/")
    page.get_by_role("link", name="2 to review today").click()
    expect(page.get_by_role("heading", name="Review", exact=True)).to_be_visible()
    expect(page.locator(".review-list li")).to_have_count(2)
    shot(page, f"review-list-{width}")
    page.get_by_role("link", name="Start").click()

    # The prediction first (the longest overdue), its output nowhere on the page yet.
    item = page.locator("#review-item")
    expect(item.get_by_role("heading", name="A spell")).to_be_visible()
    assert OUTPUT not in page.content()
    item.get_by_label("What does it print? Type it line by line.").fill(OUTPUT)
    shot(page, f"review-prediction-{width}")
    item.get_by_role("button", name="Check").click()
    expect(item.locator(".feedback-title")).to_contain_text("Spot on")
    expect(item.locator(".review-printed")).to_have_text(OUTPUT)
    fits_the_width(page)
    item.get_by_role("link", name="Next").click()

    # The question, with another variant than the lesson's.
    expect(item.get_by_role("heading", name="Weights in memory")).to_be_visible()
    review_bits = bits_in(item.inner_text())
    assert review_bits != lesson_bits
    item.get_by_label("Your answer").fill(f"{2 * review_bits / 8:g}")
    shot(page, f"review-question-{width}")
    item.get_by_role("button", name="Answer").click()
    expect(item.locator(".question-feedback")).to_contain_text("Right, on the first try.")
    expect(item.locator(".review-next")).to_contain_text("It comes back on")
    shot(page, f"review-answered-{width}")
    fits_the_width(page)
    item.get_by_role("link", name="Done for today").click()
    expect(page.locator(".review-count")).to_have_text("Done for today: you reviewed 2 items.")

    answers = list(ReviewAnswer.objects.filter(user=learner).order_by("pk"))
    assert [answer.right for answer in answers] == [True, True]
    assert all(answer.due_after > clock.at for answer in answers)  # rescheduled, later
    assert answers[1].variant["bits"] == review_bits

    # The teacher sees what the class remembered.
    login_in_browser(teacher)
    page.goto(f"/classes/{cohort.pk}/")
    page.get_by_role("link", name="Review and retention (on)").click()
    row = page.get_by_role("row", name="Weights in memory")
    expect(row).to_contain_text("100% (1 of 1)")
    # Every column in sight, the last (students) too: on a phone each item reads as a card.
    assert page.locator(".table-scroll").evaluate("box => box.scrollWidth <= box.clientWidth")
    shot(page, f"review-retention-{width}")
    fits_the_width(page)


def test_a_review_without_javascript(browser, live_server, client, world, clock):
    _teacher, learner, _cohort, _lesson, question = world
    from tutor.practice.questions.actions import answer_question

    answer_question(user=learner, block=question, answer={"text": "0", "value": 0.0})
    clock.move(days=7)
    client.force_login(learner)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    page.goto("/review/")
    page.get_by_role("link", name="Start").click()
    page.get_by_role("button", name="Answer").click()  # nothing typed: refused, not counted
    expect(page.locator(".messages")).to_contain_text("Type a number first.")
    page.get_by_label("Your answer").fill("1000")
    page.get_by_role("button", name="Answer").click()
    expect(page.locator(".question-feedback")).to_contain_text("Not right.")
    expect(page.locator("#review-item")).to_contain_text("The right answer:")
    assert ReviewAnswer.objects.get().rating == 1
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_an_ordering_and_a_code_exercise_at_review(page, login_in_browser, inline_worker, width):
    """Both come back once solved: the lines given their places from menus (keyboard and
    phone friendly), the code tested by the worker while the page waits for the result."""
    from django.utils import timezone

    from tests.factories import line_tokens, make_exercise
    from tests.tutor.test_review_views import DOUBLE, passed_exercise
    from tutor.practice.ordering.actions import check_order

    learner = make_user("ada")
    exercise = make_exercise(lines=["total = 0", "for n in (1, 2, 3):", "    total += n", "print(total)"])
    check_order(user=learner, exercise=exercise, order=["l1", "l2", "l3", "l4"], unused=[])
    passed_exercise(learner)
    ReviewCard.objects.filter(user=learner).update(due=timezone.now())  # due now
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(learner)
    page.goto("/review/")
    expect(page.locator(".review-list li")).to_have_count(2)
    page.get_by_role("link", name="Start").click()

    item = page.locator("#review-item")
    tokens = line_tokens(learner, exercise)
    for place, key in enumerate(["l1", "l2", "l3", "l4"], start=1):
        item.locator(f"select[name='place-{tokens[key]}']").select_option(str(place))
    shot(page, f"review-ordering-{width}")
    fits_the_width(page)
    item.get_by_role("button", name="Check").click()
    expect(item.locator(".feedback-title")).to_have_text("Right: the program is in order.")
    item.get_by_role("link", name="Next").click()

    expect(item.get_by_label("Your code")).to_have_value("n = int(input())\n")
    item.get_by_label("Your code").fill(DOUBLE)
    item.get_by_role("button", name="Test my code").click()
    expect(item.locator(".feedback-title")).to_have_text("Right: your code passes every test.")
    expect(item.locator(".review-tests li")).to_have_count(2)
    shot(page, f"review-code-{width}")
    fits_the_width(page)
    assert [answer.right for answer in ReviewAnswer.objects.order_by("pk")] == [True, True]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_review_pages_have_no_serious_accessibility_violations(browser, live_server, client, world, scheme):
    import json

    from django.utils import timezone

    from tests.browser.test_accessibility import violations
    from tests.factories import make_exercise
    from tutor.practice.ordering.actions import check_order
    from tutor.practice.questions.actions import answer_question

    teacher, learner, cohort, _lesson, question = world
    answer_question(user=learner, block=question, answer={"text": "0", "value": 0.0})
    exercise = make_exercise(distractors=["never"])
    check_order(user=learner, exercise=exercise, order=["l1", "l2", "l3", "l4"], unused=["d1"])
    ReviewCard.objects.filter(user=learner).update(due=timezone.now())
    cards = list(ReviewCard.objects.filter(user=learner).order_by("pk"))
    found = {}
    for user, urls in [
        (learner, ["/review/", *[f"/review/{card.pk}/" for card in cards]]),
        (teacher, [f"/classes/{cohort.pk}/review/"]),
    ]:
        client.force_login(user)
        context = browser.new_context(base_url=live_server.url, color_scheme=scheme, bypass_csp=True)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
        page = context.new_page()
        for url in urls:
            page.goto(url)
            serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
            if serious:
                found[url] = serious
        context.close()
    assert not found, json.dumps(found, indent=1)


def test_the_review_pages_colours_follow_dark_mode(browser, live_server, client, world):
    from django.utils import timezone

    from tutor.practice.questions.actions import answer_question

    teacher, learner, cohort, _lesson, question = world
    answer_question(user=learner, block=question, answer={"text": "0", "value": 0.0})
    card = ReviewCard.objects.get(user=learner)
    ReviewCard.objects.filter(pk=card.pk).update(due=timezone.now())
    context = browser.new_context(base_url=live_server.url, color_scheme="dark")
    page = context.new_page()

    def as_(user):
        client.force_login(user)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])

    def css(selector, prop):
        return page.locator(selector).first.evaluate(f"e => getComputedStyle(e).{prop}")

    as_(learner)
    page.goto(f"/review/{card.pk}/")
    # An error said here is light red on the dark page, not the light theme's dark red.
    assert css("#review-message", "color") == "rgb(255, 155, 143)"
    page.get_by_label("Your answer").fill("12.5")
    page.get_by_role("button", name="Answer").click()
    expect(page.locator(".review-next")).to_contain_text("It comes back on")
    as_(teacher)
    page.goto(f"/classes/{cohort.pk}/review/")
    # The retention table's rules are the theme's (not light grey lines on the dark page).
    rule = css("table.retention td", "borderBottomColor")
    assert rule == "rgb(45, 50, 56)"  # --border in dark mode
    context.close()
