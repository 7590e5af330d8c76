"""A teacher brings a Moodle XML bank into a lesson from its admin page, in a real browser
(the file chosen in the form, Check, then Import), at desktop and phone width."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from course.models import Block
from tests.factories import make_admin, make_lesson

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
BANK = Path(__file__).resolve().parents[1] / "course" / "banks" / "bank.xml"
SHOTS = os.environ.get("SCREENSHOTS")  # a folder to keep screenshots in, for looking at them


@pytest.mark.parametrize("width", [1280, 390])
def test_a_teacher_checks_a_bank_then_imports_it_into_a_lesson(page, login_in_browser, width):
    lesson = make_lesson(title="Quiz")
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(make_admin())
    page.goto(f"/admin/course/lesson/{lesson.pk}/change/")
    page.get_by_role("link", name="Import questions").click()
    page.get_by_label("Question bank").set_input_files(str(BANK))
    page.get_by_role("button", name="Check").click()
    expect(page.get_by_role("heading", name="6 questions would be brought over")).to_be_visible()
    expect(page.get_by_role("cell", name="Parsnip has no matching questions yet")).to_be_visible()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/bank-check-{width}.png", full_page=True)
    assert not Block.objects.filter(lesson=lesson).exists()
    page.get_by_label("Question bank").set_input_files(str(BANK))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Added 6 questions after the lesson's blocks.")).to_be_visible()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/bank-imported-{width}.png")
    assert list(
        Block.objects.filter(lesson=lesson).order_by("position").values_list("kind", flat=True)
    ) == [
        "choice",
        "checkboxes",
        "checkboxes",
        "choice",
        "number",
        "blanks",
    ]
