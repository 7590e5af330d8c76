import threading

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_exercise, make_lesson, make_snippet, make_user
from tutor import queueing
from tutor.actions.progress import recompute_all_progress, refresh_lesson_progress
from tutor.models import LessonProgress, Run
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db


def predict(user, snippet, verdict=Prediction.Verdict.RIGHT, first=True):
    return Prediction.objects.create(
        user=user,
        snippet=snippet,
        snippet_version=snippet.version,
        text="x",
        verdict=verdict,
        is_first=first,
    )


def solve(user, exercise):
    OrderingArrangement.objects.create(user=user, exercise=exercise, solved_at=timezone.now())
    return OrderingAttempt.objects.create(
        user=user, exercise=exercise, order=[], verdict=OrderingAttempt.Verdict.SOLVED
    )


@pytest.fixture
def lesson_with_items():
    lesson = make_lesson()
    snippets = [make_snippet(lesson), make_snippet(lesson)]
    exercise = make_exercise(lesson)
    return lesson, snippets, exercise


def test_progress_counts_predictions_solved_exercises_and_runs(lesson_with_items):
    lesson, (first, second), exercise = lesson_with_items
    user = make_user()
    predict(user, first, Prediction.Verdict.WRONG)
    predict(user, first, Prediction.Verdict.RIGHT, first=False)
    Run.objects.create(user=user, snippet=first, code="print(1)", status=Run.Status.OK)
    progress = refresh_lesson_progress(user=user, lesson=lesson)
    assert (progress.snippets_predicted, progress.snippets_total) == (1, 2)
    assert progress.predictions_right == 0  # the first prediction is the one that counts
    assert (progress.exercises_solved, progress.exercises_total) == (0, 1)
    assert progress.runs == 1
    assert progress.percent == 33
    assert not progress.is_complete


def test_a_lesson_is_complete_when_every_snippet_is_predicted_and_every_exercise_solved(
    lesson_with_items,
):
    lesson, snippets, exercise = lesson_with_items
    user = make_user()
    for snippet in snippets:
        predict(user, snippet)
    assert not refresh_lesson_progress(user=user, lesson=lesson).is_complete
    solve(user, exercise)
    progress = refresh_lesson_progress(user=user, lesson=lesson)
    assert progress.is_complete
    assert progress.percent == 100
    assert progress.predictions_right == 2


def test_pending_predictions_do_not_count_yet(lesson_with_items):
    lesson, (first, _), _ = lesson_with_items
    user = make_user()
    predict(user, first, Prediction.Verdict.PENDING)
    assert refresh_lesson_progress(user=user, lesson=lesson).snippets_predicted == 0


def test_recompute_rebuilds_progress_from_stored_attempts(lesson_with_items):
    lesson, snippets, exercise = lesson_with_items
    user = make_user()
    for snippet in snippets:
        predict(user, snippet)
    solve(user, exercise)
    LessonProgress.objects.all().delete()
    call_command("recompute_progress", verbosity=0)
    progress = LessonProgress.objects.get(user=user, lesson=lesson)
    assert progress.is_complete
    assert recompute_all_progress() == 1


@pytest.mark.django_db(transaction=True)
def test_two_refreshes_landing_together_lose_nothing(lesson_with_items):
    lesson, (first, second), exercise = lesson_with_items
    user = make_user()
    predict(user, first)
    predict(user, second)
    solve(user, exercise)
    errors = []

    def refresh():
        try:
            refresh_lesson_progress(user=user, lesson=lesson)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=refresh) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert LessonProgress.objects.filter(user=user, lesson=lesson).count() == 1
    assert LessonProgress.objects.get(user=user, lesson=lesson).is_complete


