"""How the work was made, in the system Chromium: a student types, pastes and submits; the
teacher replays it at 10× and the paste is marked; the teacher watches a second student's
code change live; a closed-book assignment refuses another lesson and a second session.
Submissions run through the real sandbox (the `inline_worker` fixture)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from course.models import Block, Lesson
from tests.factories import make_cohort, make_lesson, make_snippet, make_teacher, make_user
from tutor.assignments.models import Assignment
from tutor.trail import actions, encoding
from tutor.trail.models import Trail

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
PANEL = "#exercise-write-kv-cache-vram"
PASTED = "def helper():\n    return 42\n"


def page_of(browser, live_server, user):
    """A browser tab logged in as `user` (a session cookie from the test client)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    return page


def paste(page, text: str) -> None:
    """A paste into the editor, as the browser delivers one (a paste event with its data)."""
    page.locator(f"{PANEL} .cm-content").evaluate(
        """(editor, text) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            editor.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
        }""",
        text,
    )


def test_a_teacher_replays_a_students_session_at_10x_with_the_paste_marked(
    browser, live_server, sample_content, inline_worker
):
    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    block = Block.objects.get(key="write-kv-cache-vram")

    page = page_of(browser, live_server, student)
    page.goto(SEED + PANEL)
    page.locator(f"{PANEL} .cm-content").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("\n# my own line\n")
    paste(page, PASTED)
    page.locator(PANEL).get_by_role("button", name="Test it").click()
    expect(page.locator(f"{PANEL}-results")).to_contain_text("tests pass")

    trail = Trail.objects.get(user=student, block=block)
    assert trail.submissions == 1 and trail.largest_paste == len(PASTED)
    paste_step = next(step for step, kind, _ in trail.marks if kind == encoding.PASTE)
    assert page.errors == []

    replay = page_of(browser, live_server, teacher)
    replay.goto(reverse("tutor:class_trail", args=[cohort.pk, student.pk, block.pk]))
    expect(replay.locator("#replay-step")).to_contain_text(f"Step 0 of {trail.steps}")
    # Each step the player shows, and whether a paste is marked in it.
    replay.evaluate(
        """() => { window.seen = [];
           document.body.addEventListener("htmx:afterSettle", () => {
             const step = document.getElementById("replay-step");
             window.seen.push([Number(step.dataset.step), !!step.querySelector("mark.trail-paste")]);
           }); }"""
    )
    replay.get_by_role("button", name="10×").click()
    expect(replay.locator("#replay-step")).to_contain_text("Submitted the code.")
    # The last step's swap has settled (its record is made just after it is shown).
    replay.wait_for_function("last => window.seen.some(([step]) => step === last)", arg=trail.steps)
    seen = replay.evaluate("window.seen")
    assert [step for step, _ in seen] == list(range(1, trail.steps + 1))  # every step, in order
    assert [marked for step, marked in seen if step == paste_step] == [True]
    # Jumping to the paste: marked in words too, for a screen reader.
    replay.get_by_role(
        "link", name=f"Paste of {len(PASTED)} characters (step {paste_step})"
    ).click()
    expect(replay.locator("mark.trail-paste").first).to_contain_text("def helper():")
    expect(replay.locator("#replay-step .trail-words")).to_contain_text("Paste.")
    replay.keyboard.press("ArrowRight")  # and on from there by keyboard
    expect(replay.locator("#replay-step h2")).to_contain_text(
        f"Step {paste_step + 1} of {trail.steps}"
    )
    assert replay.errors == []


