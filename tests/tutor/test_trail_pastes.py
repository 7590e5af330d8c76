"""Pastes marked by what they are, not by what the batch claims, and how much one student
may record (issue 36)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from tests.factories import make_cohort, make_prediction, make_snippet, make_teacher, make_user
from tutor.trail import actions, encoding
from tutor.trail.models import Trail, TrailChunk

pytestmark = pytest.mark.django_db

SOLUTION = "".join(f"value_{n} = compute(value_{n - 1}, {n})\n" for n in range(1, 27))


def pastes_of(trail: Trail) -> list:
    return [mark for mark in trail.marks if mark[1] == encoding.PASTE]


def send(user, block, edits, *, code, at, base=None):
    """One batch of (seconds before `at`, kind, pos, delete, insert)."""
    return actions.record_edits(
        user=user,
        block=block,
        edits=[
            (int(ago * 1000), kind, pos, delete, insert) for ago, kind, pos, delete, insert in edits
        ],
        code=code,
        base=base,
        now=at,
    )


def test_two_thousand_characters_that_say_they_were_typed_are_a_paste():
    user, snippet = make_user(), make_snippet(code="")
    big = "x = 1\n" * 334
    trail = send(user, snippet.block, [(1, "e", 0, 0, big)], code=big, at=timezone.now())
    assert pastes_of(trail) == [[1, encoding.PASTE, len(big)]]
    assert trail.largest_paste == len(big)


@pytest.mark.parametrize("kind", [encoding.PASTE, encoding.EDIT])
def test_a_solution_pasted_in_26_pieces_is_one_paste(kind):
    """26 lines of under 40 characters, a batch every 4 s as the editor sends them, each
    line a piece; said to be pasted, or said to be typed (but faster than anyone types)."""
    user, snippet = make_user(), make_snippet(code="")
    lines = SOLUTION.splitlines(keepends=True)
    assert all(len(line) < encoding.PASTE_MIN_CHARS for line in lines)
    start, text, trail = timezone.now() - timedelta(minutes=5), "", None
    for batch in range(0, 26, 13):  # two batches, 4 s apart: the window spans them
        edits = []
        for n, line in enumerate(lines[batch : batch + 13]):
            edits.append((4 - n * 0.3, kind, len(text), 0, line))
            text += line
        trail = send(
            user,
            snippet.block,
            edits,
            code=text,
            at=start + timedelta(seconds=4 * (batch // 13 + 1)),
        )
    found = pastes_of(trail)
    assert len(found) == 1
    first, _, chars, last = found[0]
    assert last == 26 and first <= 2 and chars >= len(SOLUTION) - 2 * 40


def test_a_minute_of_fast_honest_typing_is_no_paste():
    """Ten characters a second, as the editor sends them: a step for each 2 s of typing at
    one place, a new line's indentation added by the editor."""
    user, snippet = make_user(), make_snippet(code="")
    start, text = timezone.now() - timedelta(minutes=5), ""
    pieces = [
        "def total(values):\n    ",
        "result = 0\n    for v ",
        "in values:\n        ",
        "result += v\n    return",
        " result\n",
    ]
    for second in range(0, 60, 4):
        edits = []
        for offset, piece in ((4, pieces[second % 5]), (2, pieces[(second + 1) % 5][:19])):
            edits.append((offset, encoding.EDIT, len(text), 0, piece))
            text += piece
        trail = send(
            user, snippet.block, edits, code=text, at=start + timedelta(seconds=second + 4)
        )
    assert pastes_of(trail) == []


def test_a_small_paste_of_a_name_is_not_marked():
    user, snippet = make_user(), make_snippet(code="")
    trail = send(
        user, snippet.block, [(1, "p", 0, 0, "value_1")], code="value_1", at=timezone.now()
    )
    assert pastes_of(trail) == [] and trail.largest_paste == 0


def test_code_that_arrives_unrecorded_faster_than_typing_is_a_paste():
    user, snippet = make_user(), make_snippet(code="")
    start = timezone.now() - timedelta(minutes=30)
    send(user, snippet.block, [(1, "e", 0, 0, "# start\n")], code="# start\n", at=start)
    soon = send(
        user, snippet.block, [], code="# start\n" + SOLUTION, at=start + timedelta(seconds=3)
    )
    assert pastes_of(soon) == [[2, encoding.PASTE, len(SOLUTION)]]
    other = make_snippet(code="")
    send(user, other.block, [(1, "e", 0, 0, "# start\n")], code="# start\n", at=start)
    slow = send(
        user, other.block, [], code="# start\n" + SOLUTION, at=start + timedelta(minutes=10)
    )
    assert pastes_of(slow) == []  # typed at 1.6 a second, unrecorded: the correction shows it


