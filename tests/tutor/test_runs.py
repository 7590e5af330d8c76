from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from course.kinds.snippet import Snippet
from tests.factories import make_snippet, make_user
from tutor import queueing, tasks
from tutor.actions import runs as actions
from tutor.models import Run

pytestmark = pytest.mark.django_db


def test_queue_run_stores_a_queued_row_and_enqueues_it_on_commit(
    monkeypatch, django_capture_on_commit_callbacks
):
    enqueued = []
    monkeypatch.setattr(queueing, "enqueue_run", enqueued.append)
    user = make_user()
    with django_capture_on_commit_callbacks(execute=True):
        run = actions.queue_run(code="print(1)", user=user)
        assert enqueued == []  # not before the row is committed
    assert enqueued == [run.pk]
    assert run.status == Run.Status.QUEUED
    assert run.code_hash


def test_execute_run_stores_the_sandbox_result():
    run = Run.objects.create(code="print('hi')\nimport sys\nprint('oops', file=sys.stderr)")
    actions.execute_run(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.OK
    assert run.stdout == "hi\n"
    assert run.stderr == "oops\n"
    assert run.exit_code == 0
    assert run.duration_ms is not None
    assert run.started_at and run.finished_at


def test_execute_run_runs_a_row_once_even_if_delivered_twice():
    run = Run.objects.create(code="print(1)")
    assert actions.execute_run(run_id=run.pk) is not None
    assert actions.execute_run(run_id=run.pk) is None


def test_a_sandbox_failure_marks_the_run_failed_with_a_message(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("bubblewrap is missing")

    monkeypatch.setattr(actions.sandbox, "run", broken)
    run = Run.objects.create(code="print(1)")
    actions.execute_run(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "bubblewrap is missing" in run.stderr


def test_a_run_whose_worker_died_is_marked_failed_not_running_forever():
    run = Run.objects.create(code="print(1)", status=Run.Status.RUNNING)
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    fresh = Run.objects.create(
        code="print(2)", status=Run.Status.RUNNING, started_at=timezone.now()
    )
    assert run.fail_if_stale()
    assert run.status == Run.Status.FAILED
    assert "worker stopped" in run.stderr
    assert not fresh.fail_if_stale()
    assert fresh.status == Run.Status.RUNNING


def test_rate_limit_and_pending_cap(settings):
    settings.RUNS_PER_MINUTE = 3
    settings.RUNS_PENDING_MAX = 2
    user = make_user()
    snippet = make_snippet()
    Run.objects.create(user=user, snippet=snippet, code="x", status=Run.Status.QUEUED)
    actions.check_run_allowance(user=user)
    Run.objects.create(user=user, snippet=snippet, code="x", status=Run.Status.QUEUED)
    with pytest.raises(actions.RunRefused, match="waiting for a worker"):
        actions.check_run_allowance(user=user)
    Run.objects.filter(user=user).update(status=Run.Status.OK)
    Run.objects.create(user=user, code="x", status=Run.Status.OK)
    with pytest.raises(actions.RunRefused, match="3 runs in the last minute"):
        actions.check_run_allowance(user=user)
    actions.check_run_allowance(user=make_user())  # another learner is not affected


def test_a_sweep_every_minute_fails_runs_whose_worker_died():
    # tests/test_schedules.py shows that a migration schedules the sweep every minute.
    lost = Run.objects.create(code="print(1)", status=Run.Status.RUNNING)
    Run.objects.filter(pk=lost.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    assert tasks.fail_stale_runs() == 1
    lost.refresh_from_db()
    assert lost.status == Run.Status.FAILED


def test_run_limits_come_from_the_course_then_the_snippet_within_the_sites_maxima(settings):
    settings.SANDBOX_MAX_LIMITS = {"wall_seconds": 25, "memory_mb": 1024}
    snippet = make_snippet()
    default = actions.limits_for(snippet)
    assert default == actions.limits_for(None)

    course = snippet.block.lesson.course
    course.run_limits = {"wall_seconds": 20, "memory_mb": 512}
    course.save()
    snippet.run_limits = {"wall_seconds": 60, "cpu_seconds": 2}
    snippet.save()
    snippet = Snippet.objects.select_related("block__lesson__course").get(pk=snippet.pk)
    limits = actions.limits_for(snippet)
    assert limits.wall_seconds == 25  # the snippet asked for 60: capped at the site's maximum
    assert limits.memory_bytes == 512 * 1024 * 1024  # from the course
    assert limits.cpu_seconds == 2  # a snippet may also lower a limit
    assert limits.processes == default.processes  # not raisable here: the default stays


def test_the_worker_runs_a_snippet_with_its_own_limits():
    snippet = make_snippet(code="import time\ntime.sleep(5)\n", run_limits={"wall_seconds": 1})
    run = Run.objects.create(code=snippet.code, snippet=snippet)
    actions.execute_run(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.TIMEOUT
    assert run.duration_ms < 3000


def test_run_limits_are_validated_in_the_admin_form():
    from django.core.exceptions import ValidationError

    snippet = make_snippet()
    snippet.run_limits = {"wall_secs": 5}
    with pytest.raises(ValidationError, match="Unknown run limit 'wall_secs'"):
        snippet.full_clean()
    snippet.run_limits = {"memory_mb": 0}
    with pytest.raises(ValidationError, match="must be a positive number"):
        snippet.full_clean()


def test_a_running_run_is_overdue_only_after_its_own_deadline():
    # The worker sets the deadline from the run's wall-clock limit.
    run = Run.objects.create(code="print(1)")
    actions.execute_run(run_id=run.pk)
    run.refresh_from_db()
    assert run.deadline_at - run.started_at == timedelta(seconds=10) + Run.DEADLINE_MARGIN
    now = timezone.now()
    on_time = Run.objects.create(
        code="x", status=Run.Status.RUNNING, started_at=now, deadline_at=now + timedelta(seconds=5)
    )
    overdue = Run.objects.create(
        code="x",
        status=Run.Status.RUNNING,
        started_at=now - timedelta(seconds=20),
        deadline_at=now - timedelta(seconds=1),
    )
    assert set(Run.objects.stale()) == {overdue}
    assert not on_time.fail_if_stale()
    assert overdue.fail_if_stale()
    assert overdue.stderr == Run.WORKER_LOST_MESSAGE


def test_a_restarted_worker_fails_at_once_the_runs_a_dead_worker_of_this_machine_held(
    monkeypatch,
):
    import os
    import socket
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    host = socket.gethostname()
    now = timezone.now()
    later = now + timedelta(seconds=10)
    held_by_dead = Run.objects.create(
        code="x",
        status=Run.Status.RUNNING,
        started_at=now,
        deadline_at=later,
        worker=f"{host}:{dead}",
    )
    held_by_live = Run.objects.create(
        code="x",
        status=Run.Status.RUNNING,
        started_at=now,
        deadline_at=later,
        worker=f"{host}:{os.getpid()}",
    )
    elsewhere = Run.objects.create(
        code="x",
        status=Run.Status.RUNNING,
        started_at=now,
        deadline_at=later,
        worker=f"another-machine:{dead}",
    )
    queued = Run.objects.create(code="print(1)", status=Run.Status.QUEUED)
    enqueued = []
    monkeypatch.setattr(queueing, "enqueue_run", enqueued.append)
    tasks.worker_started(sender="django_q", proc_name="Process-1")
    statuses = dict(Run.objects.values_list("pk", "status"))
    assert statuses[held_by_dead.pk] == Run.Status.FAILED
    assert statuses[held_by_live.pk] == Run.Status.RUNNING
    assert statuses[elsewhere.pk] == Run.Status.RUNNING  # its own machine's worker decides
    assert enqueued == [queued.pk]  # the queue may have lost it with the dead worker


# Which of the worker's commits may skip waiting for PostgreSQL's flush ----------------

ON_POSTGRES = connection.vendor == "postgresql"


def writes_with_commit_mode(action) -> list[tuple[str, str]]:
    """(table written, synchronous_commit in force) for each write `action` sends; on
    SQLite the mode is "on" throughout."""
    seen = []

    def record(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        words = sql.lstrip().split(None, 3)
        if words and words[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            table = words[2] if words[0].upper() != "UPDATE" else words[1]
            mode = "on"
            if ON_POSTGRES:
                mode = context["connection"].connection.execute("SHOW synchronous_commit").fetchone()[0]
            seen.append((table.strip('"'), mode))
        return result

    with connection.execute_wrapper(record):
        action()
    return seen


@pytest.mark.django_db(transaction=True)
def test_a_grading_commits_its_verdict_and_progress_durably_and_only_run_records_without_waiting(
    monkeypatch,
):
    from tests.tutor.assignment_world import make_code_exercise
    from tutor.practice.code_exercise import actions as exercise_actions
    from tutor.practice.code_exercise.models import Submission

    monkeypatch.setattr(queueing, "enqueue_run", lambda run_id: None)
    from course.kinds.code_exercise import CodeTest

    exercise = make_code_exercise(make_snippet().block.lesson)
    CodeTest.objects.create(exercise=exercise, key="one", name="prints 1", stdout="1\n")
    submission = exercise_actions.submit_code(user=make_user(), exercise=exercise, code="print(1)\n")

    writes = writes_with_commit_mode(lambda: actions.execute_run(run_id=submission.run_id))

    submission.refresh_from_db()
    assert submission.verdict == Submission.Verdict.PASSED
    assert {table for table, _ in writes} >= {"tutor_run", "tutor_submission", "tutor_lessonprogress"}
    # A submission, a grade, progress: never without PostgreSQL's durable commit.
    assert all(mode == "on" for table, mode in writes if table != "tutor_run")
    # The run's claim and its result: Run records, which a crash may lose and a new run redoes.
    assert [mode for table, mode in writes if table == "tutor_run"] == (
        ["off", "off"] if ON_POSTGRES else ["on", "on"]
    )


@pytest.mark.django_db(transaction=True)
def test_a_learners_run_is_claimed_and_saved_as_run_records_and_its_output_is_seen_at_once():
    snippet = make_snippet()
    run = Run.objects.create(code="print('hi')\n", user=make_user(), snippet=snippet)

    writes = writes_with_commit_mode(lambda: actions.execute_run(run_id=run.pk))

    assert [table for table, _ in writes] == ["tutor_run", "tutor_run"]
    assert {mode for _, mode in writes} == ({"off"} if ON_POSTGRES else {"on"})
    # Committed without waiting for the flush, and seen at once by every other connection.
    run.refresh_from_db()
    assert (run.status, run.stdout) == (Run.Status.OK, "hi\n")