def test_the_teacher_watches_a_second_students_code_change_live(
    browser, live_server, sample_content
):
    teacher, first, second = make_teacher("tess"), make_user("sam"), make_user("ada")
    cohort = make_cohort(teacher, students=[first, second])
    block = Block.objects.get(key="write-kv-cache-vram")

    watch = page_of(browser, live_server, teacher)
    watch.goto(reverse("tutor:trail_watch", args=[cohort.pk, second.pk, block.pk]))
    expect(watch.locator("#watched-code")).to_contain_text("They have not changed this code yet.")
    watch.evaluate("window.stillThisPage = true")

    student = page_of(browser, live_server, second)
    student.goto(SEED + PANEL)
    student.locator(f"{PANEL} .cm-content").click()
    student.keyboard.press("ControlOrMeta+End")
    student.keyboard.type("\nprint('watched live')\n")
    # The student's next batch, then the watch page's next poll: no reload.
    expect(watch.locator("#watched-code")).to_contain_text("print('watched live')", timeout=20_000)
    assert watch.evaluate("window.stillThisPage") is True
    assert watch.errors == [] and student.errors == []


def test_a_closed_book_assignment_refuses_another_lesson_and_a_second_session(
    browser, live_server, sample_content
):
    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    other = make_lesson(title="Not in the exam")
    now = timezone.now()
    Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        opens_at=now - timedelta(minutes=1),
        due_at=now + timedelta(hours=1),
        closed_book=True,
    )

    first = page_of(browser, live_server, student)
    first.goto(SEED)
    expect(first.locator("h1").first).to_contain_text(lesson.title)
    response = first.goto(other.get_absolute_url())
    assert response.status == 403
    expect(first.get_by_role("alert")).to_contain_text("only “" + lesson.title + "” is open")
    first.get_by_role("main").get_by_role("link", name=lesson.title).click()  # back to the exam
    expect(first.locator("h1").first).to_contain_text(lesson.title)
    # The header offers only the exam and signing out: no search, no other section.
    nav = first.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link")).to_have_count(2)  # the brand and the exam, both to it
    expect(nav.get_by_role("link", name="Closed-book: " + lesson.title)).to_be_visible()
    expect(first.get_by_role("search")).to_have_count(0)

    # Signing in again, elsewhere, through the form: straight to the exam, not the refused home page.
    second = browser.new_context(base_url=live_server.url).new_page()
    second.goto(reverse("login"))
    second.get_by_label("Username").fill(student.username)
    second.get_by_label("Password").fill("pw-" + student.username)
    second.get_by_role("button", name="Log in").click()
    expect(second).to_have_url(live_server.url + SEED)
    expect(second.locator("h1").first).to_contain_text(lesson.title)
    first.goto(reverse("tutor:my_progress"))
    assert "/login/" in first.url  # the first session has ended: signed out


# How the trail's pages look ---------------------------------------------------------------


@pytest.fixture
def a_trail():
    """A student's trail on a snippet (typed, then pasted, then run), in a class."""
    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="")
    pasted = "def f():\n    return 42\n"
    actions.record_edits(
        user=student,
        block=snippet.block,
        edits=[(2000, "e", 0, 0, "# hi\n"), (1000, "p", 5, 0, pasted)],
        code="# hi\n" + pasted,
    )
    actions.record_moment(
        user=student, block=snippet.block, what=actions.RUN, code="# hi\n" + pasted
    )
    return {"teacher": teacher, "student": student, "cohort": cohort, "block": snippet.block}


def test_the_replay_and_watching_sit_in_the_teaching_pages_column_at_desktop_width(
    browser, live_server, a_trail
):
    w = a_trail
    page = page_of(browser, live_server, w["teacher"])
    args = [w["cohort"].pk, w["student"].pk, w["block"].pk]
    for name in ("tutor:class_trail", "tutor:trail_watch"):
        page.goto(reverse(name, args=args))
        column = page.locator(".teaching-medium").bounding_box()
        # A column as wide as the timeline's (56rem), in the middle, not the window's width.
        assert column["width"] <= 56 * 16, name
        assert abs(column["x"] - (1280 - column["x"] - column["width"])) <= 2, name
    assert page.errors == []