def test_my_progress_needs_an_account(client):
    response = client.get(reverse("tutor:my_progress"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_my_progress_shows_courses_lessons_accuracy_and_where_to_continue(
    client, lesson_with_items
):
    lesson, (first, second), exercise = lesson_with_items
    user = make_user()
    predict(user, first)
    refresh_lesson_progress(user=user, lesson=lesson)
    client.force_login(user)
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert lesson.course.title in html
    assert "0 of 1 lesson complete" in html
    assert "1 of 2 snippets predicted" in html
    assert "No lesson finished yet" in html
    assert (
        "right of the time" not in html and "Your first predictions" not in html
    )  # one says nothing
    assert f"Continue where you left off: {lesson.title}" in html
    assert lesson.get_absolute_url() in html


def test_my_progress_leads_with_what_is_done_and_what_comes_next(client, lesson_with_items):
    lesson, snippets, exercise = lesson_with_items
    following = make_lesson(course=lesson.course, title="The next one")
    make_snippet(following)
    user = make_user()
    for snippet in snippets:
        predict(user, snippet)
    solve(user, exercise)
    refresh_lesson_progress(user=user, lesson=lesson)
    client.force_login(user)
    html = client.get(reverse("tutor:my_progress")).content.decode()
    start = html.index("<h1>My progress</h1>")
    intro = html[start : html.index("</header>", start)]
    assert "You have finished <strong>1 of 2</strong> lessons, most recently" in intro
    assert lesson.title in intro
    assert "Next: The next one" in intro and "Start with" not in intro
    assert intro.index("You have finished") < intro.index("Next: The next one")


def test_accuracy_shows_only_after_a_handful_of_predictions_as_x_of_y(client):
    lesson = make_lesson()
    snippets = [make_snippet(lesson) for _ in range(5)]
    user = make_user()
    client.force_login(user)
    for n, snippet in enumerate(snippets, start=1):
        predict(
            user, snippet, verdict=Prediction.Verdict.WRONG if n == 2 else Prediction.Verdict.RIGHT
        )
        refresh_lesson_progress(user=user, lesson=lesson)
        html = client.get(reverse("tutor:my_progress")).content.decode()
        if n < 5:
            assert "Your first predictions" not in html
    assert "Your first predictions were right 4 of 5 times." in html
    assert "%" not in html.split("Your first predictions")[1].split("</p>")[0]


def test_a_learner_sees_only_their_own_progress(client, lesson_with_items):
    lesson, snippets, exercise = lesson_with_items
    other = make_user()
    for snippet in snippets:
        predict(other, snippet)
    solve(other, exercise)
    refresh_lesson_progress(user=other, lesson=lesson)
    client.force_login(make_user())
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert "Complete" not in html
    assert "0 of 1 lesson complete" in html
    assert f"Start with: {lesson.title}" in html


def test_catalogue_and_lesson_page_show_the_same_state(client, lesson_with_items):
    lesson, snippets, exercise = lesson_with_items
    user = make_user()
    for snippet in snippets:
        predict(user, snippet)
    solve(user, exercise)
    refresh_lesson_progress(user=user, lesson=lesson)
    client.force_login(user)
    catalogue = client.get(reverse("tutor:catalogue")).content.decode()
    page = client.get(lesson.get_absolute_url()).content.decode()
    assert "✓</span> Complete" in catalogue
    assert "✓</span> Complete" in page
    client.force_login(make_user())
    assert "Not started" in client.get(reverse("tutor:catalogue")).content.decode()


def test_practising_a_solved_exercise_again_keeps_it_solved(lesson_with_items):
    from tutor.practice.ordering.actions import start_again

    lesson, snippets, exercise = lesson_with_items
    user = make_user()
    for snippet in snippets:
        predict(user, snippet)
    solve(user, exercise)
    start_again(user=user, exercise=exercise)
    assert refresh_lesson_progress(user=user, lesson=lesson).is_complete


def test_the_worker_gives_waiting_predictions_their_verdict_and_updates_progress(
    lesson_with_items, django_capture_on_commit_callbacks, monkeypatch
):
    """A learner who leaves before the output arrives still gets a verdict and progress."""
    from tutor import tasks
    from tutor.practice.snippet.actions import submit_prediction

    lesson, (first, second), exercise = lesson_with_items
    queued = []
    monkeypatch.setattr(queueing, "enqueue_run", queued.append)
    right, wrong = make_user(), make_user()
    with django_capture_on_commit_callbacks(execute=True):
        submit_prediction(user=right, snippet=first, text="hello\n", said_out_loud=False)
        submit_prediction(user=wrong, snippet=first, text="goodbye\n", said_out_loud=False)
    assert len(queued) == 1  # one reveal run, shared
    assert not Prediction.objects.exclude(verdict=Prediction.Verdict.PENDING).exists()
    tasks.execute_run(queued[0])
    assert Prediction.objects.get(user=right).verdict == Prediction.Verdict.RIGHT
    assert Prediction.objects.get(user=wrong).verdict == Prediction.Verdict.WRONG
    progress = LessonProgress.objects.get(user=right, lesson=lesson)
    assert (progress.snippets_predicted, progress.predictions_right) == (1, 1)


def test_a_learners_run_counts_in_their_progress(lesson_with_items, monkeypatch):
    from tutor.actions.runs import queue_run

    lesson, (first, _), _ = lesson_with_items
    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)
    user = make_user()
    queue_run(code="print(2)", user=user, snippet=first)
    assert LessonProgress.objects.get(user=user, lesson=lesson).runs == 1


# Any attempt starts the lesson, even one that does nothing yet ----------------------------


def started(user, lesson) -> tuple[int, int]:
    """(items done, items) on a lesson the learner has started; fails if it is not started."""
    progress = LessonProgress.objects.get(user=user, lesson=lesson)
    return progress.items_done, progress.items_total


def test_a_wrong_ordering_check_starts_the_lesson_with_nothing_done(lesson_with_items):
    from tutor.practice.ordering.actions import check_order

    lesson, _, exercise = lesson_with_items
    user = make_user()
    attempt = check_order(user=user, exercise=exercise, order=["l4", "l3", "l2", "l1"], unused=[])
    assert attempt.verdict == OrderingAttempt.Verdict.WRONG
    assert started(user, lesson) == (0, 3)


def test_an_output_check_waiting_for_its_run_starts_the_lesson(lesson_with_items, monkeypatch):
    from tutor.practice.ordering.actions import check_order

    lesson, _, exercise = lesson_with_items
    exercise.grading = "output"
    exercise.save()
    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)
    user = make_user()
    attempt = check_order(user=user, exercise=exercise, order=["l2", "l1", "l3", "l4"], unused=[])
    assert attempt.verdict == OrderingAttempt.Verdict.PENDING
    assert started(user, lesson) == (0, 3)


