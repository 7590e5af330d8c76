"""A right-to-left language (Arabic here, added for the test without a translation of
Parsnip's own words) mirrors the pages: the navigation starts on the right, prose reads right
to left, while code, outputs, the prediction box and the ordering lines stay left to right;
nothing runs past the screen's edge, at desktop and at phone width."""

import os
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import make_cohort, make_prediction, make_run, make_teacher, make_user
from tests.tutor.quiz_world import make_quiz, quiz_lesson
from tests.tutor.stepping_data import ALIASING_CODE, aliasing_trace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("PARSNIP_SCREENSHOTS")
SEED = "/learn/local-models/optimising-speed-and-memory/"
WIDTHS = [1280, 390]
# What reads left to right on any page: Python, what it prints, what a learner says it prints.
LEFT_TO_RIGHT = (
    ".code-block pre, pre.output, .prediction-text, .ordering-line, .cm-editor, .code-input, p code"
)


@pytest.fixture
def arabic(settings):
    settings.LANGUAGES = [*settings.LANGUAGES, ("ar", "العربية")]


def shot(page, name: str, *, full_page: bool = True) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=full_page)


def mirrored(page) -> None:
    """The page is right to left, its navigation starts at the right and it fits the width."""
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    width = page.evaluate("window.innerWidth")
    brand = page.locator(".site-nav .brand").bounding_box()
    first_section = page.locator(".site-nav .sections li").first.bounding_box()
    assert brand["x"] + brand["width"] > width * 0.75, brand
    assert first_section["x"] + first_section["width"] > width / 2, first_section
    account = page.locator(".site-nav .account").bounding_box()
    assert account["x"] < width / 2, account
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0


def left_to_right(page, selector: str = LEFT_TO_RIGHT) -> int:
    """Every element the selector finds reads left to right; how many there are."""
    directions = page.locator(selector).evaluate_all(
        "(nodes) => nodes.map((node) => getComputedStyle(node).direction)"
    )
    assert set(directions) <= {"ltr"}, directions
    return len(directions)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_lesson_and_my_progress_mirror_in_arabic_and_code_stays_left_to_right(
    arabic, page, login_in_browser, sample_content, width
):
    from course.kinds.snippet import Snippet

    learner = make_user("ada")
    make_prediction(learner, Snippet.objects.get(block__key="backend-latency"))
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(learner)
    page.goto(SEED)
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    # The language switch offers the added language at once.
    page.locator("#language-choice").select_option("ar")
    page.locator(".language-switch button").click()
    mirrored(page)
    assert page.url.endswith(SEED)
    # Parsnip's own words read right to left; the lesson, not translated into Arabic, is
    # shown in English (lang="en") and reads left to right inside the mirrored page.
    direction = "(node) => getComputedStyle(node).direction"
    assert page.locator(".site-footer p").first.evaluate(direction) == "rtl"
    assert page.locator("#lesson-title").get_attribute("lang") == "en"
    assert page.locator("#lesson-title").evaluate(direction) == "ltr"
    assert page.locator(".prose p").first.evaluate(direction) == "ltr"
    assert left_to_right(page, ".code-block pre") >= 2
    assert left_to_right(page, ".ordering-line") >= 5
    assert left_to_right(page) > 5
    # A code block's text starts at its left edge, as Python's indentation needs.
    code = page.locator(".code-block pre").first
    box, text = (
        code.bounding_box(),
        code.evaluate(
            "(pre) => { const r = document.createRange(); r.selectNodeContents(pre);"
            " const b = r.getClientRects()[0]; return {x: b.x}; }"
        ),
    )
    assert text["x"] - box["x"] < 40
    # The breadcrumbs start on the right, as the prose does.
    crumbs = page.locator(".breadcrumbs a").first.bounding_box()
    assert crumbs["x"] + crumbs["width"] > width / 2
    shot(page, f"rtl-lesson-{width}")
    page.locator("#snippet-backend-latency-practice").scroll_into_view_if_needed()
    shot(page, f"rtl-lesson-practice-{width}", full_page=False)

    page.goto("/progress/")
    mirrored(page)
    shot(page, f"rtl-progress-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_quiz_mirrors_in_arabic(arabic, page, login_in_browser, live_server, width):
    student, teacher = make_user("ada"), make_teacher("tess")
    lesson, _questions = quiz_lesson()
    quiz = make_quiz(make_cohort(teacher, students=[student]), lesson, time_limit=5)
    page.set_viewport_size({"width": width, "height": 900})
    page.context.set_extra_http_headers({"Accept-Language": "ar"})
    login_in_browser(student)
    page.goto(f"/quizzes/{quiz.pk}/")
    mirrored(page)
    shot(page, f"rtl-quiz-start-{width}")
    page.locator("form[action$='/start/'] button[type=submit]").click()
    expect(page.locator(".quiz-countdown")).to_be_visible()
    mirrored(page)
    assert (
        page.locator(".quiz-countdown").evaluate("(node) => getComputedStyle(node).direction")
        == "rtl"
    )
    left_to_right(page)
    shot(page, f"rtl-quiz-attempt-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_step_through_mirrors_in_arabic_and_its_code_and_drawing_stay_left_to_right(
    arabic, page, login_in_browser, width
):
    from tutor.models import Run
    from tutor.practice.stepping.models import Stepping, Trace

    learner = make_user("ada")
    trace = Trace(
        code=ALIASING_CODE, stdin="", run=make_run(code=ALIASING_CODE, purpose=Run.Purpose.TRACE)
    )
    trace.keep(aliasing_trace())
    trace.save()
    stepping = Stepping.objects.create(user=learner, trace=trace, origin=Stepping.Origin.SNIPPET)
    page.set_viewport_size({"width": width, "height": 900})
    page.context.set_extra_http_headers({"Accept-Language": "ar"})
    login_in_browser(learner)
    page.goto(f"/trace/{stepping.pk}/step/3/")
    mirrored(page)
    assert left_to_right(page, ".code-lines, .memory") == 2
    # The drawing's frames sit left of its objects, as its arrows go (a phone stacks them).
    frames = page.locator(".memory-frames").bounding_box()
    objects = page.locator("#object-1").bounding_box()
    if width > 800:
        assert frames["x"] + frames["width"] <= objects["x"]
    shot(page, f"rtl-step-{width}")
    # The step bar is mirrored, Next on the left: so is the keyboard, ← on and → back.
    forward = page.locator("#step-next").bounding_box()
    back = page.locator("#step-previous").bounding_box()
    assert forward["x"] < back["x"], (forward, back)
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"/step/4/$"))
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"/step/3/$"))