def phone_of(browser, live_server, user):
    page = page_of(browser, live_server, user)
    page.set_viewport_size({"width": 390, "height": 844})
    return page


def fits_the_width(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def test_the_figures_of_how_the_code_was_made_fit_a_phone(browser, live_server, a_trail):
    w = a_trail
    page = phone_of(browser, live_server, w["teacher"])
    for url in (
        reverse("tutor:class_student", args=[w["cohort"].pk, w["student"].pk]),
        reverse("tutor:class_lesson", args=[w["cohort"].pk, w["block"].lesson_id]),
    ):
        page.goto(url)
        expect(page.locator(".trail-figures")).to_be_visible()
        assert fits_the_width(page), url  # the table scrolls inside its box, the page does not
    assert page.errors == []


def test_my_progress_shows_my_figures_in_a_table_that_fits_a_phone(browser, live_server, a_trail):
    page = phone_of(browser, live_server, a_trail["student"])
    page.goto(reverse("tutor:my_progress"))
    figures = page.locator(".trail-figures")
    expect(figures).to_be_visible()
    # Laid out as the teacher's copy of it is: aligned to where the line starts (the left, on
    # this page), a line under each row.
    assert figures.locator("th").first.evaluate("th => getComputedStyle(th).textAlign") == "start"
    assert fits_the_width(page)
    assert page.errors == []


def test_a_closed_book_refusal_sits_in_the_sites_column_at_desktop_width(
    browser, live_server, a_trail
):
    now = timezone.now()
    Assignment.objects.create(
        cohort=a_trail["cohort"],
        lesson=a_trail["block"].lesson,
        opens_at=now - timedelta(minutes=1),
        due_at=now + timedelta(hours=1),
        closed_book=True,
    )
    page = page_of(browser, live_server, a_trail["student"])
    assert page.goto(reverse("course:glossary")).status == 403  # not the exam: refused
    column = page.locator(".teaching-medium").bounding_box()
    assert column["width"] <= 56 * 16
    assert abs(column["x"] - (1280 - column["x"] - column["width"])) <= 2


def test_the_replay_shows_which_speed_is_playing_and_that_pause_is_off_when_stopped(
    browser, live_server, a_trail
):
    w = a_trail
    page = page_of(browser, live_server, w["teacher"])
    held = []
    # The next step is held on its way: the replay stays playing for as long as the test looks.
    page.route(lambda url: "step=" in url, lambda route: held.append(route))
    page.goto(reverse("tutor:class_trail", args=[w["cohort"].pk, w["student"].pk, w["block"].pk]))
    player = page.locator("[data-trail-player]")
    pause = player.get_by_role("button", name="Pause")
    expect(pause).to_be_disabled()
    assert pause.evaluate("b => getComputedStyle(b).opacity") != "1"  # looks off, too

    player.get_by_role("button", name="10×").click()
    expect(player.get_by_role("button", name="10×")).to_have_attribute("aria-pressed", "true")
    expect(player.get_by_role("button", name="1×", exact=True)).to_have_attribute(
        "aria-pressed", "false"
    )
    background = "b => getComputedStyle(b).backgroundColor"
    assert player.get_by_role("button", name="10×").evaluate(background) != player.get_by_role(
        "button", name="1×", exact=True
    ).evaluate(background)
    expect(pause).to_be_enabled()

    pause.click()
    expect(player.get_by_role("button", name="10×")).to_have_attribute("aria-pressed", "false")
    expect(pause).to_be_disabled()
    assert page.errors == []


def test_a_long_line_wraps_under_its_own_text_not_under_the_line_numbers_on_a_phone(
    browser, live_server, a_trail
):
    w = a_trail
    long_line = "    total = " + " + ".join(f"value_{n}" for n in range(12)) + "\n"
    actions.record_edits(
        user=w["student"], block=w["block"], edits=[(0, "e", 0, 0, long_line)], code=long_line
    )
    page = phone_of(browser, live_server, w["teacher"])
    args = [w["cohort"].pk, w["student"].pk, w["block"].pk]
    for url in (
        reverse("tutor:trail_watch", args=args),
        reverse("tutor:class_trail", args=args) + "?step=999",
    ):
        page.goto(url)
        line = page.locator(".trail-line", has_text="value_11").first
        expect(line).to_be_visible()
        # Where each of the line's wrapped rows starts, and where its number ends.
        starts = line.evaluate(
            """line => { const range = document.createRange();
                 range.setStartAfter(line.querySelector('.trail-line-number'));
                 range.setEndAfter(line.lastChild);
                 return [...range.getClientRects()].map(r => r.left); }"""
        )
        number_end = line.locator(".trail-line-number").bounding_box()
        assert line.bounding_box()["height"] > 2 * number_end["height"], url  # it wraps
        assert min(starts) >= number_end["x"] + number_end["width"] - 1, url
        assert fits_the_width(page), url
    assert page.errors == []


def test_the_player_keeps_play_at_on_one_line_on_a_phone(browser, live_server, a_trail):
    w = a_trail
    page = phone_of(browser, live_server, w["teacher"])
    page.goto(reverse("tutor:class_trail", args=[w["cohort"].pk, w["student"].pk, w["block"].pk]))
    words = page.locator("[data-trail-player] > span", has_text="Play at")
    expect(words).to_be_visible()
    rows = words.evaluate(
        "span => { const r = document.createRange(); r.selectNodeContents(span);"
        " return new Set([...r.getClientRects()].map(rect => Math.round(rect.top))).size; }"
    )
    assert rows == 1  # not "Play" above "at"
    assert fits_the_width(page)


def test_typing_an_emoji_a_paste_and_many_lines_replays_every_batch_with_no_correction(
    browser, live_server, sample_content, inline_worker
):
    """Issue 36: what the real editor sends (FormData's CRLF, UTF-16 positions, an emoji
    changed into another) replays to the code of every batch, with no correction step."""
    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    block = Block.objects.get(key="write-kv-cache-vram")
    page = page_of(browser, live_server, student)
    batches = []
    page.on(
        "request",
        lambda request: (
            batches.append(request.post_data_buffer)
            if request.url.endswith(f"/trail/{block.pk}/record/")
            else None
        ),
    )
    page.goto(SEED + PANEL)
    page.locator(f"{PANEL} .cm-content").click()
    page.keyboard.press("ControlOrMeta+End")

    def sent(action) -> None:
        """Do `action`, then wait for the batch that carries it (one every 4 s)."""
        with page.expect_response(lambda r: r.url.endswith(f"/trail/{block.pk}/record/")) as got:
            action()
        assert got.value.status == 204

    sent(lambda: page.keyboard.type("\n# mood: 😀 fine\nmood = 'ok'\nif mood:\n"))
    sent(lambda: (page.keyboard.type("print(mood)\n"), page.keyboard.press("Backspace")))
    sent(lambda: paste(page, PASTED))
    # 😀 to 😃: the two characters share their first UTF-16 half.
    page.locator(f"{PANEL} .cm-content").evaluate(
        """(content) => {
            const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
            while (walker.nextNode()) {
                const at = walker.currentNode.data.indexOf("😀");
                if (at >= 0) {
                    getSelection().setBaseAndExtent(walker.currentNode, at, walker.currentNode, at + 2);
                    return;
                }
            }
        }"""
    )
    expect(page.locator(f"{PANEL} .cm-selectionBackground")).to_have_count(1)
    sent(lambda: page.keyboard.type("😃"))
    page.locator(PANEL).get_by_role("button", name="Test it").click()
    expect(page.locator(f"{PANEL}-results")).to_contain_text("tests pass")
    assert page.errors == []

    trail = Trail.objects.get(user=student, block=block)
    final = page.locator(f"{PANEL} textarea[name=code]").input_value()
    assert "😃 fine" in final and "😀" not in final
    assert trail.text == final
    chunks = list(trail.chunk_rows.order_by("seq"))
    kinds = [step.kind for chunk in chunks for step in chunk.steps()]
    assert encoding.SYNC not in kinds, kinds  # every keystroke batch replayed as sent
    assert len(batches) >= 4 and kinds[-1] == encoding.SUBMIT
    # Each batch's code (as FormData sent it: CRLF) is the replay's text after its edits.
    from email.parser import BytesParser

    for chunk, body in zip(chunks, batches, strict=False):
        form = BytesParser().parsebytes(
            b"Content-Type: multipart/form-data; boundary="
            + body.split(b"\r\n", 1)[0][2:]
            + b"\r\n\r\n"
            + body
        )
        code = next(
            part.get_payload(decode=True).decode()
            for part in form.get_payload()
            if part.get_param("name", header="content-disposition") == "code"
        )
        assert "\r\n" in code  # what Chromium really sends
        shown = replay_step(trail, chunk.first_step + len(chunk.steps()))
        assert shown == code.replace("\r\n", "\n")
    assert trail.largest_paste == len(PASTED)

    replay = page_of(browser, live_server, teacher)
    replay.goto(
        reverse("tutor:class_trail", args=[cohort.pk, student.pk, block.pk])
        + f"?step={trail.steps}"
    )
    expect(replay.locator("#replay-step .trail-words")).to_contain_text("Submitted the code.")
    expect(replay.locator("#replay-step .trail-result")).to_contain_text("tests pass")
    assert replay.errors == []


def replay_step(trail, number: int) -> str:
    from tutor.trail import replay

    return replay.step_of(trail, number).text


def test_an_item_a_closed_book_assignment_does_not_name_refuses_work_in_its_panel(
    browser, live_server, sample_content
):
    teacher, student = make_teacher("tess"), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        whole_lesson=False,
        opens_at=now - timedelta(minutes=1),
        due_at=now + timedelta(hours=1),
        closed_book=True,
    )
    assignment.blocks.set([Block.objects.get(key="write-kv-cache-vram")])
    page = page_of(browser, live_server, student)
    page.goto(SEED)
    region = page.locator("#exercise-kv-cache-vram-order")
    region.get_by_role("button", name="Check").click()
    expect(region).to_contain_text("is not part of the closed-book assignment")
    assert page.url.startswith(live_server.url + SEED)  # still on the assignment's page


