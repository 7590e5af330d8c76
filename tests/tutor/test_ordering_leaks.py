"""Put it in order: nothing a learner can ask for gives the solution away.

For every shipped exercise and a few made here, each request a learner can make before
checking (the lesson page, the practice partial, moves that are empty, partial, repeated
or name lines by their content keys, Check and Help refused, Start again) is answered
without the solution's order, without any line's content key, and without anything that
tells the lines that belong from the distractors. Refusals say what is wrong in words
that are the same for every exercise.
"""

import html as html_lib
import json
import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course.kinds.ordering import OrderingExercise
from tests.factories import line_tokens, make_exercise, make_lesson, make_user
from tutor.practice.ordering import actions as actions
from tutor.practice.ordering.lines import ExerciseLines, starting_order
from tutor.practice.ordering.models import OrderingArrangement

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SHIPPED = ["kv-cache-vram-order", "tokens-per-second-order", "llama-server-command-order"]
MADE = {
    "exact, distractors": dict(
        lines=["a = 1", "b = a + 1", "print(a, b)"], distractors=["b = a - 1", "print(b, a)"]
    ),
    "dependencies, distractors": dict(
        lines=["x = 2", "y = 3", "print(x + y)"],
        distractors=["print(x - y)"],
        grading="dependencies",
    ),
    "output, no distractors": dict(
        lines=['print("one")', 'print("two")', 'print("three")'],
        grading="output",
        expected_output="one\ntwo\nthree\n",
    ),
}


def url(name, exercise):
    return reverse(f"tutor:ordering_{name}", args=[exercise.pk])


def solution(exercise) -> list[str]:
    return ExerciseLines.of(exercise).correct


class Region(HTMLParser):
    """The practice region of one exercise in a page or partial: every attribute value in
    it, and each line's element, in the order the page shows them."""

    def __init__(self, exercise):
        super().__init__(convert_charrefs=True)
        self.region_id = f"exercise-{exercise.block.key}-practice"
        self.depth = 0  # > 0 inside the region
        self.values: list[str] = []
        self.lines: list[dict] = []  # {"area", "attrs", "text", "html"}
        self.area = ""
        self.line_depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.depth == 0 and attrs.get("id") != self.region_id:
            return
        if tag not in {"br", "input", "img", "meta", "link", "hr"}:
            self.depth += 1
        # An aria-label reads a line's text out, as the page shows it: not a name for it.
        self.values += [value for name, value in attrs.items() if value and name != "aria-label"]
        if "data-area" in attrs:
            self.area = attrs["data-area"]
        if tag == "li" and "ordering-line" in attrs.get("class", ""):
            self.lines.append({"area": self.area, "attrs": attrs, "text": "", "inside": []})
            self.line_depth = self.depth
        elif self.lines and self.line_depth and self.depth > self.line_depth:
            self.lines[-1]["inside"].append((tag, attrs))

    def handle_endtag(self, tag):
        if self.depth == 0:
            return
        if tag == "li" and self.depth == self.line_depth:
            self.line_depth = 0
        self.depth -= 1

    def handle_data(self, data):
        if self.lines and self.line_depth and self.depth >= self.line_depth:
            self.lines[-1]["text"] += data

    @classmethod
    def of(cls, body: str, exercise) -> "Region":
        region = cls(exercise)
        region.feed(body)
        assert region.values, f"no practice region for {exercise.block.key}"
        return region


def words(value: str) -> set[str]:
    return set(re.split(r"[\s:,\"'{}\[\]]+", value))


def assert_tells_nothing(body: str, exercise, *, before_check: bool = True) -> None:
    """No line key anywhere in the region's attributes (tokens only), the lines not in the
    solution's order, and no line set apart from the others but by its own text."""
    region = Region.of(body, exercise)
    texts = ExerciseLines.of(exercise).texts
    keys = set(texts)
    for value in region.values:
        assert not words(value) & keys, f"a line key in {value!r}"
    by_text = {" ".join(text.split()): key for key, text in texts.items()}
    shown = [
        by_text[" ".join(line["text"].replace("…", "").split())]
        for line in region.lines
        if " ".join(line["text"].split()) in by_text
    ]
    distractors = set(texts) - set(solution(exercise))
    if before_check:
        assert [key for key in shown if key not in distractors] != solution(exercise) or len(
            solution(exercise)
        ) < 2
    # Every line looks the same as every other in its area, but for its text and token.
    for area in {line["area"] for line in region.lines}:
        looks = {signature(line) for line in region.lines if line["area"] == area}
        assert len(looks) == 1, looks


def signature(line: dict) -> str:
    def plain(attrs: dict) -> tuple:
        kept = []
        for name, value in sorted(attrs.items()):
            value = value or ""
            value = re.sub(r"line-[0-9a-f]{16}", "TOKEN", value)
            if name in {"aria-label"}:
                value = value.split(":")[0]
            kept.append((name, value))
        return tuple(kept)

    inside = tuple(
        (tag, plain(attrs))
        for tag, attrs in line["inside"]
        if tag != "span" or "line-" in str(attrs)
    )
    return repr((plain(line["attrs"]), inside))


