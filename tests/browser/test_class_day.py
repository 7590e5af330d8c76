"""A class day, in the system Chromium at a phone's and a laptop's width: what only a browser
shows of issue 39 (the Raise-hand bar over the content, and the item it names)."""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from course.models import Lesson
from tests.factories import make_cohort, make_teacher, make_user
from tutor.live.models import RaisedHand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"


def page_of(browser, live_server, user, *, width=1280, height=800):
    """A browser tab logged in as `user` (a session cookie from the test client); console
    errors (a CSP refusal among them) are kept in `page.errors`."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": height}
    )
    context.set_default_timeout(15_000)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    return page


def bar_top(page) -> float:
    return page.locator("#raise-hand").bounding_box()["y"]


def bottom_of(page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    return box["y"] + box["height"]


@pytest.mark.parametrize("width", [390, 1280])
def test_the_raise_hand_bar_never_covers_the_lesson(browser, live_server, sample_content, width):
    """Whatever is scrolled or focused into view stops above the bar, the page's end too,
    with the hand down and up (the bar is taller then)."""
    student = make_user("sam")
    make_cohort(make_teacher(), students=[student])
    page = page_of(browser, live_server, student, width=width)
    page.goto(SEED)
    expect(page.locator("#raise-hand")).to_be_visible()
    for raised in (False, True):
        if raised:
            page.get_by_role("button", name="Raise hand").click()
            expect(page.get_by_role("button", name="Hand raised — lower it")).to_be_visible()
        # A panel brought into view from below (as a swap or a link does) ends above the bar.
        for selector in ("#snippet-kv-cache-vram-prediction", "#exercise-kv-cache-vram-order"):
            page.locator(selector).evaluate("element => element.scrollIntoView({block: 'end', behavior: 'instant'})")
            assert bottom_of(page, selector) <= bar_top(page) + 0.5, (selector, raised)
        # The page's last line is above the bar once scrolled to the end.
        page.evaluate("window.scrollTo({top: document.documentElement.scrollHeight, behavior: 'instant'})")
        assert bottom_of(page, ".lesson-pager") <= bar_top(page) + 0.5, raised
        page.screenshot(path=f"/tmp/cd/hand-bar-{width}-{'up' if raised else 'down'}.png")
    assert page.errors == []


def test_the_hand_is_about_the_item_the_student_last_worked_on(browser, live_server, sample_content):
    """The item chosen at page load follows the student: typing a prediction on another
    snippet chooses it, and the teacher's queue names it."""
    student = make_user("sam")
    make_cohort(make_teacher(), students=[student])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    page = page_of(browser, live_server, student, width=390)
    page.goto(SEED)
    about = page.locator("#hand-about")
    expect(about).to_have_value("")
    page.locator("#snippet-kv-cache-vram-prediction").fill("16-bit")
    snippet = lesson.blocks.get(key="kv-cache-vram")
    expect(about).to_have_value(str(snippet.pk))
    page.locator("#snippet-backend-latency-prediction").fill("fast")
    backend = lesson.blocks.get(key="backend-latency")
    expect(about).to_have_value(str(backend.pk))
    page.get_by_role("button", name="Raise hand").click()
    expect(page.locator("#raise-hand-message")).to_contain_text("Compare backend latency")
    assert RaisedHand.objects.get(user=student).block_id == backend.pk
    assert page.errors == []


