"""Runs of code: queue one, execute one in the worker, and the per-learner allowance."""

import dataclasses
import math
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from course.kinds.snippet import Snippet
from tutor import practice, queueing, run_notices, sandbox
from tutor.actions.progress import count_run, learner_worked
from tutor.connections import outlasting_outages
from tutor.models import Run, worker_name


class RunRefused(Exception):
    """The learner may not start another run right now; the message says why."""


def lock_learner(user: AbstractBaseUser) -> None:
    """Serialise one learner's concurrent requests for the rest of the transaction, so a
    count and the insert it allows are one step. (On SQLite every write transaction is
    already serialised: transaction_mode IMMEDIATE.)"""
    get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk").first()


def check_run_allowance(*, user: AbstractBaseUser) -> None:
    """Per-user rate limit and cap on queued runs, with a message a learner understands.

    Holds only under lock_learner(), in the transaction that then creates the run."""
    since = timezone.now() - timedelta(minutes=1)
    found = Run.objects.filter(user=user, in_browser=False).aggregate(  # both in one query
        pending=Count("pk", filter=Q(status__in=Run.PENDING_STATUSES)),
        recent=Count("pk", filter=Q(created_at__gte=since)),
    )
    if found["pending"] >= settings.RUNS_PENDING_MAX:
        raise RunRefused(
            "You already have runs waiting for a worker. Wait for them to finish, then try again."
        )
    recent = found["recent"]
    if recent >= settings.RUNS_PER_MINUTE:
        raise RunRefused(
            f"That's {recent} runs in the last minute, the most Parsnip allows. "
            "Take a breath and try again in a few seconds."
        )


def queue_run(
    *,
    code: str,
    user: AbstractBaseUser | None = None,
    snippet: Snippet | None = None,
    purpose: str = Run.Purpose.RUN,
    stdin: str = "",
) -> Run:
    """Store a queued Run and hand it to the worker once the transaction commits.

    A learner's run counts against their allowance (RunRefused when it is used up),
    checked and stored atomically, so a burst of clicks cannot slip past the cap."""
    with transaction.atomic():
        if user is not None:
            lock_learner(user)
            check_run_allowance(user=user)
        run = Run.objects.create(
            user=user, snippet=snippet, purpose=purpose, code=code, stdin=stdin
        )
        queueing.enqueue_run_on_commit(run.pk)
        if purpose == Run.Purpose.RUN and user is not None and snippet is not None:
            count_run(user=user, lesson=snippet.block.lesson)
            learner_worked(user=user, block=snippet.block, what="ran their code")
    return run


# The content files' limit names, in the sandbox's units.
_SANDBOX_LIMIT = {
    "cpu_seconds": ("cpu_seconds", lambda n: max(1, math.ceil(n))),
    "wall_seconds": ("wall_seconds", float),
    "memory_mb": ("memory_bytes", lambda n: int(n * 1024 * 1024)),
    "processes": ("processes", int),
    "output_kb": ("output_bytes", lambda n: int(n * 1024)),
}


def _sandbox_limits(named: dict) -> dict:
    return {
        _SANDBOX_LIMIT[name][0]: _SANDBOX_LIMIT[name][1](number)
        for name, number in named.items()
        if name in _SANDBOX_LIMIT
    }


def limits_for(snippet: Snippet | None) -> sandbox.Limits:
    """A snippet's (or any content row with `block` and `run_limits`) run limits: the
    sandbox's defaults as its course and then the snippet set them, never beyond the
    site's maxima (settings.SANDBOX_MAX_LIMITS)."""
    defaults = sandbox.Limits()
    if snippet is None:
        return defaults
    maxima = dataclasses.replace(defaults, **_sandbox_limits(settings.SANDBOX_MAX_LIMITS))
    course = snippet.block.lesson.course
    changes = _sandbox_limits({**course.run_limits, **snippet.run_limits})
    return defaults.raised(maxima, **changes)


