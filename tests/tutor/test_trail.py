"""The trail: batches of edits and moments recorded, replayed step by step, watched live."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import (
    make_cohort,
    make_lesson,
    make_prediction,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.trail import actions, encoding, replay
from tutor.trail.models import CHECKPOINT_EVERY, Trail, TrailChunk

pytestmark = pytest.mark.django_db

texts = st.text(alphabet="ab\n x=()", max_size=30)


def replay_every_step(trail: Trail) -> list[str]:
    """The text after each step, replayed from the start (not through checkpoints)."""
    chunks = list(trail.chunk_rows.order_by("seq"))
    text, seen = chunks[0].checkpoint, []
    for chunk in chunks:
        for step in chunk.steps():
            text = step.apply(text)
            seen.append(text)
    return seen


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    batches=st.lists(
        st.tuples(
            st.lists(
                st.tuples(st.sampled_from("ep"), st.integers(0, 40), st.integers(0, 5), texts),
                max_size=6,
            ),
            texts,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_replaying_the_trail_rebuilds_the_code_of_every_batch_exactly(batches):
    """Whatever the browser sends (edits that fit or not), the trail ends each batch at the
    code the editor had, and the replay shows it at that step."""
    user = make_user()
    snippet = make_snippet(code="print(1)\n")
    ends = []
    for edits, code in batches:
        trail = actions.record_edits(
            user=user,
            block=snippet.block,
            edits=[(0, kind, pos, delete, insert) for kind, pos, delete, insert in edits],
            code=code,
        )
        ends.append((trail.steps, code))
    trail = Trail.objects.get(user=user, block=snippet.block)
    every = replay_every_step(trail)
    for steps, code in ends:
        assert trail.text == ends[-1][1]
        if steps:
            assert every[steps - 1] == code
            assert replay.step_of(trail, steps).text == code


def test_a_batch_of_typing_and_a_paste_is_one_chunk_with_its_figures():
    user = make_user()
    snippet = make_snippet(code="")
    pasted = "for i in range(3):\n    print(i)\n"
    trail = actions.record_edits(
        user=user,
        block=snippet.block,
        edits=[(3000, "e", 0, 0, "x = 1\n"), (2000, "p", 6, 0, pasted), (0, "e", 6, 0, "# mine\n")],
        code="x = 1\n# mine\n" + pasted,
    )
    assert trail.steps == 3 and trail.chunks == 1
    assert trail.largest_paste == len(pasted)
    assert trail.marks == [[2, encoding.PASTE, len(pasted)]]
    assert trail.active_seconds == 3
    actions.record_moment(user=user, block=snippet.block, what=actions.RUN, code=trail.text)
    trail.refresh_from_db()
    assert (trail.runs, trail.steps, trail.chunks) == (1, 4, 2)


def test_an_edit_that_does_not_fit_is_corrected_so_the_code_is_never_lost():
    user = make_user()
    snippet = make_snippet(code="abc")
    trail = actions.record_edits(
        user=user, block=snippet.block, edits=[(0, "e", 99, 0, "x")], code="abcd"
    )
    assert trail.text == "abcd"
    assert [step.kind for step in TrailChunk.objects.get(trail=trail).steps()] == [encoding.SYNC]


def test_a_run_with_code_the_trail_has_not_seen_records_the_code_first():
    """Without JavaScript, runs and submissions are the trail."""
    user = make_user()
    snippet = make_snippet(code="print(1)\n")
    actions.record_moment(user=user, block=snippet.block, what=actions.RUN, code="print(2)\n")
    trail = Trail.objects.get(user=user)
    assert trail.text == "print(2)\n"
    assert [step.kind for step in trail.chunk_rows.get().steps()] == [encoding.SYNC, encoding.RUN]


def test_a_step_far_into_a_long_trail_costs_the_same_queries_as_an_early_one():
    user = make_user()
    snippet = make_snippet(code="")
    text = ""
    for n in range(CHECKPOINT_EVERY * 4):
        insert = f"line {n}\n"
        actions.record_edits(
            user=user,
            block=snippet.block,
            edits=[(0, "e", len(text), 0, insert)],
            code=text + insert,
        )
        text += insert
    trail = Trail.objects.get(user=user)
    with CaptureQueriesContext(connection) as early:
        assert replay.step_of(trail, 3).text == "".join(f"line {n}\n" for n in range(3))
    with CaptureQueriesContext(connection) as late:
        assert replay.step_of(trail, trail.steps).text == text
    assert len(early) == len(late) == 2
    assert trail.chunk_rows.filter(checkpoint__isnull=False).count() == 4


def test_purging_deletes_trails_older_than_the_days_kept():
    from datetime import timedelta

    from django.utils import timezone

    user = make_user()
    old, recent = make_snippet(), make_snippet()
    actions.record_moment(user=user, block=old.block, what=actions.RUN, code="x")
    actions.record_moment(user=user, block=recent.block, what=actions.RUN, code="y")
    Trail.objects.filter(block=old.block).update(updated_at=timezone.now() - timedelta(days=31))
    assert actions.purge_older_than(days=30) == 1
    assert list(Trail.objects.values_list("block", flat=True)) == [recent.block_id]
    assert not TrailChunk.objects.filter(trail__block=old.block).exists()


# The endpoint ------------------------------------------------------------------------


def batch(edits, code, **more):
    return {"edits": json.dumps(edits), "code": code, **more}


def test_the_editor_batch_is_recorded_for_the_learner(client):
    user = make_user()
    snippet = make_snippet(code="a")
    client.force_login(user)
    url = reverse("tutor:trail_record", args=[snippet.block_id])
    response = client.post(url, batch([[500, "e", 1, 0, "b"]], "ab", base="a"))
    assert response.status_code == 204
    assert Trail.objects.get(user=user).text == "ab"


@pytest.mark.parametrize(
    "data",
    [
        {"edits": "not json", "code": "a"},
        {"edits": '[[0, "z", 0, 0, ""]]', "code": "a"},
        {"edits": "[]", "code": "x" * 20_001},
    ],
)
def test_a_bad_batch_is_refused_and_changes_nothing(client, data):
    snippet = make_snippet()
    client.force_login(make_user())
    response = client.post(reverse("tutor:trail_record", args=[snippet.block_id]), data)
    assert response.status_code == 400
    assert not Trail.objects.exists()


def test_a_block_without_an_editor_or_in_a_draft_lesson_is_not_found(client):
    from tests.factories import make_block

    client.force_login(make_user())
    prose = make_block(make_lesson(), "prose")
    hidden = make_snippet(make_lesson(status="draft"))
    for block in (prose, hidden.block):
        response = client.post(reverse("tutor:trail_record", args=[block.pk]), batch([], "x"))
        assert response.status_code == 404


# Replay and watching ------------------------------------------------------------------


@pytest.fixture
def recorded():
    student, teacher = make_user("stu"), make_teacher("tea")
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
    return {
        "student": student,
        "teacher": teacher,
        "cohort": cohort,
        "snippet": snippet,
        "pasted": pasted,
    }


def class_trail_url(w, name="class_trail"):
    return reverse(f"tutor:{name}", args=[w["cohort"].pk, w["student"].pk, w["snippet"].block_id])


def test_the_teacher_replays_a_step_and_sees_the_paste_marked(client, recorded):
    client.force_login(recorded["teacher"])
    response = client.get(class_trail_url(recorded) + "?step=2")
    page = response.content.decode()
    assert response.status_code == 200
    assert "Step 2 of 3" in page
    assert f"Pasted {len(recorded['pasted'])} characters (2 lines)" in page
    assert (
        '<mark class="trail-paste"><span class="visually-hidden">[pasted:]</span>def f():</mark>'
        in page
    )
    assert (
        "Run (step 3)" in page and f"Paste of {len(recorded['pasted'])} characters (step 2)" in page
    )


def test_the_replay_step_is_a_partial_for_htmx(client, recorded):
    client.force_login(recorded["teacher"])
    response = client.get(class_trail_url(recorded) + "?step=1", headers={"HX-Request": "true"})
    page = response.content.decode()
    assert page.lstrip().startswith('<section id="replay-step"')
    assert "Typed 5 characters" in page
    assert response["HX-Replace-Url"].endswith("?step=1")


def test_a_step_past_the_end_or_not_a_number_shows_an_end(client, recorded):
    client.force_login(recorded["teacher"])
    assert "Step 3 of 3" in client.get(class_trail_url(recorded) + "?step=99").content.decode()
    assert "Step 0 of 3" in client.get(class_trail_url(recorded) + "?step=-4").content.decode()


def test_the_student_sees_their_own_trail(client, recorded):
    client.force_login(recorded["student"])
    response = client.get(
        reverse("tutor:my_trail", args=[recorded["snippet"].block_id]) + "?step=3"
    )
    assert response.status_code == 200
    assert "Ran the code." in response.content.decode()


def test_watching_shows_the_students_code_now_in_fixed_queries(
    client, recorded, django_assert_max_num_queries
):
    client.force_login(recorded["teacher"])
    url = class_trail_url(recorded, "trail_watch")
    response = client.get(url)
    assert "return 42" in response.content.decode()
    with CaptureQueriesContext(connection) as first:
        client.get(url, headers={"HX-Request": "true"})
    actions.record_edits(
        user=recorded["student"],
        block=recorded["snippet"].block,
        edits=[],
        code="print('changed')\n",
    )
    with CaptureQueriesContext(connection) as second:
        partial = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "print(&#x27;changed&#x27;)" in partial
    assert len(first) == len(second) <= 7  # session, user, teacher, class, student, block, trail


def test_watching_a_student_with_no_trail_says_so(client, recorded):
    other = make_snippet(code="")
    client.force_login(recorded["teacher"])
    url = reverse(
        "tutor:trail_watch", args=[recorded["cohort"].pk, recorded["student"].pk, other.block_id]
    )
    assert "They have not changed this code yet." in client.get(url).content.decode()


def test_the_timeline_and_my_progress_show_the_figures_and_link_the_replay(client, recorded):
    w = recorded
    client.force_login(w["teacher"])
    page = client.get(
        reverse("tutor:class_student", args=[w["cohort"].pk, w["student"].pk])
    ).content.decode()
    assert "How the code was made" in page
    assert f"{len(w['pasted'])} characters" in page
    assert class_trail_url(w) in page
    client.force_login(w["student"])
    page = client.get(reverse("tutor:my_progress")).content.decode()
    assert reverse("tutor:my_trail", args=[w["snippet"].block_id]) in page
    assert f"{len(w['pasted'])} characters" in page


def test_the_live_view_links_to_watching_a_student_on_a_code_block(client, recorded):
    from tutor.live.actions import record

    w = recorded
    record(user=w["student"], block=w["snippet"].block, what="ran their code")
    client.force_login(w["teacher"])
    page = client.get(
        reverse("tutor:live_view", args=[w["cohort"].pk, w["snippet"].block.lesson_id])
    ).content.decode()
    assert f'href="{class_trail_url(w, "trail_watch")}"' in page


def test_the_purge_command_and_the_daily_task_keep_the_recent_trails(settings):
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    from tutor import tasks

    user = make_user()
    old, older, recent = make_snippet(), make_snippet(), make_snippet()
    for snippet in (old, older, recent):
        actions.record_moment(user=user, block=snippet.block, what=actions.RUN, code="x")
    Trail.objects.filter(block=old.block).update(updated_at=timezone.now() - timedelta(days=10))
    Trail.objects.filter(block=older.block).update(updated_at=timezone.now() - timedelta(days=100))
    settings.TRAIL_RETENTION_DAYS = 30
    assert tasks.purge_old_trails() == 1
    call_command("purge_trails", "--days", "5")
    assert list(Trail.objects.values_list("block", flat=True)) == [recent.block_id]


def test_a_run_carries_the_edits_not_sent_yet_and_records_them_before_it(client):
    """trail.js puts the edits it has not sent into the run's form: one write, in order."""
    user = make_user()
    snippet = make_snippet(code="print(1)\n")
    make_prediction(user, snippet)  # revealed: the code is theirs to change
    client.force_login(user)
    pasted = "for i in range(2):\n    print(i)\n"
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {
            "code": "print(1)\n" + pasted,
            "trail_edits": json.dumps([[900, "p", 9, 0, pasted]]),
            "trail_base": "print(1)\n",
            "trail_has_base": "1",
        },
    )
    assert response.status_code == 302
    trail = Trail.objects.get(user=user)
    kinds = [step.kind for step in trail.chunk_rows.get().steps()]
    assert kinds == [encoding.PASTE, encoding.RUN]
    assert trail.largest_paste == len(pasted) and trail.runs == 1