def test_a_closed_book_laptop_signed_out_by_the_phone_says_why_and_keeps_the_prediction(
    browser, live_server, sample_content
):
    """The laptop's Reveal, after the student signed in on a phone, lands on the log-in page
    saying why; signing in there again brings back the lesson with the typed prediction."""
    from datetime import timedelta

    from django.utils import timezone

    from tutor.assignments.models import Assignment

    student = make_user("sam")
    student.set_password("a long pass phrase")
    student.save()
    cohort = make_cohort(make_teacher(), students=[student])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        opens_at=timezone.now() - timedelta(minutes=5),
        due_at=timezone.now() + timedelta(hours=1),
        closed_book=True,
    )
    laptop = page_of(browser, live_server, student)
    laptop.goto(SEED)
    box = laptop.locator("#snippet-kv-cache-vram-prediction")
    box.fill("16-bit, 1000 units: 16.00 GB")
    phone = page_of(browser, live_server, student, width=390)  # signs in: takes the seat
    phone.goto(SEED)
    laptop.locator("#snippet-kv-cache-vram-practice").get_by_role("button", name="Reveal").click()
    expect(laptop).to_have_url(re.compile("/accounts/login/"))
    expect(laptop.get_by_role("status")).to_contain_text(
        "You were signed out here because you signed in on another device"
    )
    laptop.screenshot(path="/tmp/cd/closed-book-moved-1280.png", full_page=True)
    laptop.get_by_label("Username").fill("sam")
    laptop.get_by_label("Password").fill("a long pass phrase")
    laptop.get_by_role("button", name="Log in").click()
    expect(laptop.locator("#snippet-kv-cache-vram-prediction")).to_have_value(
        "16-bit, 1000 units: 16.00 GB"
    )
    assert [e for e in laptop.errors if "401" not in e and "403" not in e] == []


LONG_PROGRAM = "\n".join(
    ["def fits(size, room):", "    return size <= room", ""]
    + [f"note_{n} = {n}  # a line to read past" for n in range(30)]
    + ['print("fits:", fits(8, 16))', 'print("fits:", fits(32, 16))', ""]
)


@pytest.mark.parametrize("width", [390, 1280])
def test_the_step_bar_stays_in_reach_of_the_line_it_moves(
    browser, live_server, inline_worker, width
):
    """On a phone the current line was 1.5 screens below Next: the bar stays at the top and
    each step brings its line into view under it."""
    from tutor.actions.runs import execute_run
    from tutor.practice.stepping import actions
    from tutor.practice.stepping.models import Stepping

    user = make_user("stepper")
    stepping = actions.start_stepping(
        user=user, code=LONG_PROGRAM, stdin="", origin=Stepping.Origin.OWN
    )
    stepping.trace.refresh_from_db()
    if not stepping.trace.run.is_final:
        execute_run(run_id=stepping.trace.run_id)
    page = page_of(browser, live_server, user, width=width)
    page.goto(f"/trace/{stepping.pk}/step/1/")

    def in_reach():
        nav = page.locator(".step-nav").bounding_box()
        line = page.locator(".code-line.is-current").bounding_box()
        button = page.locator("#step-next").bounding_box()
        height = page.viewport_size["height"]
        assert 0 <= button["y"] and button["y"] + button["height"] <= height
        assert line["y"] >= nav["y"] + nav["height"] - 0.5  # not under the bar
        assert line["y"] + line["height"] <= height

    total = int(page.locator("#step-region").get_attribute("data-total"))
    page.locator("#step-slider-input").fill(str(total - 6))  # the prints at the end
    expect(page.locator("#step-region")).to_have_attribute("data-step", str(total - 6))
    in_reach()
    for _ in range(4):
        number = int(page.locator("#step-region").get_attribute("data-step"))
        page.locator("#step-next").click()
        expect(page.locator("#step-region")).to_have_attribute("data-step", str(number + 1))
        in_reach()
    page.screenshot(path=f"/tmp/cd/step-{width}.png")
    assert page.errors == []