# A teacher's pages: what stays left to right there besides the learner's: the code and
# answers of the item analysis, the replay's code, the over-time chart's dates (its time axis
# runs left to right, as its drawing does).
TEACHER_LEFT_TO_RIGHT = ".answer-text, .code-plain, .trail-code, .over-time figcaption, #join-link"


@pytest.fixture
def a_class_at_work(sample_content):
    """A teacher's class in the seed lesson: sam predicted a snippet wrong, failed the
    ordering three times and raised a hand (stuck, on the live view); ada typed and pasted
    into the code exercise and ran it (a replay); ada and cy completed the lesson, days apart."""
    from course.kinds.ordering import OrderingExercise
    from course.kinds.snippet import Snippet
    from course.models import Block, Lesson
    from tests.factories import make_lesson_progress, make_ordering_attempt
    from tutor.live import actions as live
    from tutor.practice.ordering.models import OrderingAttempt
    from tutor.trail import actions as trail

    teacher, sam, ada, cy = (
        make_teacher("tess"),
        make_user("sam"),
        make_user("ada"),
        make_user("cy"),
    )
    cohort = make_cohort(teacher, students=[sam, ada, cy], name="Year 10")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    snippet = Snippet.objects.get(block__key="backend-latency")
    make_prediction(sam, snippet, text="a wrong guess\nover two lines", verdict="wrong")
    make_prediction(ada, snippet)
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    for _ in range(3):
        make_ordering_attempt(sam, exercise, verdict=OrderingAttempt.Verdict.WRONG)
        live.record(user=sam, block=exercise.block, what="checked the order — wrong", failed=True)
    live.raise_hand(user=sam, lesson=lesson, block=exercise.block)
    make_lesson_progress(sam, lesson, snippets_predicted=1)
    make_lesson_progress(
        ada,
        lesson,
        snippets_predicted=2,
        exercises_solved=1,
        completed_at=timezone.now() - timedelta(days=2),
    )
    make_lesson_progress(  # cy completed it days before ada: a line over time
        cy,
        lesson,
        snippets_predicted=2,
        exercises_solved=1,
        completed_at=timezone.now() - timedelta(days=5),
    )
    block = Block.objects.get(key="write-kv-cache-vram")
    start = trail.original_code(block)
    typed = start + "\n# my own line, typed\n"
    pasted = typed + "def helper(values):\n    return sum(values) * 2\n"
    trail.record_edits(
        user=ada,
        block=block,
        edits=[(2000, "e", len(start), 0, "\n# my own line, typed\n")],
        code=typed,
        base=start,
    )
    trail.record_edits(
        user=ada,
        block=block,
        edits=[(0, "p", len(typed), 0, pasted[len(typed) :])],
        code=pasted,
    )
    trail.record_moment(user=ada, block=block, what=trail.RUN, code=pasted)
    return {
        "teacher": teacher,
        "cohort": cohort,
        "lesson": lesson,
        "sam": sam,
        "ada": ada,
        "block": block,
    }