def test_a_run_whose_carried_edits_are_unreadable_still_records_its_code(client):
    user = make_user()
    snippet = make_snippet(code="print(1)\n")
    make_prediction(user, snippet)  # revealed: the code is theirs to change
    client.force_login(user)
    client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": "print(3)\n", "trail_edits": "{nope"},
    )
    assert Trail.objects.get(user=user).text == "print(3)\n"


def test_the_lessons_page_of_the_class_shows_each_students_figures_per_item(client, recorded):
    w = recorded
    client.force_login(w["teacher"])
    lesson = w["snippet"].block.lesson
    page = client.get(
        reverse("tutor:class_lesson", args=[w["cohort"].pk, lesson.pk])
    ).content.decode()
    assert "How the code was made" in page
    assert f"<strong>{len(w['pasted'])} characters</strong>" in page
    assert class_trail_url(w) in page


def test_without_javascript_each_submission_is_recorded_with_its_code(client, sample_content):
    """A plain form post carries no edits: the trail is the code of each submission."""
    from course.kinds.code_exercise import CodeExercise

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    client.force_login(make_user())
    url = reverse("tutor:submission_create", args=[exercise.pk])
    for code in (exercise.starter + "# first try\n", exercise.solution):
        assert client.post(url, {"code": code}).status_code == 302
    trail = Trail.objects.get(block=exercise.block)
    assert trail.submissions == 2 and trail.text == exercise.solution
    kinds = [step.kind for chunk in trail.chunk_rows.order_by("seq") for step in chunk.steps()]
    assert kinds == [encoding.SYNC, encoding.SUBMIT, encoding.SYNC, encoding.SUBMIT]
    assert replay.step_of(trail, 1).text == exercise.starter + "# first try\n"