@pytest.mark.parametrize("width", [390, 1280])
def test_prediction_and_output_wrap_and_code_says_there_is_more(
    browser, live_server, sample_content, inline_worker, width
):
    """Side by side, a long output line was cut at `fits: Fals`: now it wraps, whole; code
    keeps its lines and scrolls sideways with a shadow at the edge that hides more."""
    page = page_of(browser, live_server, make_user("reader"), width=width)
    page.goto(SEED)
    said = "16-bit, 1000 units: 16.00 GB and a long guess about whether it fits: False"
    page.locator("#snippet-kv-cache-vram-prediction").fill(said)
    page.locator("#snippet-kv-cache-vram-practice").get_by_role("button", name="Reveal").click()
    answer = page.locator("#snippet-kv-cache-vram-answer")
    expect(answer.locator(".real-output")).to_be_visible()
    for box in (answer.locator(".prediction-said"), answer.locator(".real-output")):
        assert box.evaluate("e => e.scrollWidth <= e.clientWidth"), box
    last = answer.locator(".prediction-said .out-line").first
    expect(last).to_contain_text("fits: False")
    # The end of the line is inside its box: nothing cut off.
    said_box = answer.locator(".prediction-said").bounding_box()
    end = last.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e);"
        " const rects = [...r.getClientRects()]; const l = rects[rects.length - 1];"
        " return l.right; }"
    )
    assert end <= said_box["x"] + said_box["width"]
    page.screenshot(path=f"/tmp/cd/answer-{width}.png", full_page=False)
    # Code too wide for the screen scrolls and shows a shadow cue at its edge.
    wide = page.evaluate(
        "[...document.querySelectorAll('.code-block pre')]"
        ".filter(e => e.scrollWidth > e.clientWidth + 1)"
        ".map(e => getComputedStyle(e).backgroundImage.includes('radial-gradient'))"
    )
    if width == 390:
        assert wide and all(wide)
    assert page.errors == []


def test_a_changed_time_zone_shows_on_the_first_page_not_the_next(
    browser, live_server, sample_content
):
    """The browser moved from Paris to New York: the first page with times already shows
    them in New York's zone (it lagged one page behind)."""
    from datetime import timedelta

    from django.utils import timezone

    from tutor.assignments.models import Assignment

    student = make_user("traveller")
    cohort = make_cohort(make_teacher(), students=[student])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        opens_at=timezone.now() - timedelta(days=1),
        due_at=timezone.now() + timedelta(days=3),
    )
    client = Client()
    client.force_login(student)
    context = browser.new_context(
        base_url=live_server.url, timezone_id="America/New_York", viewport={"width": 1280, "height": 800}
    )
    context.add_cookies(
        [
            {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url},
            {"name": "tz", "value": "Europe/Paris", "url": live_server.url},  # where it was
        ]
    )
    page = context.new_page()
    page.goto(SEED)
    due = page.locator(".lesson-assignment time").first
    expect(due).to_contain_text(re.compile(r"E[SD]T$"))
    assert "tz=America/New_York" in page.evaluate("document.cookie").replace("%2F", "/")
    context.close()


def test_an_inline_style_the_policy_refuses_is_reported_to_the_server(
    browser, live_server, sample_content, caplog
):
    """Refusals were intermittent console errors nobody heard of: the browser now reports
    each one, with what was refused, and the server logs it."""
    import logging

    page = page_of(browser, live_server, make_user("reader"))
    page.goto(SEED)
    with caplog.at_level(logging.WARNING, logger="parsnip.csp"):
        page.evaluate("document.querySelector('h1').setAttribute('style', 'color: red')")
        page.wait_for_timeout(50)
        for _ in range(100):  # the browser sends its report on its own, soon after
            if any(r.name == "parsnip.csp" for r in caplog.records):
                break
            page.wait_for_timeout(100)
    [line] = [r.getMessage() for r in caplog.records if r.name == "parsnip.csp"]
    assert "style-src" in line and "script-sample=color: red" in line
    assert SEED in line


def test_a_swap_never_copies_an_inline_style_the_policy_refuses(
    browser, live_server, inline_worker
):
    """htmx settled a swapped element's old `style` onto the new one (setAttribute: a CSP
    refusal in the console), whenever the old one had a style: a textarea the learner
    resized, a dragged line, a script's CSSOM. Steps swap their region: none now."""
    from tutor.actions.runs import execute_run
    from tutor.practice.stepping import actions
    from tutor.practice.stepping.models import Stepping

    user = make_user("stepper")
    stepping = actions.start_stepping(
        user=user, code=LONG_PROGRAM, stdin="", origin=Stepping.Origin.OWN
    )
    stepping.trace.refresh_from_db()
    if not stepping.trace.run.is_final:
        execute_run(run_id=stepping.trace.run_id)
    page = page_of(browser, live_server, user, width=390)
    page.goto(f"/trace/{stepping.pk}/step/1/")
    # As a resize handle or a drag would: a style set through the CSSOM (which the CSP allows).
    page.evaluate("document.getElementById('step-heading').style.outline = '1px solid red'")
    page.locator("#step-next").click()
    expect(page.locator("#step-region")).to_have_attribute("data-step", "2")
    expect(page.locator("#step-heading")).not_to_have_class(re.compile("htmx-settling"))
    assert [e for e in page.errors if "Content Security Policy" in e] == []


