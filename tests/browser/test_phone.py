"""The seed lesson on a phone (390 px wide, touch) in the system Chromium."""

import pytest
from playwright.sync_api import expect

from tests.factories import make_prediction, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = "/learn/local-models/optimising-speed-and-memory/"
EXERCISE = "#exercise-kv-cache-vram-order-practice"


@pytest.fixture
def phone(browser, live_server, client, sample_content):
    """A phone-sized touch screen, logged in as a learner who revealed the first snippet."""
    from course.kinds.snippet import Snippet

    learner = make_user("ada")
    make_prediction(learner, Snippet.objects.get(block__key="backend-latency"))
    client.force_login(learner)
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors


def height(locator) -> float:
    return locator.bounding_box()["height"]


def test_ordering_lines_keep_their_indentation_and_never_wrap(phone):
    phone.goto(SEED + "#exercise-kv-cache-vram-order")
    lines = phone.locator(f"{EXERCISE} .ordering-line code")
    expect(lines.first).to_be_visible()
    short = phone.locator(f"{EXERCISE} .ordering-line code", has_text="print()").first
    long = phone.locator(
        f"{EXERCISE} .ordering-line code", has_text="Lower KV cache precision frees VRAM: True"
    )
    indented = phone.locator(f"{EXERCISE} .ordering-line code", has_text="return bits * capacity")
    # Every line is one line high, however long: a long one scrolls sideways instead.
    for line in lines.all():
        assert height(line) <= height(short) + 1, line.inner_text()
    assert long.evaluate("code => code.scrollWidth > code.clientWidth")
    # The indentation is there to see: the body of the function starts further right.
    assert indented.inner_text().startswith("    return")
    # Where the first visible character of a line is drawn.
    word = "code => { const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT); let node; while ((node = walker.nextNode())) { const i = node.data.search(/\\S/); if (i >= 0) { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect().left; } } }"
    unindented = phone.locator(f"{EXERCISE} .ordering-line code", has_text="def kv_cache_vram")
    assert indented.evaluate(word) > unindented.evaluate(word) + 20


def test_the_header_leaves_the_first_screen_to_the_lesson(phone):
    phone.goto(SEED)
    header = phone.locator(".site-header")
    assert height(header) <= 844 / 9  # a third of the screen, it was; three short rows now
    expect(phone.get_by_role("heading", level=1)).to_be_in_viewport()
    # Everything is still there: the sections, the search and the account links.
    for name in ("Lessons", "Glossary", "My progress", "Classes", "Password"):
        expect(header.get_by_role("link", name=name, exact=True)).to_be_attached()
    expect(header.get_by_role("searchbox")).to_be_visible()
    expect(header.get_by_role("button", name="Log out")).to_be_attached()


def test_no_keyboard_shortcuts_are_offered_on_a_touch_screen(phone, page, login_in_browser):
    phone.goto(SEED + "#snippet-backend-latency")
    expect(phone.locator("#snippet-backend-latency-practice .run-button")).to_be_visible()
    expect(phone.locator("#snippet-backend-latency-practice .shortcut")).to_be_hidden()
    assert "Alt" not in phone.locator(f"{EXERCISE} .ordering-hint").inner_text()
    # With a mouse and a keyboard they are there.
    from django.contrib.auth.models import User

    login_in_browser(User.objects.get(username="ada"))
    page.goto(SEED + "#snippet-backend-latency")
    expect(page.locator("#snippet-backend-latency-practice .shortcut")).to_be_visible()
    assert "Alt" in page.locator(f"{EXERCISE} .ordering-hint").inner_text()


# How dark the right-hand 6 px of a screenshot are along its top two rows (above the text, so
# only the shading counts), from 0 (black) to 255; read in a blank page (the site's
# Content-Security-Policy does not allow reading images there).
DARKEST_AT_RIGHT = """async (png) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const data = context.getImageData(img.width - 6, 0, 6, 2).data;
  let darkest = 255;
  for (let i = 0; i < data.length; i += 4) darkest = Math.min(darkest, (data[i] + data[i + 1] + data[i + 2]) / 3);
  return darkest;
}"""


def test_a_line_cut_off_at_the_right_edge_shows_that_it_goes_on(phone):
    """The assembled program at 390 px: a line running past the edge is shaded there with
    a chevron; a line that fits is not, and scrolled to its end the cue goes."""
    import base64

    phone.goto(SEED + "#exercise-kv-cache-vram-order")
    long = phone.locator(
        f"{EXERCISE} .ordering-line code", has_text="Lower KV cache precision frees VRAM: True"
    )
    short = phone.locator(f"{EXERCISE} .ordering-line code", has_text="print()").first
    expect(long).to_be_visible()
    blank = phone.context.new_page()

    def darkest_at_right(code) -> float:
        return blank.evaluate(DARKEST_AT_RIGHT, base64.b64encode(code.screenshot()).decode())

    assert long.evaluate("code => code.scrollWidth > code.clientWidth")
    assert not short.evaluate("code => code.scrollWidth > code.clientWidth")
    fits = darkest_at_right(short)
    assert darkest_at_right(long) < fits - 30
    long.evaluate("code => { code.scrollLeft = code.scrollWidth; }")
    assert darkest_at_right(long) > fits - 10
    blank.close()


def test_the_hand_stays_in_reach_and_says_which_item(phone):
    """A student of a class, stuck at the ordering exercise far down the lesson: the hand
    is in the corner of the screen there, and it goes up about that exercise."""
    from django.contrib.auth.models import User

    from tests.factories import make_cohort, make_teacher
    from tutor.live.models import RaisedHand

    make_cohort(make_teacher("tess"), students=[User.objects.get(username="ada")])
    phone.goto(SEED + "#exercise-kv-cache-vram-order")
    check = phone.locator(EXERCISE).get_by_role("button", name="Check")
    check.scroll_into_view_if_needed()
    hand = phone.locator("#raise-hand")
    expect(hand.get_by_role("button", name="Raise hand")).to_be_in_viewport()
    phone.mouse.wheel(0, 3000)
    expect(hand.get_by_role("button", name="Raise hand")).to_be_in_viewport()
    box = hand.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    hand.get_by_label("About").select_option(label="KV cache VRAM at two precisions")
    hand.get_by_role("button", name="Raise hand").click()
    expect(hand).to_contain_text("about KV cache VRAM at two precisions")
    assert RaisedHand.objects.get().block.key == "kv-cache-vram-order"


@pytest.mark.parametrize("width", [390, 320])
def test_the_phone_nav_bar_is_in_tidy_rows(phone, width):
    """The sections start a row at the left edge, the account links end one at the right
    edge, nothing sticks out and no hidden name leaves a gap."""
    phone.set_viewport_size({"width": width, "height": 844})
    phone.goto("/")
    nav = phone.locator(".site-nav")
    edges = nav.evaluate(
        """nav => {
          const box = el => el.getBoundingClientRect();
          const links = [...nav.querySelectorAll(".sections a, .account a, .account button")].map(box);
          const search = box(nav.querySelector(".site-search input"));
          return {
            first: box(nav.querySelector(".sections a")).left,
            brand: box(nav.querySelector(".brand")).left,
            lastRight: box([...nav.querySelectorAll(".account li")].filter(li => li.offsetParent).at(-1)).right,
            searchRight: search.right,
            widest: Math.max(...links.map(b => b.right)),
            page: document.documentElement.scrollWidth,
          };
        }"""
    )
    assert abs(edges["first"] - edges["brand"]) <= 1
    assert abs(edges["lastRight"] - edges["searchRight"]) <= 1
    assert edges["widest"] <= width and edges["page"] <= width
