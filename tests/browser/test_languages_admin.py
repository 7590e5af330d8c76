"""An admin reads Parsnip's admin in German or Spanish: the language switch in the admin's
footer is the site's (the same choice, kept on their account), and the pages they walk (the
index, the lessons, a lesson with its blocks, Check outputs, Import questions, an account, a
class) show no English of Parsnip's own. Django's own words come from Django's catalogs; the
content (titles, code, keys, names) stays as it was written."""

import os
import re
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from course.models import Lesson
from tests.browser.test_languages import ENGLISH_ONLY, english_phrases, without_content
from tests.factories import make_admin, make_cohort, make_user
from tutor.models import AccountSettings, Run
from tutor.tasks import execute_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "optimising-speed-and-memory"
# A bank with what is brought over and what is not (in the bank's own words: its content).
BANK = """::Backend::Which backend runs the model on a CPU? {=llama.cpp ~Excel}
::Essay::Describe your day. {}
::Match::Pair them. {=cpu -> slow =gpu -> fast =npu -> new}
"""
SHOTS = Path(os.environ.get("SCREENSHOTS", "artifacts"))
# What the admin shows of the content and of the people: as written, in every language.
CONTENT = ", ".join(
    [
        "pre",
        "code",
        "script",
        "style",
        "template",
        "textarea",
        "select",
        "[hidden]",
        "#user-tools strong",
        # Django's own widgets, whose newest words Django does not translate yet.
        ".selector",
        ".field-password .help",
        *(
            f"{cell}.field-{name}"
            for cell in ("td", "th")
            for name in (
                "title",
                "course",
                "level",
                "name",
                "username",
                "teacher",
                "join_code",
                "student",
                "user",
                "snippet",
                "code",
            )
        ),
        ".inline_label",
        "#changelist-filter li a",
        ".lesson-block-links ol",
        ".readonly",
        "td a",
        "#bank-report li",
        "#bank-report td:first-child",
        "#bank-report td:nth-child(2)",
    ]
)
UI_TEXT = f"""() => {{
  const body = document.body.cloneNode(true);
  body.querySelectorAll({CONTENT!r}).forEach((node) => node.remove());
  return body.innerText || body.textContent;
}}"""


def words(language: str, english: str) -> str:
    with translation.override(language):
        return gettext(english)


def english_left(page, phrases: list[str], extra_content: list[str]) -> list[str]:
    """Parsnip's English on the page (the catalog's phrases, then any English-only word)."""
    text = " ".join(page.evaluate(UI_TEXT).split())
    left = [phrase for phrase in phrases if phrase in text]
    for line in page.evaluate(UI_TEXT).splitlines():
        line = without_content(line)
        for content in extra_content:
            line = line.replace(content, "")
        if ENGLISH_ONLY.search(line):
            left.append(line.strip())
    return left


@pytest.mark.parametrize("language, change", [("de", "Change"), ("es", "Change")])
def test_an_admin_switches_language_and_reads_no_english_of_parsnips_in_the_admin(
    page, login_in_browser, sample_content, language, change
):
    lesson = Lesson.objects.get(slug=SEED)
    admin = make_admin("root")
    student = make_user("ada")
    cohort = make_cohort(admin, students=[student], name="Morning group")
    login_in_browser(admin)

    # The switch in the admin's footer: back on the same page, now in the chosen language.
    page.goto("/admin/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.locator("#language-choice").select_option(language)
    page.get_by_role("button", name=change).click()
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert page.url.endswith("/admin/")
    # The account's choice, as the learner's pages keep it.
    assert AccountSettings.objects.get(user=admin).language == language
    expect(page.get_by_role("link", name=words(language, "Parsnip administration"))).to_be_visible()

    phrases = english_phrases(language)
    assert len(phrases) > 300
    people = [admin.username, student.username, cohort.name, cohort.join_code]
    shots = SHOTS / f"admin-{language}"
    shots.mkdir(parents=True, exist_ok=True)

    found = {}  # each page's English, all reported at the end

    def check(name: str) -> None:
        expect(page.locator("html")).to_have_attribute("lang", language)
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
        found[name] = english_left(page, phrases, people)

    check("index")

    page.goto("/admin/course/lesson/")
    expect(page.get_by_role("link", name=lesson.title).first).to_be_visible()
    check("lessons")

    page.goto(f"/admin/course/lesson/{lesson.pk}/change/")
    page.get_by_role("button", name=words(language, "Open every block")).click()
    expect(page.locator("details.block-fold[open]").first).to_be_visible()
    check("lesson")

    # Check outputs, from the list's action; the worker's part done here, as a worker would.
    page.goto("/admin/course/lesson/")
    page.locator(f'input[name="_selected_action"][value="{lesson.pk}"]').check()
    page.locator('select[name="action"]').select_option("check_outputs")
    page.locator('button[name="index"]').click()
    results = page.locator(".messagelist a")
    expect(results).to_have_attribute("href", re.compile(r"/check-outputs/\?runs="))
    check("check-outputs-queued")
    for _round in range(3):  # as the worker does: every queued run (a run may queue another)
        for run_id in Run.objects.filter(status=Run.Status.QUEUED).values_list("pk", flat=True):
            execute_run(run_id=run_id)
    results.click()
    expect(page.locator(".check-summary").first).to_be_visible()
    expect(page.locator('meta[http-equiv="refresh"]')).to_have_count(0)
    check("check-outputs")

    page.goto(f"/admin/course/lesson/{lesson.pk}/import-questions/")
    page.locator('input[type="file"]').set_input_files(
        files=[{"name": "bank.gift", "mimeType": "text/plain", "buffer": BANK.encode()}]
    )
    page.get_by_role("button", name=words(language, "Check"), exact=True).click()
    expect(page.locator("#bank-report")).to_be_visible()
    check("import-questions")

    page.goto(f"/admin/auth/user/{student.pk}/change/")
    check("account")

    page.goto(f"/admin/tutor/cohort/{cohort.pk}/change/")
    check("class")

    page.goto("/admin/tutor/run/")
    check("runs")
    left = [f"{name}: {line}" for name, lines in found.items() for line in lines]
    assert not left, "\n".join(left)
