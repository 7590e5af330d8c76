import re

import pytest
from playwright.sync_api import expect

from course.models import Block, Lesson, Snippet
from tests.factories import make_admin, make_prediction, make_user
from tutor.models import Prediction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rows(snippet: Snippet) -> tuple:
    lesson = snippet.block.lesson
    return (
        Snippet.objects.filter(pk=snippet.pk).values().get(),
        Lesson.objects.filter(pk=lesson.pk).values().get(),
        list(Block.objects.filter(lesson=lesson).order_by("pk").values()),
        list(Prediction.objects.order_by("pk").values()),
    )


def test_saving_the_seed_snippet_unchanged_in_the_admin_changes_nothing(
    page, login_in_browser, sample_content
):
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    make_prediction(make_user(), snippet)
    before = rows(snippet)
    assert snippet.expected_output.startswith("\n")  # the leading empty line a strip would lose

    login_in_browser(make_admin())
    page.goto(f"/admin/course/snippet/{snippet.pk}/change/")
    expect(page.locator("#id_code")).to_have_value(snippet.code)
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page).to_have_url(re.compile(r"/admin/course/snippet/$"))
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert rows(snippet) == before
    prediction = Prediction.objects.get()
    assert prediction.is_first and prediction.verdict == Prediction.Verdict.RIGHT
    assert prediction.snippet_version == Snippet.objects.get(pk=snippet.pk).version