def test_the_replay_marks_a_paste_it_was_not_told_of(client):
    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="")
    send(student, snippet.block, [(1, "e", 0, 0, SOLUTION)], code=SOLUTION, at=timezone.now())
    client.force_login(teacher)
    url = reverse("tutor:class_trail", args=[cohort.pk, student.pk, snippet.block_id])
    page = client.get(url + "?step=1").content.decode()
    assert "More at once than anyone types: marked as a paste." in page
    assert (
        'class="trail-line trail-line-changed trail-line-pasted trail-line-from-paste" id="trail-change"'
        in page
    )
    assert f"Paste of {len(SOLUTION)} characters (step 1)" in page


def test_the_judging_rule_in_words():
    from tutor.trail import pastes

    def one(number, at_ms, insert, kind=encoding.EDIT, after=100):
        return pastes.Insertion.of(number, at_ms, encoding.Step(0, kind, 0, 0, insert), after)

    marks = []
    pastes.judge([one(1, 0, "x = 1\ny = 2\n", encoding.PASTE)], recent=[], marks=marks)
    assert marks == [[1, encoding.PASTE, 12]]  # said to be pasted, more than a line
    marks = []
    pastes.judge([one(1, 0, "if x:\n" + " " * 36 + "y")], recent=[], marks=marks)
    assert marks == []  # the editor's indentation is not typed
    marks = []
    pastes.judge([one(1, 0, "a" * 40)], recent=[], marks=marks)
    assert marks == [[1, encoding.PASTE, 40]]


# How much one student may record -------------------------------------------------------


def test_more_batches_than_an_hour_allows_are_refused_in_words_and_the_teacher_sees_it(
    client, monkeypatch
):
    monkeypatch.setattr(actions, "BATCHES_PER_HOUR", 3)
    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="print(1)\n")
    make_prediction(student, snippet)
    client.force_login(student)
    url = reverse("tutor:trail_record", args=[snippet.block_id])
    text = "print(1)\n"
    for _ in range(3):
        assert (
            client.post(
                url, {"edits": f'[[0, "e", {len(text)}, 0, "#"]]', "code": text + "#"}
            ).status_code
            == 204
        )
        text += "#"
    refused = client.post(url, {"edits": f'[[0, "e", {len(text)}, 0, "x"]]', "code": text + "x"})
    assert refused.status_code == 429
    assert "as much of your editing as it keeps in an hour" in refused.content.decode()
    trail = Trail.objects.get(user=student)
    assert trail.text == text and trail.refused == 1 and trail.chunks == 3
    # A run is still recorded, with its code (not the edits it carried).
    client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": text + "x\n", "trail_edits": f'[[0, "e", {len(text)}, 0, "x"]]'},
    )
    trail.refresh_from_db()
    assert trail.runs == 1 and trail.text == text + "x\n" and trail.refused == 2
    client.force_login(teacher)
    page = client.get(
        reverse("tutor:class_trail", args=[cohort.pk, student.pk, snippet.block_id])
    ).content.decode()
    assert "2 batches of edits were not recorded" in page


def test_more_characters_than_an_hour_allows_are_refused(monkeypatch):
    monkeypatch.setattr(actions, "CHARACTERS_PER_HOUR", 30_000)
    user = make_user()
    stored = []
    for n in range(5):
        snippet = make_snippet(code="")  # over every trail of the student's
        big = f"# {n}\n" + "x" * 10_000
        try:
            send(user, snippet.block, [(0, "p", 0, 0, big)], code=big, at=timezone.now())
        except actions.RecordingRefused:
            stored.append(False)
        else:
            stored.append(True)
    assert stored == [True, True, True, False, False]
    assert TrailChunk.objects.filter(trail__user=user).count() == 3


def test_text_the_code_already_had_is_no_paste(client):
    """Duplicating a block, an undo that brings a deleted block back, cut and paste: the
    text was the student's already."""
    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="")
    block_of_code = "for value in values:\n    total += value * weight\n"
    start = timezone.now() - timedelta(minutes=5)
    text = ""
    for n, char in enumerate(block_of_code):  # typed, a character at a time
        send(
            student,
            snippet.block,
            [(0, "e", n, 0, char)],
            code=text + char,
            at=start + timedelta(seconds=n),
        )
        text += char
    at = start + timedelta(seconds=len(text) + 5)
    trail = send(
        student,
        snippet.block,
        [
            (3, "p", len(text), 0, block_of_code),
            (2, "e", 0, len(text), ""),
            (1, "e", 0, 0, block_of_code),
        ],
        code=block_of_code * 2,
        at=at,
    )
    assert pastes_of(trail) == []
    assert trail.largest_paste == 0
    client.force_login(teacher)
    url = reverse("tutor:class_trail", args=[cohort.pk, student.pk, snippet.block_id])
    page = client.get(url, {"step": trail.steps - 2}).content.decode()
    assert "Text the code already had" in page
    # Something new of the same size is a paste.
    fresh = "while tries < limit:\n    tries = attempt(tries) + 1\n"
    trail = send(
        student,
        snippet.block,
        [(0, "p", 0, 0, fresh)],
        code=fresh + block_of_code * 2,
        at=at + timedelta(seconds=5),
    )
    assert pastes_of(trail) == [[trail.steps, encoding.PASTE, len(fresh)]]