@pytest.mark.parametrize("javascript", [True, False])
def test_each_step_of_a_long_code_brings_its_change_into_view(
    browser, live_server, a_trail, javascript
):
    """Issue 39.6: Next shows the step's change, far down a long code, highlighted: with
    JavaScript by scrolling the code box, without it by the link's #trail-change."""
    w = a_trail
    text = "".join(f"line_{n} = {n}\n" for n in range(120))
    actions.record_edits(user=w["student"], block=w["block"], edits=[], code=text)
    trail = Trail.objects.get(user=w["student"], block=w["block"])
    at = text.index("line_100")
    actions.record_edits(
        user=w["student"],
        block=w["block"],
        edits=[(0, "e", at, 0, "# far\n")],
        code=text[:at] + "# far\n" + text[at:],
    )
    client = Client()
    client.force_login(w["teacher"])
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 390, "height": 800},
        java_script_enabled=javascript,
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    url = reverse("tutor:class_trail", args=[w["cohort"].pk, w["student"].pk, w["block"].pk])
    page.goto(f"{url}?step={trail.steps}")
    page.get_by_role("link", name="Next").click()
    expect(page.locator("#replay-step h2")).to_contain_text(f"Step {trail.steps + 1} of")
    change = page.locator("#trail-change")
    expect(change).to_contain_text("# far")
    expect(change).to_have_class("trail-line trail-line-changed")
    expect(change).to_be_in_viewport()
    context.close()