def test_the_trail_pages_name_the_item_by_its_title_not_its_key(client, recorded):
    w = recorded
    block = w["snippet"].block
    block.title, block.key = "Count the tokens", "count-key"
    block.save()
    client.force_login(w["teacher"])
    for url in (
        class_trail_url(w),
        class_trail_url(w, "trail_watch"),
        reverse("tutor:class_student", args=[w["cohort"].pk, w["student"].pk]),
    ):
        page = client.get(url).content.decode()
        assert "Count the tokens" in page, url
        assert "count-key" not in page, url
    client.force_login(w["student"])
    page = client.get(reverse("tutor:my_progress")).content.decode()
    assert "Count the tokens" in page and "count-key" not in page


def test_a_few_seconds_of_typing_read_under_a_minute_not_zero_minutes(client, recorded):
    w = recorded
    trail = Trail.objects.get(user=w["student"], block=w["snippet"].block)
    assert 0 < trail.active_seconds < 30
    client.force_login(w["teacher"])
    assert "<p>Under a minute active, 1 run" in client.get(class_trail_url(w)).content.decode()
    watching = client.get(class_trail_url(w, "trail_watch")).content.decode()
    assert "; under a minute active, 1 run" in watching
    for url in (
        reverse("tutor:class_student", args=[w["cohort"].pk, w["student"].pk]),
        reverse("tutor:class_lesson", args=[w["cohort"].pk, w["snippet"].block.lesson_id]),
    ):
        assert "<td>under a minute</td>" in client.get(url).content.decode(), url
    trail.active_seconds = 600
    trail.save()
    assert "<p>10 minutes active," in client.get(class_trail_url(w)).content.decode()