def execute_run(*, run_id: int) -> Run | None:
    """Run the code of a queued Run in the sandbox and store the result on the row.

    Claims the row first (queued -> running), so a run delivered twice executes once.
    Each step outlasts the database going away for a moment (a PostgreSQL restart): the
    claim, the result saved and the verdicts are each safe to try again.
    """
    claimed = outlasting_outages(lambda: _claim(run_id), seconds=OUTAGE_SECONDS,
                                 what=f"claiming run {run_id}")
    if claimed is None:
        return None
    run, executor, limits = claimed
    try:
        if executor:
            result = executor.execute(run, limits)
        else:
            result = sandbox.run(
                run.code, stdin=run.stdin, limits=limits, backend=settings.SANDBOX_BACKEND
            )
    except Exception as exc:  # the sandbox itself failed: say so on the row, never leave it running
        run.status = Run.Status.FAILED
        run.stderr = f"Parsnip could not run this code: {exc}"
    else:
        run.status = result.status
        run.exit_code = result.exit_code
        run.stdout = result.stdout
        run.stderr = result.stderr
        run.truncated = result.truncated
        run.duration_ms = result.duration_ms
    run.finished_at = timezone.now()
    def save() -> None:
        with run_record_only():
            run.save(update_fields=[
                "status", "exit_code", "stdout", "stderr", "truncated", "duration_ms", "finished_at"
            ])

    outlasting_outages(save, seconds=OUTAGE_SECONDS, what=f"saving run {run_id}")
    # Waiting learners are woken first: each one's own request shows the output. Then
    # each practice kind gives the verdicts waiting for it, here in the worker, so they
    # never depend on the learner still having the page open (a page view never writes).
    run_notices.announce(run.pk)

    def settle() -> None:
        for kind in practice.every():
            kind.settle(run)

    outlasting_outages(settle, seconds=OUTAGE_SECONDS, what=f"verdicts of run {run_id}")
    # Again, for whoever waits for a verdict rather than the output (a poll that woke on
    # the first notice and found its prediction still waiting for the loop above).
    run_notices.announce(run.pk)
    return run


# Whether a transaction that writes a Run record and nothing else may be committed without
# waiting for PostgreSQL's flush (docs/class-load.md, "The worker's writes"). bench/
# worker_writes.py turns it off to measure the difference.
RUN_RECORDS_WAIT_FOR_FLUSH = False


@contextmanager
def run_record_only():
    """A transaction that writes only a Run record: the worker's claim, a run's result.

    On PostgreSQL it commits without waiting for its WAL to be flushed (`SET LOCAL
    synchronous_commit = off`): the row is seen by every other connection at once, as
    usual; only a crash of the database within a fraction of a second of the commit can
    lose it, and a lost Run record is a run to do again (the sweep requeues a claim that
    was lost, and fails a result that was lost at its deadline: "run it again"). A
    submission, a grade, a prediction or progress is never written here: they keep
    PostgreSQL's durable commit, which also makes durable every commit before it."""
    if connection.vendor != "postgresql" or RUN_RECORDS_WAIT_FOR_FLUSH:
        # SQLite: the write autocommits as before, so a locked database is waited out and
        # the write tried again (outlasting_outages) rather than failing inside a transaction.
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit = off")
        yield


# How long each of the worker's steps waits for a database that went away, well inside
# django-q2's task timeout (30 s) with the sandbox's own time.
OUTAGE_SECONDS = 8.0


def _claim(run_id: int):
    """(the run, its executor, its limits) once this worker holds it, or None when another
    worker has it or it is done. A claim whose answer was lost with the connection is found
    again: the row is running, in this process's name."""
    run = Run.objects.select_related("snippet__block__lesson__course").filter(pk=run_id).first()
    if run is None or run.status not in (Run.Status.QUEUED, Run.Status.RUNNING):
        return None
    if run.status == Run.Status.RUNNING and run.worker != worker_name():
        return None
    # A run of a practice kind's own purpose (a submission graded by tests) is executed
    # by that kind; any other runs the code as a program.
    executor = practice.executor_for(run.purpose)
    limits = executor.run_limits(run) if executor else limits_for(run.snippet)
    if run.status == Run.Status.QUEUED:
        now = timezone.now()
        with run_record_only():
            claimed = Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(
                status=Run.Status.RUNNING,
                started_at=now,
                deadline_at=now + timedelta(seconds=limits.wall_seconds) + Run.DEADLINE_MARGIN,
                worker=worker_name(),
            )
        if not claimed:
            return None
        run.status, run.started_at = Run.Status.RUNNING, now
    return run, executor, limits
