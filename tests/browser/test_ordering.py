"""Put it in order, in the system Chromium: drag, click and keyboard, "Not used", Help.

Checks of output-graded exercises run the assembled program: the `inline_worker` fixture
replaces `tutor.queueing.enqueue_run` with a thread that calls `tutor.tasks.execute_run`, so
runs go through the real sandbox and Run rows without the broker (the real worker path is
tested end to end in tests/tutor/test_worker.py).
"""

import re
import time

import pytest
from playwright.sync_api import expect

from tests.factories import line_keys_by_token, line_tokens, make_exercise, make_lesson, make_user
from tutor.practice.ordering.lines import ExerciseLines, starting_order
from tutor.practice.ordering.models import OrderingArrangement

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
LINES = ["a = 1", "b = a + 1", "c = a + b", "print(a, b, c)", "print(c * 2)"]
CORRECT = ["l1", "l2", "l3", "l4", "l5"]


@pytest.fixture
def learner(login_in_browser):
    user = make_user("ada")
    login_in_browser(user)
    return user


@pytest.fixture
def exercise():
    return make_exercise(make_lesson(), lines=LINES, key="abc")


def open_exercise(page, exercise):
    page.goto(exercise.block.lesson.get_absolute_url() + "#exercise-abc")
    region = page.locator("#exercise-abc-practice")
    expect(region).to_have_class(re.compile("has-script"))  # the script is ready
    return region


def shown(region, area="order") -> list[str]:
    """The keys of the lines in an area (the page names them by the learner's tokens)."""
    tokens = region.locator(f'[data-area="{area}"] > .ordering-line').evaluate_all(
        "lines => lines.map(line => line.dataset.line)"
    )
    keys = line_keys_by_token()
    return [keys[token] for token in tokens]


def line(region, key):
    tokens = region.locator(".ordering-line").evaluate_all(
        "lines => lines.map(line => line.dataset.line)"
    )
    keys = line_keys_by_token()
    [token] = [token for token in tokens if keys[token] == key]
    return region.locator(f'.ordering-line[data-line="{token}"]')


def eventually_saved(user, exercise, order, unused=None):
    deadline = time.monotonic() + 15  # a poll until saved: room for a busy machine
    while time.monotonic() < deadline:
        saved = OrderingArrangement.objects.filter(user=user, exercise=exercise).first()
        if saved and saved.order == order and (unused is None or saved.unused == unused):
            return
        time.sleep(0.05)
    raise AssertionError(f"never saved {order}: {saved and (saved.order, saved.unused)}")