def test_watching_starts_its_breadcrumbs_at_classes_as_the_other_teaching_pages_do(
    client, recorded
):
    client.force_login(recorded["teacher"])
    page = client.get(class_trail_url(recorded, "trail_watch")).content.decode()
    crumbs = page[page.index('aria-label="Breadcrumbs"') :]
    assert crumbs.index(f'href="{reverse("tutor:class_list")}"') < crumbs.index(
        recorded["cohort"].name
    )


def test_a_submission_step_shows_its_result_and_a_deletion_shows_where(client, sample_content):
    """Issue 39.6: the replay says how a submission did, and marks where text was deleted."""
    from course.kinds.code_exercise import CodeExercise
    from tutor.practice.code_exercise.models import Submission

    student, teacher = make_user("stu"), make_teacher("tea")
    cohort = make_cohort(teacher, students=[student])
    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    Submission.objects.create(
        user=student,
        exercise=exercise,
        code="x = 1\n",
        verdict=Submission.Verdict.FAILED,
        tests_total=6,
        tests_passed=4,
        graded_at=timezone.now(),
    )
    actions.record_moment(user=student, block=exercise.block, what=actions.SUBMIT, code="x = 1\n")
    actions.record_edits(user=student, block=exercise.block, edits=[(0, "e", 1, 4, "")], code="x\n")
    client.force_login(teacher)
    url = reverse("tutor:class_trail", args=[cohort.pk, student.pk, exercise.block_id])
    page = client.get(url + "?step=2").content.decode()
    assert "Submitted the code." in page and "4 of 6 tests pass." in page
    page = client.get(url + "?step=3").content.decode()
    assert "Deleted 4 characters." in page
    assert (
        'id="trail-change"><span class="trail-line-number" aria-hidden="true">1</span>x<span class="trail-deleted"'
        in page
    )


def test_a_moments_code_is_escaped_once(client, recorded):
    client.force_login(recorded["teacher"])
    actions.record_moment(
        user=recorded["student"],
        block=recorded["snippet"].block,
        what=actions.RUN,
        code='print("a")\n',
    )
    page = client.get(class_trail_url(recorded) + "?step=5").content.decode()
    assert "Ran the code." in page and "print(&quot;a&quot;)" in page and "&amp;quot;" not in page
