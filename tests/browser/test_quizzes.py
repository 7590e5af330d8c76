"""A quiz in the system Chromium: a student takes a timed quiz (answers saved as they are
given, the countdown from the server's clock sends the form at zero and the attempt is
submitted), then their teacher sees the score; at desktop and phone width."""

import os
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.quiz_world import make_quiz, quiz_lesson
from tutor.quizzes.models import QuizAttempt

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("PARSNIP_SCREENSHOTS")
WIDTHS = [1280, 390]


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def fits_the_width(page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


@pytest.mark.parametrize("width", WIDTHS)
def test_a_student_takes_a_timed_quiz_and_the_teacher_sees_the_score(page, login_in_browser, live_server, width):
    student, teacher = make_user("ada"), make_teacher("tess")
    cohort = make_cohort(teacher, students=[student])
    lesson, questions = quiz_lesson()
    quiz = make_quiz(cohort, lesson, time_limit=5, attempts_allowed=1)
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(student)

    page.goto(lesson.get_absolute_url())
    expect(page.locator(".quiz-part").first).to_contain_text("Part of your quiz")
    page.get_by_role("link", name="Take the quiz").click()
    expect(page.locator(".quiz-facts")).to_contain_text("5 minutes")
    fits_the_width(page)
    shot(page, f"quiz-start-{width}")
    page.get_by_role("button", name="Start the quiz").click()

    choice, number = questions["choice"], questions["number"]
    expect(page.locator(".quiz-countdown")).to_contain_text("left")
    page.locator(f"#quiz-q{choice.pk}").get_by_label("llama.cpp").check()
    expect(page.locator(f"#quiz-q{choice.pk}-saved")).to_contain_text("Saved at")
    page.locator(f"#quiz-q{number.pk}").get_by_label("Your answer").fill("12.5")
    page.locator(f"#quiz-q{number.pk}").get_by_label("Your answer").press("Tab")  # a change saves it
    expect(page.locator(f"#quiz-q{number.pk}-saved")).to_contain_text("Saved at")
    fits_the_width(page)
    shot(page, f"quiz-attempt-{width}")

    # The server's clock says the attempt ends in a few seconds: the countdown reaches zero
    # and sends the form, and the server submits it.
    attempt = QuizAttempt.objects.get()
    QuizAttempt.objects.filter(pk=attempt.pk).update(ends_at=timezone.now() + timedelta(seconds=3))
    page.reload()
    expect(page.locator(".quiz-outcome")).to_contain_text("Score: 50%", timeout=20_000)
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 0.5
    fits_the_width(page)
    shot(page, f"quiz-results-{width}")

    login_in_browser(teacher)
    page.goto(f"/classes/{cohort.pk}/assignments/{quiz.pk}/")
    row = page.get_by_role("row", name="ada")
    expect(row).to_contain_text("50%")
    expect(row).to_contain_text("1 of 1")
    # The item analysis fits the page: on a phone each question reads as a card, with the
    # options chosen in sight rather than past the right edge of a table.
    analysis = page.locator("#quiz-analysis .table-scroll")
    assert analysis.evaluate("box => box.scrollWidth <= box.clientWidth")
    options = page.locator(".quiz-analysis .option-shares").first
    box = options.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    fits_the_width(page)
    shot(page, f"quiz-teacher-{width}")


def test_the_confirm_page_counts_down_too_and_submits_at_zero(page, login_in_browser):
    student = make_user("ada")
    cohort = make_cohort(make_teacher("tess"), students=[student])
    lesson, questions = quiz_lesson()
    quiz = make_quiz(cohort, lesson, time_limit=5)
    login_in_browser(student)
    page.goto(f"/quizzes/{quiz.pk}/")
    page.get_by_role("button", name="Start the quiz").click()
    page.locator(f"#quiz-q{questions['choice'].pk}").get_by_label("llama.cpp").check()
    expect(page.locator(f"#quiz-q{questions['choice'].pk}-saved")).to_contain_text("Saved at")
    page.get_by_role("button", name="Save and submit…").click()
    expect(page.locator(".quiz-countdown")).to_contain_text("left")
    # The learner hesitates on "Submit?" until the server's time is up: the page submits.
    attempt = QuizAttempt.objects.get()
    QuizAttempt.objects.filter(pk=attempt.pk).update(ends_at=timezone.now() + timedelta(seconds=3))
    page.reload()
    expect(page.locator(".quiz-outcome")).to_contain_text("Score: 25%", timeout=20_000)
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 0.25  # the one right answer saved before


def test_feedback_at_once_checks_one_question_in_place_with_the_keyboard(page, login_in_browser):
    from tutor.assignments.models import Assignment

    student = make_user("ada")
    cohort = make_cohort(make_teacher("tess"), students=[student])
    lesson, questions = quiz_lesson()
    quiz = make_quiz(cohort, lesson, feedback=Assignment.Feedback.AT_ONCE)
    login_in_browser(student)
    page.goto(f"/quizzes/{quiz.pk}/")
    page.get_by_role("button", name="Start the quiz").click()
    choice = questions["choice"]
    region = page.locator(f"#quiz-q{choice.pk}")
    region.get_by_label("vLLM").focus()
    page.keyboard.press("Space")
    region.get_by_role("button", name="Check this answer").focus()
    page.keyboard.press("Enter")
    feedback = page.locator(f"#quiz-q{choice.pk} .question-feedback")
    expect(feedback).to_contain_text("Not right.")
    expect(feedback).to_be_focused()
    expect(page.locator(f"#quiz-q{choice.pk}")).to_contain_text("Right answer")
    expect(page.locator(f"#quiz-q{choice.pk}").get_by_label("llama.cpp")).to_be_disabled()  # final
    expect(page.locator(f"#quiz-q{questions['number'].pk}")).not_to_contain_text("12.5")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_time_left_stays_in_sight_down_the_whole_quiz(page, login_in_browser, width):
    student = make_user("ada")
    cohort = make_cohort(make_teacher("tess"), students=[student])
    lesson, _questions = quiz_lesson()
    quiz = make_quiz(cohort, lesson, time_limit=20)
    page.set_viewport_size({"width": width, "height": 600})
    login_in_browser(student)
    page.goto(f"/quizzes/{quiz.pk}/")
    page.get_by_role("button", name="Start the quiz").click()
    expect(page.locator(".quiz-countdown")).to_contain_text("left")
    # At the last question, by the Submit button, the time left is still at the top of the window.
    page.get_by_role("button", name="Save and submit…").scroll_into_view_if_needed()
    timer = page.locator(".quiz-timer").bounding_box()
    assert 0 <= timer["y"] <= 10


@pytest.mark.parametrize("width", WIDTHS)
def test_a_teacher_sets_a_quiz_drawn_by_topic_and_a_student_takes_it(page, login_in_browser, live_server, width):
    from tests.factories import make_course, make_lesson
    from tests.tutor.question_world import make_question

    student, teacher = make_user("ada"), make_teacher("tess")
    cohort = make_cohort(teacher, students=[student])
    course = make_course(title="Local models")
    first, second = make_lesson(course, title="First steps"), make_lesson(course, title="Memory")
    pool = [make_question("choice", lesson, key=f"memory-{n}", title=f"Memory {n}", topics=["memory"])
            for n, lesson in enumerate([first, first, second, second])]
    make_question("choice", second, key="speed", title="Speed", topics=["speed"])
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(teacher)

    page.goto(f"/classes/{cohort.pk}/assignments/new/")
    page.get_by_label("Lesson", exact=True).select_option(label="Local models · First steps")
    page.get_by_label("Give its questions as a quiz").check()
    draw = page.locator(".assignment-draw")
    expect(draw).to_contain_text("memory (4 questions)")
    draw.get_by_label("Questions to draw").fill("3")
    draw.get_by_label("memory", exact=False).check()
    fits_the_width(page)
    shot(page, f"quiz-draw-form-{width}")
    page.get_by_role("button", name="Set it").click()
    expect(page.locator("main")).to_contain_text("Each attempt draws 3 questions at random from the course’s questions on memory")
    shot(page, f"quiz-draw-assignment-{width}")

    login_in_browser(student)
    # A question of the pool, on its own lesson's page, belongs to the quiz while it runs.
    page.goto(second.get_absolute_url())
    expect(page.locator(".quiz-part")).to_have_count(2)  # the pool's two questions here, not "Speed"
    expect(page.locator(".quiz-part").first).to_contain_text("Part of your quiz")
    page.locator(".quiz-part").first.get_by_role("link", name="Go to the quiz").click()
    expect(page.locator(".quiz-facts")).to_contain_text("3")
    page.get_by_role("button", name="Start the quiz").click()
    attempt = QuizAttempt.objects.get()
    assert len(attempt.order) == 3 and set(attempt.order) <= {block.pk for block in pool}
    for pk in attempt.order:
        page.locator(f"#quiz-q{pk}").get_by_label("llama.cpp").check()
        expect(page.locator(f"#quiz-q{pk}-saved")).to_contain_text("Saved at")
    fits_the_width(page)
    shot(page, f"quiz-draw-attempt-{width}")
    page.reload()  # the same questions, in the same order
    assert [int(i.removeprefix("quiz-q")) for i in page.locator("[id^=quiz-q]:not([id$=-saved])").evaluate_all(
        "nodes => nodes.map(n => n.id)") if i.removeprefix("quiz-q").isdigit()] == attempt.order
    page.get_by_role("button", name="Save and submit…").click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator(".quiz-outcome")).to_contain_text("Score: 100%")

    login_in_browser(teacher)
    page.goto(f"/classes/{cohort.pk}/assignments/")
    page.get_by_role("link", name="First steps").click()
    row = page.get_by_role("row", name="ada")
    expect(row).to_contain_text("100%")
    # Item analysis: every question of the pool, each over the attempts that drew it.
    expect(page.locator("#quiz-analysis")).to_contain_text("Memory 3")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_fill_in_the_code_question_is_checked_at_once_by_the_worker(page, login_in_browser, inline_worker,
                                                                       settings, width):
    from tests.tutor.question_world import make_question
    from tutor.assignments.models import Assignment

    settings.RUN_WAIT_SECONDS = 0  # the check answers before the worker is done: the page asks again
    student = make_user("ada")
    cohort = make_cohort(make_teacher("tess"), students=[student])
    lesson, questions = quiz_lesson()
    code = make_question("code_blanks", lesson, key="q-code", title="Fill the program")
    quiz = make_quiz(cohort, lesson, blocks=[questions["choice"], code], feedback=Assignment.Feedback.AT_ONCE)
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(student)
    page.goto(f"/quizzes/{quiz.pk}/")
    page.get_by_role("button", name="Start the quiz").click()

    region = page.locator(f"#quiz-q{code.pk}")
    expect(region.get_by_role("group", name="Fill in the blanks in the program")).to_be_visible()
    expect(region.locator(".code-blanks-expected")).to_contain_text("13.0 GB")
    region.get_by_label("Blank 1").fill("16")
    region.get_by_label("Blank 2").fill("'13b'")
    region.get_by_label("Blank 2").press("Tab")  # a change saves it; nothing tells whether it is right
    expect(page.locator(f"#quiz-q{code.pk}-saved")).to_contain_text("Saved at")
    expect(region).not_to_contain_text("Not right")
    fits_the_width(page)
    shot(page, f"quiz-code-blanks-{width}")

    region.get_by_role("button", name="Check this answer").click()
    feedback = page.locator(f"#quiz-q{code.pk} .question-feedback")
    expect(feedback).to_contain_text("Not right.", timeout=20_000)
    expect(feedback.locator(".code-blanks-output")).to_contain_text("26.0 GB")
    expect(page.locator(f"#quiz-q{code.pk}")).to_contain_text("(a right fill: 8)")  # checked: final
    expect(page.locator(f"#quiz-q{code.pk}").get_by_label("Blank 1")).to_be_disabled()
    fits_the_width(page)
    shot(page, f"quiz-code-blanks-checked-{width}")


def test_a_program_still_running_at_submit_is_scored_on_the_results_page(page, login_in_browser, inline_worker,
                                                                         settings):
    from tests.tutor.question_world import make_question

    settings.RUN_WAIT_SECONDS = 0  # submitted before the worker is done: the results ask again
    student = make_user("ada")
    cohort = make_cohort(make_teacher("tess"), students=[student])
    lesson, _questions = quiz_lesson()
    code = make_question("code_blanks", lesson, key="q-code", title="Fill the program")
    quiz = make_quiz(cohort, lesson, blocks=[code], attempts_allowed=1)
    login_in_browser(student)
    page.goto(f"/quizzes/{quiz.pk}/")
    page.get_by_role("button", name="Start the quiz").click()
    region = page.locator(f"#quiz-q{code.pk}")
    region.get_by_label("Blank 1").fill("2 * 4")
    region.get_by_label("Blank 2").fill("'13b'")
    page.get_by_role("button", name="Save and submit…").click()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator(".quiz-outcome")).to_contain_text("Score: 100%", timeout=20_000)
    expect(page.locator(f"#quiz-q{code.pk} .question-feedback")).to_contain_text("Right.")
    assert QuizAttempt.objects.get().score == 1.0