@pytest.mark.parametrize("width", WIDTHS)
def test_a_teachers_pages_mirror_in_arabic_and_code_stays_left_to_right(
    arabic, page, login_in_browser, a_class_at_work, width
):
    from django.urls import reverse

    world = a_class_at_work
    cohort, lesson, ada = world["cohort"], world["lesson"], world["ada"]
    page.set_viewport_size({"width": width, "height": 900})
    page.context.set_extra_http_headers({"Accept-Language": "ar"})
    login_in_browser(world["teacher"])

    page.goto(reverse("tutor:class_detail", args=[cohort.pk]))
    mirrored(page)
    left_to_right(page, TEACHER_LEFT_TO_RIGHT)
    # The grid's first column, the students' names, sticks to the right, where rows start.
    grid = page.locator(".progress-grid").bounding_box()
    name = page.locator(".progress-grid tbody .student-col").first.bounding_box()
    assert name["x"] + name["width"] > grid["x"] + grid["width"] - 2, (name, grid)
    shot(page, f"rtl-teacher-class-{width}")

    page.goto(reverse("tutor:live_view", args=[cohort.pk, lesson.pk]))
    mirrored(page)
    expect(page.locator(".hand-queue")).to_contain_text("sam")
    expect(page.locator(".live-table tr.is-stuck")).to_contain_text("sam")
    # The stuck student's mark runs down the row's start: the right edge.
    stripe = page.locator(".live-table tr.is-stuck > :first-child").evaluate(
        "(cell) => getComputedStyle(cell).boxShadow"
    )
    if width > 800:
        assert "-4px 0px 0px" in stripe, stripe
    shot(page, f"rtl-teacher-live-{width}")

    page.goto(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    mirrored(page)
    # The chart's time runs left to right, as drawn: its first date under its left end.
    start, end = (
        page.locator(".over-time figcaption > span").first.bounding_box(),
        page.locator(".over-time figcaption > span").last.bounding_box(),
    )
    assert start["x"] + start["width"] <= end["x"], (start, end)
    page.locator(".item-code > summary").first.click()
    assert left_to_right(page, ".answer-text") >= 1  # sam's wrong prediction
    assert left_to_right(page, ".item-code .code-block pre, .item-code pre.output") >= 2
    assert left_to_right(page, TEACHER_LEFT_TO_RIGHT) >= 1
    shot(page, f"rtl-teacher-lesson-{width}")

    page.goto(reverse("tutor:class_student", args=[cohort.pk, ada.pk]))
    mirrored(page)
    shot(page, f"rtl-teacher-student-{width}")

    page.goto(reverse("tutor:class_trail", args=[cohort.pk, ada.pk, world["block"].pk]) + "?step=2")
    mirrored(page)
    assert left_to_right(page, ".trail-code") == 1
    # The code's lines start at its left edge, their numbers first.
    code = page.locator(".trail-code").bounding_box()
    number = page.locator(".trail-line-number").first.bounding_box()
    assert number["x"] - code["x"] < 30, (number, code)
    shot(page, f"rtl-teacher-replay-{width}")
    # The replay's links are mirrored, Next on the left: so is the keyboard, ← on and → back.
    expect(page.locator("#replay-step h2")).to_contain_text("Step 2 of")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay-step h2")).to_contain_text("Step 3 of")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-step h2")).to_contain_text("Step 2 of")


def test_the_lesson_admin_page_mirrors_in_arabic_and_its_code_stays_left_to_right(
    arabic, page, login_in_browser, sample_content
):
    from course.models import Lesson
    from tests.factories import make_admin

    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.context.set_extra_http_headers({"Accept-Language": "ar"})
    login_in_browser(make_admin())
    page.goto(f"/admin/course/lesson/{lesson.pk}/change/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    # A folded block's triangle points where the page reads from.
    marker = page.locator(".block-fold:not([open]) > summary .inline_label").first
    assert marker.evaluate("(node) => getComputedStyle(node, '::before').content") == '"◂ "'
    # The list of blocks starts on the right.
    links = page.locator(".lesson-block-links").bounding_box()
    first = page.locator(".lesson-block-links li a").first.bounding_box()
    assert first["x"] + first["width"] > links["x"] + links["width"] / 2, (first, links)
    page.locator(".block-fold > summary").first.click()  # any block open: its fields shown
    page.get_by_role("button", name="Open every block").click()
    code = "textarea[name$='-snippet-0-code']:visible, textarea.code-field:visible"
    expect(page.locator(code).first).to_be_visible()
    assert left_to_right(page, code) >= 2
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    shot(page, "rtl-teacher-admin-lesson-1280", full_page=False)
    page.locator(code).first.scroll_into_view_if_needed()
    shot(page, "rtl-teacher-admin-lesson-code-1280", full_page=False)
