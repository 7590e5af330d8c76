"""The trail as real browsers send it (issue 36): FormData sends line breaks as CRLF, the
editor counts positions in UTF-16 units, and a cheater sends what no editor would. Each
batch here is built as static/js/trail.js builds it (`editor_batch`)."""

import json

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from tests.factories import make_cohort, make_prediction, make_snippet, make_teacher, make_user
from tutor.trail import actions, encoding
from tutor.trail.models import Trail

pytestmark = pytest.mark.django_db


def utf16(text: str) -> list[str]:
    """The text as JavaScript holds it: one item per UTF-16 unit (an emoji is two)."""
    raw = text.encode("utf-16-le")
    return [chr(int.from_bytes(raw[i : i + 2], "little")) for i in range(0, len(raw), 2)]


def js_splice(old: str, new: str) -> tuple[int, int, str]:
    """trail.js's spliceBetween: on UTF-16 units, so it may cut an emoji's pair in two."""
    a, b = utf16(old), utf16(new)
    start, limit = 0, min(len(a), len(b))
    while start < limit and a[start] == b[start]:
        start += 1
    end = 0
    while end < limit - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    return start, len(a) - start - end, "".join(b[start : len(b) - end])


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def editor_batch(drafts: list[str], *, base: str | None = None, kind: str = "e") -> dict:
    """The fields trail.js posts for the editor going through `drafts` in turn: the edits as
    JSON.stringify writes them (a lone half of a pair as a \\ud83d escape), the code through
    FormData (CRLF)."""
    edits, text = [], drafts[0] if base is None else base
    for draft in drafts if base is not None else drafts[1:]:
        edits.append([100, kind, *js_splice(text, draft)])
        text = draft
    fields = {"edits": json.dumps(edits), "code": crlf(text)}
    if base is not None:
        fields["base"] = crlf(base)
    return fields


def recorded_kinds(trail: Trail) -> list[str]:
    return [step.kind for chunk in trail.chunk_rows.order_by("seq") for step in chunk.steps()]


@pytest.fixture
def learner(client):
    user = make_user()
    client.force_login(user)
    return user


def record(client, snippet, fields):
    return client.post(reverse("tutor:trail_record", args=[snippet.block_id]), fields)


def test_a_multi_line_session_sent_with_crlf_is_recorded_without_a_correction(client, learner):
    snippet = make_snippet(code="")
    first = ["", "def f():\n", "def f():\n    return 1\n"]
    assert record(client, snippet, editor_batch(first[1:], base="")).status_code == 204
    second = editor_batch([first[-1], first[-1] + "print(f())\n"])
    assert record(client, snippet, second).status_code == 204
    trail = Trail.objects.get(user=learner)
    assert trail.text == "def f():\n    return 1\nprint(f())\n"
    assert encoding.SYNC not in recorded_kinds(trail)


def test_typing_after_an_emoji_is_recorded_where_it_was_typed(client, learner):
    snippet = make_snippet(code="")
    drafts = ["s = '😀'\n", "s = '😀!'\n", "s = '😀!'\nprint(s)\n"]
    assert record(client, snippet, editor_batch(drafts, base="")).status_code == 204
    trail = Trail.objects.get(user=learner)
    assert trail.text == drafts[-1]
    assert encoding.SYNC not in recorded_kinds(trail)


def test_changing_one_emoji_to_another_is_recorded_as_a_whole_character(client, learner):
    """😀 (D83D DE00) to 😃 (D83D DE03): the editor's diff changes the second half only."""
    snippet = make_snippet(code="")
    fields = editor_batch(["print('😀')\n", "print('😃')\n"], base="")
    assert json.loads(fields["edits"])[-1][2:] == [8, 1, "\ude03"]  # half a pair, as sent
    assert record(client, snippet, fields).status_code == 204
    trail = Trail.objects.get(user=learner)
    assert trail.text == "print('😃')\n"
    assert encoding.SYNC not in recorded_kinds(trail)
    last = trail.chunk_rows.get().steps()[-1]
    assert (last.pos, last.delete, last.insert) == (7, 1, "😃")


def test_half_a_character_sent_on_purpose_is_refused_and_changes_nothing(client, learner):
    snippet = make_snippet(code="")
    record(client, snippet, editor_batch(["x\n"], base=""))
    lone = json.dumps([[0, "e", 0, 0, "a\ud83db"]])  # not at an end: no other half possible
    response = record(client, snippet, {"edits": lone, "code": "a?bx\n"})
    assert response.status_code == 400
    assert "half of a character" in response.content.decode()
    assert Trail.objects.get(user=learner).text == "x\n"