def refusals(client, learner, exercise) -> dict[str, str]:
    """What each malformed request gets, by what is wrong with it (htmx: the 400's text)."""
    tokens = list(line_tokens(learner, exercise).values())
    keys = solution(exercise)
    distractors = [key for key in ExerciseLines.of(exercise).texts if key not in keys]
    sent = {
        "empty": {"order": [], "unused": []},
        "partial": {"order": tokens[:-1], "unused": []},
        "twice": {"order": tokens + tokens[:1], "unused": []},
        "content keys in solution order": {"order": keys, "unused": distractors},
    }
    bodies = {}
    for name, data in sent.items():
        for view in ("move", "check"):
            response = client.post(url(view, exercise), {"arrangement": json.dumps(data)}, **HTMX)
            assert response.status_code == 400, (name, view)
            bodies[f"{view}: {name}"] = response.text
    for name, move in {
        "a content key": f"up:{keys[-1]}",
        "no line": "up:",
        "no direction": tokens[0],
    }.items():
        response = client.post(url("move", exercise), {"move": move}, **HTMX)
        assert response.status_code == 400, name
        bodies[f"move: {name}"] = response.text
    response = client.post(url("help", exercise), **HTMX)
    assert response.status_code == 400
    bodies["help too soon"] = response.text
    return bodies


# What each line of a "dependencies" exercise needs before it: with none declared, every
# order would be right, and the shuffle (seeded by row ids) could be the authored one.
NEEDS = {"dependencies, distractors": {"l3": ["l1", "l2"]}}


@pytest.fixture(params=[*SHIPPED, *MADE])
def exercise(request):
    if request.param in SHIPPED:
        request.getfixturevalue("sample_content")
        return OrderingExercise.objects.get(block__key=request.param)
    exercise = make_exercise(make_lesson(), **MADE[request.param])
    for key, required in NEEDS.get(request.param, {}).items():
        exercise.lines.get(key=key).depends_on.set(exercise.lines.filter(key__in=required))
    return exercise


def test_no_response_to_a_learner_gives_the_solution_away(client, exercise):
    reader_page = client.get(exercise.block.lesson.get_absolute_url()).text
    assert_tells_nothing(reader_page, exercise)

    learner = make_user()
    client.force_login(learner)
    lesson_url = exercise.block.lesson.get_absolute_url()
    assert_tells_nothing(client.get(lesson_url).text, exercise)
    assert_tells_nothing(client.get(url("practice", exercise), **HTMX).text, exercise)

    # Malformed arrangements: refused in words that name no line, and nothing changes.
    reference = make_exercise(make_lesson(), lines=["p = 1", "print(p)"], distractors=["q = 2"])
    for (what, body), (_, reference_body) in zip(
        refusals(client, learner, exercise).items(),
        refusals(client, learner, reference).items(),
        strict=True,
    ):
        assert body == reference_body, f"{what}: the refusal depends on the exercise"
        for text in ExerciseLines.of(exercise).texts.values():
            assert html_lib.escape(text.strip()) not in body and text.strip() not in body
    assert not OrderingArrangement.objects.filter(user=learner, exercise=exercise).exists()

    # Without JavaScript a refusal goes back to the page, which says why.
    response = client.post(url("move", exercise), {"arrangement": '{"order": [], "unused": []}'})
    page = client.get(response["Location"]).text
    assert "some are missing" in page
    assert_tells_nothing(page, exercise)

    # A real move (the learner's own order, sent back) and Start again.
    shown = list(line_tokens(learner, exercise).items())
    start = starting_order(user_id=learner.pk, lines=ExerciseLines.of(exercise))
    order = [dict(shown)[key] for key in start]
    response = client.post(
        url("move", exercise), {"arrangement": json.dumps({"order": order, "unused": []})}, **HTMX
    )
    assert response.status_code == 200
    assert_tells_nothing(response.text, exercise)
    response = client.post(url("reset", exercise), **HTMX)
    assert_tells_nothing(response.text, exercise)


def test_help_tells_only_what_it_says(client):
    """Help takes away one distractor by name: the lines left still look all alike."""
    exercise = make_exercise(make_lesson(), **MADE["exact, distractors"])
    learner = make_user()
    client.force_login(learner)
    OrderingArrangement.objects.create(
        user=learner, exercise=exercise, order=["l3", "d2", "l1", "d1", "l2"]
    )
    for _ in range(3):
        actions.check_order(user=learner, exercise=exercise)
    response = client.post(url("help", exercise), **HTMX)
    assert "Help took away" in response.text
    region = Region.of(response.text, exercise)
    assert len(region.lines) == 4
    assert len({signature(line) for line in region.lines}) == 1


@given(
    solution_order=st.permutations(range(5)),
    distractor_count=st.integers(0, 2),
    data=st.data(),
)
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_what_a_learner_gets_does_not_depend_on_the_solution(
    client, solution_order, distractor_count, data
):
    """The same lines, arranged the same by the learner, with another solution and other
    distractors: every page and refusal is the same, byte for byte."""
    texts = [f"line_{n} = {n}" for n in range(5)]
    exercise = make_exercise(
        make_lesson(),
        lines=texts[: 5 - distractor_count],
        distractors=texts[5 - distractor_count :],
    )
    learner = make_user()
    client.force_login(learner)
    arranged = data.draw(st.permutations([line.key for line in exercise.lines.all()]))
    OrderingArrangement.objects.create(user=learner, exercise=exercise, order=arranged)

    def everything() -> list[str]:
        responses = [
            client.get(exercise.block.lesson.get_absolute_url()).text,
            client.get(url("practice", exercise), **HTMX).text,
            *refusals(client, learner, exercise).values(),
        ]
        return [re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", body) for body in responses]

    before = everything()
    # Another solution over the same lines and keys, with as many distractors.
    lines = list(exercise.lines.order_by("key"))
    picked = [lines[n] for n in solution_order]
    for position, line in enumerate(picked, start=1):
        line.position = position if position <= 5 - distractor_count else None
        line.save()
    assert everything() == before
