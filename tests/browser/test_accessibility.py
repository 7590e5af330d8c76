"""Automated accessibility check (axe-core, pinned in package.json) on the main pages, in
light and dark mode. Serious and critical violations fail the test; the rest are listed
in the failure message when there is one."""

import json
from pathlib import Path

import pytest

from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PAGES = [
    "/",
    "/learn/local-models/",
    "/learn/local-models/optimising-speed-and-memory/",
    "/glossary/",
    "/glossary/kv-cache/",
    "/search/?q=cache",
    "/accounts/login/",
    "/accounts/signup/",
]


def violations(page) -> list[dict]:
    page.add_script_tag(path=AXE)
    result = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in result
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_main_pages_have_no_serious_accessibility_violations(
    browser, live_server, sample_content, scheme
):
    # axe is injected as a script the page's Content-Security-Policy would refuse.
    context = browser.new_context(base_url=live_server.url, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    found = {}
    for url in PAGES:
        page.goto(url)
        serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
        if serious:
            found[url] = serious
    context.close()
    assert not found, json.dumps(found, indent=1)


def test_a_learners_lesson_page_has_no_serious_accessibility_violations(
    browser, live_server, sample_content, client
):
    user = make_user("ally")
    client.force_login(user)
    context = browser.new_context(base_url=live_server.url, bypass_csp=True)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    found = {}
    for url in ["/learn/local-models/optimising-speed-and-memory/", "/progress/", "/classes/"]:
        page.goto(url)
        serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
        if serious:
            found[url] = serious
    context.close()
    assert not found, json.dumps(found, indent=1)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_replay_and_watching_pages_have_no_serious_accessibility_violations(
    browser, live_server, sample_content, client, scheme
):
    from course.models import Block
    from tests.factories import make_cohort, make_teacher
    from tutor.trail import actions

    teacher, student = make_teacher("tess"), make_user("ally")
    cohort = make_cohort(teacher, students=[student])
    block = Block.objects.get(key="write-kv-cache-vram")
    pasted = "def helper():\n    return 42\n"
    actions.record_edits(
        user=student,
        block=block,
        edits=[(1000, "p", 0, 0, pasted)],
        code=pasted + block.code_exercise.starter,
    )
    client.force_login(teacher)
    context = browser.new_context(base_url=live_server.url, color_scheme=scheme, bypass_csp=True)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    found = {}
    base = f"/classes/{cohort.pk}/students/{student.pk}/trail/{block.pk}/"
    for url in [base + "?step=1", base + "live/"]:
        page.goto(url)
        serious = [v for v in violations(page) if v["impact"] in {"serious", "critical"}]
        if serious:
            found[url] = serious
    context.close()
    assert not found, json.dumps(found, indent=1)