def test_pieces_pasted_around_a_run_are_one_paste_listed_once(client):
    """A run between the pieces (its form carries the pieces not sent yet) does not split
    the paste in two overlapping ones."""
    user, snippet = make_user(), make_snippet(code="")
    make_prediction(user, snippet)
    lines = SOLUTION.splitlines(keepends=True)
    at, text = timezone.now() - timedelta(seconds=2), ""
    edits = []
    for n, line in enumerate(lines[:8]):
        edits.append((3 - n * 0.3, "p", len(text), 0, line))
        text += line
    send(user, snippet.block, edits, code=text, at=at)
    actions.record_moment(user=user, block=snippet.block, what=actions.RUN, code=text)
    more = text + lines[8]
    trail = send(
        user,
        snippet.block,
        [(0, "p", len(text), 0, lines[8])],
        code=more,
        at=timezone.now() + timedelta(seconds=1),
    )
    assert len(pastes_of(trail)) == 1


def test_a_paste_in_pieces_is_listed_with_its_steps(client):
    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="")
    lines = SOLUTION.splitlines(keepends=True)[:6]
    edits, text = [], ""
    for n, line in enumerate(lines):
        edits.append((3 - n * 0.3, "p", len(text), 0, line))
        text += line
    send(student, snippet.block, edits, code=text, at=timezone.now())
    client.force_login(teacher)
    url = reverse("tutor:class_trail", args=[cohort.pk, student.pk, snippet.block_id])
    page = client.get(url, {"step": 4}).content.decode()
    assert f"Paste in pieces of {len(text)} characters (steps 1–6)" in page
    assert "Part of a paste in pieces" in page


# Where pasted text sits at every later step ----------------------------------------------


@given(
    size=st.integers(0, 30),
    span=st.tuples(st.integers(0, 30), st.integers(0, 30)),
    edits=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 5), st.integers(0, 4)), max_size=8),
)
def test_carried_spans_hold_exactly_the_pasted_characters_still_there(size, span, edits):
    from tutor.trail import pastes

    text = "".join(chr(0x100 + i) for i in range(size))  # every character different
    start, end = sorted((min(span[0], size), min(span[1], size)))
    pasted = set(text[start:end])
    spans, fresh = [[start, end]], 0x1000
    for pos, delete, inserted in edits:
        pos = min(pos, len(text))
        delete = min(delete, len(text) - pos)
        insert = "".join(chr(fresh + i) for i in range(inserted))
        fresh += inserted
        step = encoding.Step(0, encoding.EDIT, pos, delete, insert)
        spans = pastes.carry(spans, step)
        text = step.apply(text)
    inside = "".join(text[a:b] for a, b in spans)
    assert set(inside) == pasted & set(text) and len(inside) == len(set(inside))


def test_pasted_lines_stay_marked_at_every_later_step_across_checkpoints(client):
    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    snippet = make_snippet(code="")
    pasted = "def helper(values):\n    return sum(values) * 2\n"
    at = timezone.now() - timedelta(minutes=20)
    send(student, snippet.block, [(0, "p", 0, 0, pasted)], code=pasted, at=at)
    text = pasted
    for n in range(40):  # 40 batches of typing above it: two checkpoints on
        line = f"x{n} = {n}\n"
        send(
            student,
            snippet.block,
            [(0, "e", 0, 0, line)],
            code=line + text,
            at=at + timedelta(seconds=5 * n + 5),
        )
        text = line + text
    trail = Trail.objects.get(user=student)
    assert (
        trail.chunks == 41 and trail.chunk_rows.filter(checkpoint_spans__isnull=False).count() == 3
    )
    client.force_login(teacher)
    url = reverse("tutor:class_trail", args=[cohort.pk, student.pk, snippet.block_id])
    page = client.get(url, {"step": trail.steps}).content.decode()
    from_paste = page.count("trail-line-from-paste")
    assert from_paste == 2  # the two pasted lines, now lines 41 and 42
    assert "An amber line number" in page
    assert (
        '<span class="trail-line-number" aria-hidden="true">41</span>def helper(values):'
        '<span class="visually-hidden"> [this line holds pasted text]</span>' in page
    )
