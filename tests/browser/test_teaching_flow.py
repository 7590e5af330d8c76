"""A whole class, in the system Chromium: a teacher creates a class, a student joins and
completes the seed lesson (snippets, ordering and the code exercise), and the teacher sees it in the grid, in the item analysis and
in the CSV. Runs use the `inline_worker` fixture (see tests/browser/conftest.py)."""

import csv
import io

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from course.kinds.code_exercise import CodeExercise
from course.kinds.ordering import OrderingExercise
from course.kinds.snippet import Snippet
from course.models import Lesson
from tests.factories import line_keys_by_token, make_teacher, make_user
from tutor.models import Cohort, LessonProgress

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"


def logged_in(browser, live_server, username: str):
    context = browser.new_context(base_url=live_server.url, accept_downloads=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    return page, errors


def predict_every_snippet(page):
    for snippet in Snippet.objects.filter(block__lesson__slug="optimising-speed-and-memory"):
        practice = page.locator(f"#snippet-{snippet.block.key}-practice")
        practice.get_by_label("What will it print?").fill(snippet.expected_output)
        practice.get_by_role("button", name="Reveal").click()
        answer = page.locator(f"#snippet-{snippet.block.key}-answer")
        expect(answer.locator(".verdict")).to_contain_text("Spot on")


def solve_the_code_exercise(page):
    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    panel = page.locator("#exercise-write-kv-cache-vram")
    panel.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(exercise.solution)
    panel.get_by_role("button", name="Test it").click()
    expect(panel).to_contain_text("Every test passes")


def solve_the_ordering_by_clicks(page):
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    region = page.locator("#exercise-kv-cache-vram-order-practice")
    correct = list(
        exercise.lines.filter(position__isnull=False)
        .order_by("position")
        .values_list("key", flat=True)
    )

    keys = line_keys_by_token()  # the page names lines by the learner's tokens
    token_of = {key: token for token, key in keys.items() if token in region.inner_html()}

    def shown():
        return [
            keys[token]
            for token in region.locator('[data-area="order"] > .ordering-line').evaluate_all(
                "lines => lines.map(line => line.dataset.line)"
            )
        ]

    for key in [key for key in shown() if key not in correct]:
        region.locator(f'.ordering-line[data-line="{token_of[key]}"] .tool-leave-out').click()
        expect(
            region.locator(f'[data-area="unused"] .ordering-line[data-line="{token_of[key]}"]')
        ).to_have_count(1)
    for target, key in enumerate(correct):
        while shown().index(key) > target:
            before = shown().index(key)
            region.locator(f'.ordering-line[data-line="{token_of[key]}"] .line-button').click()
            expect(
                region.locator('[data-area="order"] > .ordering-line').nth(before - 1)
            ).to_have_attribute("data-line", token_of[key])
    region.get_by_role("button", name="Check").click()
    expect(region.locator(".ordering-feedback")).to_contain_text("Solved")


def test_teacher_sees_a_student_complete_the_seed_lesson(
    browser, live_server, sample_content, inline_worker
):
    make_teacher("tess")
    student = make_user("sam")

    teacher, teacher_errors = logged_in(browser, live_server, "tess")
    teacher.goto("/classes/")
    teacher.get_by_label("New class").fill("Tuesday group")
    teacher.get_by_role("button", name="Create class").click()
    code = teacher.locator(".join-code").inner_text().strip()
    assert len(code) >= 6

    learner, learner_errors = logged_in(browser, live_server, "sam")
    learner.goto("/classes/")
    learner.locator("#join-code").fill(code.lower())
    learner.get_by_role("button", name="Join").click()
    expect(learner.get_by_text("You joined “Tuesday group”")).to_be_visible()

    learner.goto(SEED)
    predict_every_snippet(learner)
    solve_the_ordering_by_clicks(learner)
    solve_the_code_exercise(learner)
    learner.reload()
    expect(learner.locator(".lesson-progress")).to_contain_text("Complete")
    assert LessonProgress.objects.get(
        user=student, lesson__slug="optimising-speed-and-memory"
    ).is_complete

    teacher.reload()
    grid = teacher.locator("table").first
    expect(grid).to_contain_text("sam")
    expect(grid).to_contain_text("100%")

    class_url = teacher.url
    cohort = Cohort.objects.get(name="Tuesday group")
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    teacher.goto(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    analysis = teacher.locator("main")
    expect(analysis).to_contain_text("Compare backend latency across hardware.")
    expect(analysis).to_contain_text("100%")
    expect(analysis).to_contain_text("Now write it yourself")  # the code exercise, solved
    expect(analysis.locator("#code-exercise-write-kv-cache-vram")).to_be_visible()
    teacher.goto(reverse("tutor:class_student", args=[cohort.pk, student.pk]))
    expect(teacher.locator(".event-submission")).to_contain_text("All tests pass")

    teacher.goto(class_url)
    with teacher.expect_download() as download_info:
        teacher.get_by_role("link", name="Download progress (CSV)").click()
    rows = list(csv.reader(io.StringIO(open(download_info.value.path(), encoding="utf-8").read())))
    header, *body = rows
    assert any("Optimising speed and memory" in column for column in header)
    sam = next(row for row in body if "sam" in row)
    assert sam[[i for i, c in enumerate(header) if "Optimising speed and memory" in c][0]] == "100"

    for page in (teacher, learner):
        page.context.close()
    assert teacher_errors == [] and learner_errors == []