def test_a_wrong_prediction_starts_the_lesson_and_counts_as_predicted(lesson_with_items):
    from tutor.practice.snippet.actions import submit_prediction

    lesson, (first, _), _ = lesson_with_items
    user = make_user()
    Run.objects.create(
        snippet=first, code=first.code, purpose=Run.Purpose.REVEAL, status=Run.Status.OK,
        stdout="hello\n",
    )  # fmt: skip
    prediction, _ = submit_prediction(user=user, snippet=first, text="bye", said_out_loud=False)
    assert prediction.verdict == Prediction.Verdict.WRONG
    assert started(user, lesson) == (1, 3)  # a prediction is done once it has its verdict


def test_a_prediction_whose_output_never_came_still_starts_the_lesson(
    lesson_with_items, monkeypatch
):
    from tutor.practice.snippet.actions import submit_prediction

    lesson, (first, _), _ = lesson_with_items
    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)
    user = make_user()
    prediction, run = submit_prediction(user=user, snippet=first, text="x", said_out_loud=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.FAILED)  # the sandbox lost it
    assert prediction.verdict == Prediction.Verdict.PENDING
    assert started(user, lesson) == (0, 3)


def test_saying_i_did_not_get_it_starts_the_lesson(lesson_with_items):
    from tutor.practice.snippet.actions import record_self_check, submit_prediction

    lesson, (first, _), _ = lesson_with_items
    Run.objects.create(
        snippet=first, code=first.code, purpose=Run.Purpose.REVEAL, status=Run.Status.OK,
        stdout="hello\n",
    )  # fmt: skip
    user = make_user()
    prediction, _ = submit_prediction(user=user, snippet=first, text="", said_out_loud=True)
    record_self_check(prediction=prediction, got_it=False)
    assert started(user, lesson) == (1, 3)