def test_half_a_character_at_an_edge_with_no_other_half_is_corrected_not_a_500(client, learner):
    snippet = make_snippet(code="")
    lone = json.dumps([[0, "e", 0, 0, "\ude03"]])  # nothing before it to pair with
    response = record(client, snippet, {"edits": lone, "base": "", "code": "\ufffd"})
    assert response.status_code == 204
    trail = Trail.objects.get(user=learner)
    assert trail.text == "\ufffd" and recorded_kinds(trail) == [encoding.SYNC]


@pytest.mark.parametrize(
    "edits",
    [
        json.dumps([[0, "e", 0, 0, "a\ud83db"]]),  # half a character, sent on purpose
        "[" * 50_000 + "]" * 50_000,  # nested 50,000 deep
    ],
)
def test_a_run_carrying_such_edits_is_still_recorded_with_its_code(client, learner, edits):
    snippet = make_snippet(code="print(1)\n")
    make_prediction(learner, snippet)  # revealed: the code is theirs to change
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": crlf("print(1)\nprint(2)\n"), "trail_edits": edits, "trail_has_base": ""},
    )
    assert response.status_code == 302
    trail = Trail.objects.get(user=learner)
    assert trail.text == "print(1)\nprint(2)\n" and trail.runs == 1


def test_a_submission_carrying_such_edits_is_still_in_the_trail(client, learner, sample_content):
    from course.kinds.code_exercise import CodeExercise

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    for edits in (json.dumps([[0, "e", 0, 0, "a\ud83db"]]), "[" * 50_000 + "]" * 50_000):
        response = client.post(
            reverse("tutor:submission_create", args=[exercise.pk]),
            {"code": crlf(exercise.solution), "trail_edits": edits},
        )
        assert response.status_code == 302
    trail = Trail.objects.get(user=learner, block=exercise.block)
    assert trail.submissions == 2 and trail.text == exercise.solution


def test_edits_nested_50000_deep_are_refused_in_words(client, learner):
    snippet = make_snippet(code="a")
    response = record(client, snippet, {"edits": "[" * 50_000 + "]" * 50_000, "code": "a"})
    assert response.status_code == 400
    assert "not readable" in response.content.decode()


def test_a_batch_that_is_not_a_form_or_lacks_the_code_is_refused_and_the_code_kept(
    client, learner
):
    snippet = make_snippet(code="")
    record(client, snippet, editor_batch(["keep me\n"], base=""))
    url = reverse("tutor:trail_record", args=[snippet.block_id])
    for response in (
        client.post(url, json.dumps({"edits": [], "code": ""}), content_type="application/json"),
        client.post(url, {"edits": "[]"}),
    ):
        assert response.status_code == 400
        assert "code it ended with" in response.content.decode()
    assert Trail.objects.get(user=learner).text == "keep me\n"


def test_a_step_that_is_not_an_ascii_number_is_a_400_on_both_replays(client, learner):
    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="")
    actions.record_edits(user=student, block=snippet.block, edits=[], code="x")
    client.force_login(student)
    mine = reverse("tutor:my_trail", args=[snippet.block_id])
    theirs = reverse("tutor:class_trail", args=[cohort.pk, student.pk, snippet.block_id])
    for raw in ("²", "١", "1e3", "abc"):
        assert client.get(mine, {"step": raw}).status_code == 400
    client.force_login(teacher)
    response = client.get(theirs, {"step": "²"})
    assert response.status_code == 400
    assert "must be a number" in response.content.decode()
    assert "Step 1 of 1" in client.get(theirs, {"step": "99999999999"}).content.decode()


# The conversion from the browser's units, for all texts --------------------------------

any_text = st.text(
    alphabet=st.sampled_from(["a", "b", "\n", " ", "é", "😀", "😃", "👍", "🏽", "𝔘", "中"]), max_size=20
)


@given(old=any_text, new=any_text)
def test_an_edit_computed_on_the_utf16_view_makes_the_same_text(old, new):
    pos, delete, insert = js_splice(old, new)
    converted = encoding.from_utf16(old, pos, delete, insert)
    assert encoding.Step(0, encoding.EDIT, *converted).apply(old) == new


@given(drafts=st.lists(any_text, min_size=1, max_size=8))
def test_a_session_of_edits_sent_as_the_editor_sends_them_replays_to_each_draft(drafts):
    user, snippet = make_user(), make_snippet(code="")
    fields = editor_batch(drafts, base="")
    edits = encoding.parse_batch(fields["edits"])
    trail = actions.record_edits(
        user=user,
        block=snippet.block,
        edits=edits,
        code=drafts[-1],
        base="",
    )
    assert trail.text == drafts[-1]
    assert encoding.SYNC not in recorded_kinds(trail)