def drag(page, source, target):
    """Press on `source`, move in small steps over the top part of `target`, release:
    real mouse events, which SortableJS turns into a drag."""
    start = source.locator(".line-body").bounding_box()
    end = target.bounding_box()
    x, y = start["x"] + 30, start["y"] + start["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 8, steps=4)
    going_up = end["y"] < start["y"]
    to_y = end["y"] + (end["height"] * 0.25 if going_up else end["height"] * 0.75)
    page.mouse.move(end["x"] + 30, to_y, steps=20)
    expect(page.locator(".ordering-line.sortable-fallback")).to_have_count(1)  # Sortable's ghost
    page.wait_for_timeout(150)
    page.mouse.up()


def check_and_see_solved(region):
    region.get_by_role("button", name="Check").click()
    feedback = region.locator(".ordering-feedback")
    expect(feedback).to_contain_text("Solved on check 1")


def test_solve_by_clicking_lines_up(page, learner, exercise):
    region = open_exercise(page, exercise)
    start = starting_order(user_id=learner.pk, lines=ExerciseLines.of(exercise))
    assert shown(region) == start

    for target, key in enumerate(CORRECT):
        while shown(region).index(key) > target:
            line(region, key).locator(".line-button").click()
            expect(page.locator("#exercise-abc-announce")).to_contain_text(
                f"moved to position {shown(region).index(key) + 1} of 5"
            )
    assert shown(region) == CORRECT
    eventually_saved(learner, exercise, CORRECT)

    check_and_see_solved(region)
    page.reload()
    expect(page.locator("#exercise-abc-practice .ordering-feedback")).to_contain_text("Solved")
    expect(page.locator("#exercise-abc-practice .line-button")).to_have_count(0)


def test_solve_with_the_keyboard_only(page, learner, exercise):
    region = open_exercise(page, exercise)
    announce = page.locator("#exercise-abc-announce")
    expect(region.locator(".hint-script")).to_contain_text("Alt")

    for target, key in enumerate(CORRECT):
        button = line(region, key).locator(".line-button")
        button.focus()
        while (at := shown(region).index(key)) != target:
            page.keyboard.press("Alt+ArrowUp" if at > target else "Alt+ArrowDown")
            expect(button).to_be_focused()  # focus moves with the line
            expect(announce).to_have_text(
                re.compile(rf"moved to position {shown(region).index(key) + 1} of 5\.$")
            )
    assert shown(region) == CORRECT
    eventually_saved(learner, exercise, CORRECT)

    region.get_by_role("button", name="Check").focus()
    page.keyboard.press("Enter")
    feedback = region.locator(".ordering-feedback")
    expect(feedback).to_contain_text("Solved on check 1")
    expect(page.locator("#exercise-abc-practice [data-feedback]")).to_be_focused()


def test_solve_by_dragging_lines(page, learner, exercise):
    region = open_exercise(page, exercise)

    for target, key in enumerate(CORRECT):
        if shown(region).index(key) != target:
            drag(
                page,
                line(region, key),
                region.locator('[data-area="order"] > .ordering-line').nth(target),
            )
            expect(
                region.locator('[data-area="order"] > .ordering-line').nth(target)
            ).to_have_attribute("data-line", line_tokens(learner, exercise)[key])
    assert shown(region) == CORRECT
    expect(page.locator("#exercise-abc-announce")).to_contain_text("moved to position")
    eventually_saved(learner, exercise, CORRECT)

    check_and_see_solved(region)


def test_a_line_that_does_not_belong_goes_to_not_used_and_back(page, learner):
    exercise = make_exercise(make_lesson(), lines=LINES[:3], distractors=["b = 99"], key="abc")
    region = open_exercise(page, exercise)
    distractor = line(region, "d1")

    distractor.get_by_role("button", name="Move to not used").click()
    assert shown(region, "unused") == ["d1"]
    expect(distractor.get_by_role("button", name="Use this line")).to_be_focused()
    expect(page.locator("#exercise-abc-announce")).to_contain_text("“b = 99” moved in Not used")
    eventually_saved(learner, exercise, [k for k in shown(region)], ["d1"])

    distractor.get_by_role("button", name="Use this line").click()
    assert shown(region)[-1] == "d1" and shown(region, "unused") == []

    # And by dragging it into the "Not used" area.
    drag(page, distractor, region.locator('[data-area="unused"]'))
    expect(region.locator('[data-area="unused"] > .ordering-line')).to_have_count(1)
    eventually_saved(learner, exercise, shown(region), ["d1"])


def test_a_checks_marks_say_in_order_and_go_once_a_line_moves(
    page, login_in_browser, sample_content, inline_worker
):
    """Lines in order with each other are not "in place"; after a move the marks described
    another answer, and the page takes them away without a reload."""
    login_in_browser(make_user("ada"))
    page.goto(SEED + "#exercise-kv-cache-vram-order")
    region = page.locator("#exercise-kv-cache-vram-order-practice")
    expect(region).to_have_class(re.compile("has-script"))
    region.get_by_role("button", name="Check").click()
    expect(region.locator(".ordering-feedback")).to_contain_text("Check 1: not yet.")
    expect(region.locator(".is-in-order .line-mark").first).to_have_text(re.compile("In order"))
    expect(region.get_by_text("In place")).to_have_count(0)

    region.locator('[data-area="order"] .line-button').nth(1).click()
    expect(region.locator(".is-in-order")).to_have_count(0)
    expect(region.locator(".line-mark")).to_have_count(0)


def test_help_appears_after_three_wrong_checks_and_leads_to_the_solution(
    page, login_in_browser, sample_content, inline_worker
):
    """The seed's exercise is graded by running the program, so each check really runs."""
    login_in_browser(make_user("ada"))
    page.goto(SEED + "#exercise-kv-cache-vram-order")
    region = page.locator("#exercise-kv-cache-vram-order-practice")
    expect(region).to_have_class(re.compile("has-script"))
    check = region.get_by_role("button", name="Check")
    help_button = region.get_by_role("button", name="Help me")

    for n in (1, 2, 3):
        expect(help_button).to_have_count(0)
        check.click()
        expect(region.locator(".ordering-feedback")).to_contain_text(f"Check {n}: not yet.")
        expect(region.locator(".is-first-wrong .line-mark")).to_have_text(
            re.compile("Move this line")
        )
    # 2 distractors to take away, then 7 lines to fix, one per use.
    for taken in ("1 line", "2 lines"):
        help_button.click()
        # Said once, and focused so that it is read out.
        expect(region.get_by_text("Help took away")).to_have_count(1)
        expect(region.locator(".ordering-removed")).to_contain_text(taken)
        expect(region.locator(".ordering-removed")).to_be_focused()
    for fixed in range(1, 8):
        help_button.click()
        expect(region.locator(".is-fixed")).to_have_count(fixed)
    expect(help_button).to_have_count(0)

    check.click()
    expect(region.locator(".ordering-feedback")).to_contain_text("Solved on check 4")