@pytest.mark.parametrize("width", [390, 1280])
def test_an_answer_groups_long_line_wraps_whole_in_the_item_analysis(
    browser, live_server, sample_content, width
):
    """The group's answer and the right one, side by side, cut the differing line at the
    box's edge: it wraps now, and its end (where it differs) is inside the box."""
    from course.kinds.snippet import Snippet
    from tests.factories import make_prediction, make_run
    from tutor.practice.snippet.models import Prediction

    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_run(snippet, purpose="reveal", stdout=snippet.expected_output, stdin=snippet.stdin)
    said = snippet.expected_output.replace(
        "frees VRAM: True", "frees a great deal of VRAM on every card we tried: False"
    )
    teacher = make_teacher("tess")
    students = [make_user(name) for name in ("sam", "sue")]
    cohort = make_cohort(teacher, students=students)
    for student in students:
        make_prediction(student, snippet, text=said, verdict=Prediction.Verdict.WRONG)
    page = page_of(browser, live_server, teacher, width=width)
    page.goto(f"/classes/{cohort.pk}/lessons/{snippet.block.lesson_id}/")
    marked = page.locator(".group-compare .answer-line.is-marked").first
    expect(marked).to_contain_text("every card we tried: False")
    box = page.locator(".group-compare .answer-text").first
    assert box.evaluate("e => e.scrollWidth <= e.clientWidth")
    end = marked.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e);"
        " const rects = [...r.getClientRects()]; return rects[rects.length - 1].right; }"
    )
    frame = box.bounding_box()
    assert end <= frame["x"] + frame["width"]
    marked.scroll_into_view_if_needed()
    page.screenshot(path=f"/tmp/cd/groups-{width}.png")
    assert page.errors == []


@pytest.mark.parametrize("width", [390, 1280])
def test_the_live_view_says_who_is_away_at_both_widths(browser, live_server, sample_content, width):
    """An absent student reads "Away", where they are, not "Stuck", on a phone as on a
    laptop; a snippet is named by its caption."""
    from datetime import timedelta

    from django.urls import reverse
    from django.utils import timezone

    from tests.factories import make_exercise, make_lesson
    from tutor.live import actions
    from tutor.live.models import LessonActivity

    teacher = make_teacher("tess")
    sam, sue = make_user("sam"), make_user("sue")
    cohort = make_cohort(teacher, students=[sam, sue], name="Year 10")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = lesson.blocks.get(key="kv-cache-vram")
    actions.record(user=sam, block=snippet, what="predicted", failed=None)
    actions.record(user=sue, block=snippet, what="predicted", failed=None)
    LessonActivity.objects.filter(lesson=lesson).update(
        acted_at=timezone.now() - timedelta(minutes=11), since=timezone.now() - timedelta(minutes=11)
    )
    elsewhere = make_exercise(make_lesson(title="Loops again"))
    actions.record(user=sam, block=elsewhere.block, what="moved a line", failed=None)
    actions.raise_hand(user=sue, lesson=lesson, block=snippet)
    page = page_of(browser, live_server, teacher, width=width)
    page.goto(reverse("tutor:live_view", args=[cohort.pk, lesson.pk]))
    board = page.locator("#live-board")
    expect(board.get_by_role("row").filter(has_text="sam")).to_contain_text("Away In “Loops again”")
    expect(board.get_by_role("row").filter(has_text="sue")).to_contain_text("Stuck")
    expect(board.locator(".hand-queue")).to_contain_text("about Show how lower KV cache precision")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=f"/tmp/cd/live-{width}.png", full_page=True)
    assert page.errors == []