@pytest.fixture
def code_exercise(sample_content):
    from course.kinds.code_exercise import CodeExercise

    return CodeExercise.objects.select_related("block__lesson").get(
        block__key="write-kv-cache-vram"
    )


def test_a_failed_code_submission_starts_the_lesson_with_nothing_done(code_exercise):
    from tutor.actions.runs import execute_run
    from tutor.practice.code_exercise.actions import submit_code
    from tutor.practice.code_exercise.models import Submission

    lesson, user = code_exercise.block.lesson, make_user()
    items = lesson.blocks.filter(kind__in=["snippet", "ordering", "code_exercise"]).count()
    submission = submit_code(user=user, exercise=code_exercise, code="print('no')\n")
    assert started(user, lesson) == (0, items)  # sent, not yet tested: started already
    execute_run(run_id=submission.run_id)
    submission.refresh_from_db()
    assert submission.verdict == Submission.Verdict.FAILED
    assert started(user, lesson) == (0, items)


def test_a_submission_that_could_not_be_tested_starts_the_lesson(code_exercise, monkeypatch):
    from tutor.practice.code_exercise.actions import settle_submission, submit_code
    from tutor.practice.code_exercise.models import Submission

    lesson, user = code_exercise.block.lesson, make_user()
    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)
    submission = submit_code(user=user, exercise=code_exercise, code="print('no')\n")
    Run.objects.filter(pk=submission.run_id).update(status=Run.Status.FAILED)
    settled = settle_submission(run=Run.objects.get(pk=submission.run_id))
    assert settled.verdict == Submission.Verdict.NOT_CHECKED
    assert started(user, lesson)[0] == 0


def test_moving_lines_without_checking_does_not_start_the_lesson(lesson_with_items):
    from tutor.practice.ordering.actions import arrange_lines

    lesson, _, exercise = lesson_with_items
    user = make_user()
    arrange_lines(user=user, exercise=exercise, order=["l2", "l1", "l3", "l4"], unused=[])
    assert not LessonProgress.objects.filter(user=user, lesson=lesson).exists()


def test_my_progress_and_the_lesson_say_started_after_a_wrong_check(client, lesson_with_items):
    from tutor.practice.ordering.actions import check_order

    lesson, _, exercise = lesson_with_items
    user = make_user()
    check_order(user=user, exercise=exercise, order=["l4", "l3", "l2", "l1"], unused=[])
    client.force_login(user)
    page = client.get(reverse("tutor:my_progress")).content.decode()
    assert "Not started" not in page
    assert "Started, 0% done" in page
    assert "0 of 1 ordering exercise solved" in page
    assert "Continue where you left off: " + lesson.title in page
    lesson_page = client.get(lesson.get_absolute_url()).content.decode()
    assert "Not started" not in lesson_page and "Started, 0% done" in lesson_page


def test_a_lessons_line_says_how_many_were_right_first_time_once_every_snippet_is_predicted(
    client, lesson_with_items
):
    """One prediction says nothing yet: "(0 right first time)" after a single wrong one read
    as a verdict on the whole lesson."""
    lesson, (first, second), exercise = lesson_with_items
    user = make_user()
    client.force_login(user)
    predict(user, first, verdict=Prediction.Verdict.WRONG)
    refresh_lesson_progress(user=user, lesson=lesson)
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert "1 of 2 snippets predicted" in html
    assert "right first time" not in html

    predict(user, second)
    refresh_lesson_progress(user=user, lesson=lesson)
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert "2 of 2 snippets predicted (1 of 2 right first time)" in html
