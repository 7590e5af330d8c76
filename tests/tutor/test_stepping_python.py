"""Issue 23 on the step page, as the learner sees it without JavaScript (and as a screen reader
reads it): programs Run accepts step to their end; closures keep the frame they were made in
drawn, with an arrow back to it; functions show their signature and default values; classes
their methods and bases; C-level objects a short form; a correct deep recursion runs to its
end. Traces are made by the real tracer in the sandbox, then shown as the worker would store
them."""

import html
import re
import textwrap

import pytest
from django.urls import reverse

from tests.factories import make_run
from tutor.models import Run
from tutor.practice.stepping.models import Stepping, Trace
from tutor.sandbox.tracing import trace

pytestmark = pytest.mark.django_db


def stepping_for(user, code: str) -> Stepping:
    code = textwrap.dedent(code)
    run = make_run(code=code, stdin="", purpose=Run.Purpose.TRACE)
    stored = Trace(code=code, stdin="", run=run)
    stored.keep(trace(code).to_dict())
    stored.save()
    return Stepping.objects.create(user=user, trace=stored, origin=Stepping.Origin.SNIPPET)


def page(client, stepping: Stepping, number: int) -> str:
    response = client.get(reverse("tutor:step_detail", args=[stepping.pk, number]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def words(text: str) -> str:
    """The screen reader's words for the step (the live region)."""
    return re.search(r'id="step-description">([^<]*)<', text).group(1)


def step_where(stepping: Stepping, test) -> int:
    steps = stepping.trace.steps()
    return next(n for n in range(1, len(steps) + 1) if test(steps[n - 1]))


def text_of(markup: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup))


@pytest.mark.parametrize(
    "imports", ["import asyncio", "import subprocess", "from unittest import *"]
)
def test_a_program_that_imports_what_run_accepts_steps_to_its_end(client, learner, imports):
    stepping = stepping_for(learner, f"{imports}\nanswer = 6 * 7\nprint(answer)\n")
    total = stepping.trace.steps_total
    last = page(client, stepping, total)
    assert "Stopped early" not in last and "does not allow" not in last
    assert "The program has finished." in words(last)
    assert re.search(r'<pre class="output step-printed">42\n', last)


COUNTER = """\
    def make_counter():
        count = 0
        def counter():
            nonlocal count
            count += 1
            return count
        return counter

    tick = make_counter()
    tick()
    tick()
    done = True
    """


def test_a_counter_factorys_frame_stays_drawn_after_it_returned(client, learner):
    stepping = stepping_for(learner, COUNTER)
    number = step_where(stepping, lambda s: s["line"] == 10 and len(s["frames"]) == 1)
    shown = page(client, stepping, number)
    kept = re.search(r'<div class="frame frame-kept" id="frame-(f\d+)">(.*?)</div>', shown, re.S)
    assert kept, "make_counter's frame is drawn"
    assert "make_counter() kept by a closure" in text_of(kept.group(2))
    assert "count 0" in text_of(kept.group(2))
    # the function object says where it was made, with a link and an arrow back to that frame
    assert "function counter()" in shown
    assert f'<a class="pointer" href="#frame-{kept.group(1)}">' in shown
    assert 'class="arrow arrow-made-in"' in shown
    assert f"was made in frame {kept.group(1)}" in shown
    assert (
        "`make_counter` has returned, but its frame is kept: a function made in it still "
        "uses `count`." in words(shown)
    )
    # each call of tick() changes the count the kept frame shows
    last = page(client, stepping, stepping.trace.steps_total)
    kept = re.search(r'<div class="frame frame-kept"[^>]*>(.*?)</div>', last, re.S)
    assert "count 2" in text_of(kept.group(1))


def test_lambdas_made_in_a_loop_show_the_one_variable_they_share(client, learner):
    stepping = stepping_for(
        learner,
        """\
        def make():
            makers = []
            for i in range(3):
                makers.append(lambda: i)
            return makers

        makers = make()
        print([f() for f in makers])
        """,
    )
    number = step_where(stepping, lambda s: s["line"] == 8 and len(s["frames"]) == 1)
    shown = page(client, stepping, number)
    kept = re.search(r'<div class="frame frame-kept" id="frame-(f\d+)">(.*?)</div>', shown, re.S)
    assert "i 2" in text_of(kept.group(2))
    assert shown.count("</span> function <lambda>()</p>") == 3
    assert shown.count(f'href="#frame-{kept.group(1)}"') == 3


def test_a_shared_default_list_is_drawn_from_the_def_on(client, learner):
    stepping = stepping_for(
        learner,
        """\
        def add(x, items=[]):
            items.append(x)
            return items

        first = add(1)
        second = add(2)
        """,
    )
    defined = page(client, stepping, 2)  # the def ran; add was never called
    assert "function add(x, items=…)" in defined
    assert "`add` is now the function add(x, items=…)." in words(defined)
    box = re.search(r'<div class="object object-function" id="object-(\d+)">(.*?)</div>',
                    defined, re.S)  # fmt: skip
    default = re.search(r'<span class="entry-label">items=</span><a class="pointer" '
                        r'href="#object-(\d+)">', box.group(2))  # fmt: skip
    assert default, "the default value is an arrow to a list"
    assert re.search(rf'id="object-{default.group(1)}">.*?list.*?empty', defined, re.S), (
        "the default list, empty, is drawn before any call"
    )
    assert f"the default of items in #{box.group(1)} → #{default.group(1)}" in defined
    # after two calls, first, second and the default are one list of two items
    last = page(client, stepping, stepping.trace.steps_total)
    pointed = {
        name: re.search(
            rf'<span class="(?:variable-name|entry-label)">{re.escape(name)}</span>'
            r'<a class="pointer" href="#object-(\d+)">',
            last,
        ).group(1)
        for name in ("first", "second", "items=")
    }
    assert len(set(pointed.values())) == 1, pointed
    assert re.search(rf'id="object-{pointed["first"]}">.*?2 items', last, re.S)


def test_a_class_shows_its_methods_and_bases(client, learner):
    stepping = stepping_for(
        learner,
        """\
        class Animal:
            pass
        class Dog(Animal):
            def __init__(self, name):
                self.name = name
        rex = Dog("Rex")
        """,
    )
    last = page(client, stepping, stepping.trace.steps_total)
    dog = re.search(r"class Dog\(Animal\)</p>(.*?)</div>", last, re.S)
    assert dog, "the class Dog names its base"
    assert '<span class="entry-label">__init__</span>' in dog.group(1)
    assert "function __init__(self, name)" in last
    defined = page(client, stepping, step_where(stepping, lambda s: s["line"] == 6))
    assert "`Dog` is now the class Dog(Animal)." in words(defined)
    assert "a Dog object" in last or "object Dog" in last


def test_c_level_objects_show_a_short_form_without_addresses(client, learner):
    stepping = stepping_for(
        learner,
        """\
        import array, functools, re
        show = functools.partial(print, 1)
        found = re.match("a+", "aaab")
        numbers = array.array("i", [1, 2, 3])
        done = True
        """,
    )
    last = page(client, stepping, stepping.trace.steps_total)
    assert "functools.partial" in last
    for label in ("func", "args", "keywords"):
        assert f'<span class="entry-label">{label}</span>' in last
    assert "<re.Match object; span=(0, 3), match='aaa'>" in last
    assert "array('i', [1, 2, 3])" in last
    # an address (" at 0x7f..."), not "0x" inside the page's random CSRF token
    assert not re.search(r"\b0x[0-9a-fA-F]+", last) and "__vectorcalloffset__" not in last
    said = " ".join(words(page(client, stepping, n)) for n in range(2, 6))
    assert "`show` is now a functools.partial object" in said
    assert "`numbers` is now the object array('i', [1, 2, 3])" in said


def test_a_correct_recursion_150_deep_runs_to_its_end(client, learner):
    stepping = stepping_for(
        learner,
        """\
        def depth(n):
            if n == 0:
                return 0
            return 1 + depth(n - 1)

        print(depth(150))
        """,
    )
    data = stepping.trace.data
    assert data["status"] == "complete"
    last = page(client, stepping, stepping.trace.steps_total)
    assert "Stopped early" not in last and "The program has finished." in words(last)
    deepest = step_where(stepping, lambda s: s.get("hidden_frames", {}).get("count") == 132)
    shown = page(client, stepping, deepest)
    assert "… 132 calls not shown …" in shown
    first = step_where(stepping, lambda s: s.get("hidden_frames"))
    assert "Calls are now 20 deep" in words(page(client, stepping, first))


def test_the_sample_courses_shared_default_snippet_shows_the_one_list(client, learner):
    from pathlib import Path

    from ruamel.yaml import YAML

    lesson = Path(__file__).resolve().parents[2] / (
        "content/local-models/deploying-a-private-model-safely.yaml"
    )
    blocks = YAML(typ="safe").load(lesson.read_text(encoding="utf-8"))["blocks"]
    snippet = next(block for block in blocks if block.get("key") == "shared-history")
    stepping = stepping_for(learner, snippet["code"])
    assert stepping.trace.data["stdout"] == snippet["output"]
    defined = page(client, stepping, 2)  # the def ran, no request yet
    assert "function handle(prompt, history=…)" in defined
    default = re.search(
        r'<span class="entry-label">history=</span><a class="pointer" href="#object-(\d+)">',
        defined,
    ).group(1)
    assert re.search(rf'id="object-{default}">.*?list.*?empty', defined, re.S)
    last = page(client, stepping, stepping.trace.steps_total)
    assert re.search(
        rf'<span class="entry-label">history=</span><a class="pointer" href="#object-{default}">',
        last,
    ), "the same list, from the first step to the last"
    assert re.search(rf'id="object-{default}">.*?2 items', last, re.S)


def test_after_a_call_returns_the_callers_line_is_the_one_just_run(client, learner):
    """`print(fits(x))` printed: the line just run is the print's, not the `return` inside
    `fits` (issue 39), on the page's marks and in the screen reader's words."""
    stepping = stepping_for(
        learner,
        """\
        def fits(size):
            return size <= 16

        print("fits:", fits(8))
        print("done")
        """,
    )
    steps = stepping.trace.steps()
    printed = step_where(stepping, lambda step: step["stdout_len"] > 0)
    assert steps[printed - 2]["event"] == "return"  # it came from the return of `fits`
    shown = page(client, stepping, printed)
    ran = re.findall(r'<li class="code-line[^"]*is-ran[^"]*".*?code-line-number">(\d+)<', shown)
    assert ran == ["4"]
    assert "Line 4 ran; line 5 is next." in words(shown)
