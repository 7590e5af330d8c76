"""Stepping's workflows: start stepping through a program (its trace queued once per code
and input, through the queue and the worker like any run), trace it in the worker, and
record how far a learner got."""

import time

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from tutor import sandbox
from tutor.actions.runs import limits_for, queue_run
from tutor.models import Run
from tutor.practice.stepping.models import Stepping, Trace, trace_key

MAX_STEPS = 5_000
MAX_BYTES = 2_000_000


def trace_for(*, code: str, stdin: str, user: AbstractBaseUser, snippet=None) -> Trace:
    """The trace of this code with this input: the one already made (or being made), else a
    new one queued as a run, counted against the learner's allowance (RunRefused). A
    trace whose run could not finish is queued again. The row is locked while deciding,
    so a class clicking at once queues one run."""
    key = trace_key(code, stdin)
    found = Trace.objects.filter(key=key).select_related("run").first()
    if found is not None and not found.failed:
        return found
    with transaction.atomic():
        trace, _ = Trace.objects.get_or_create(key=key, defaults={"code": code, "stdin": stdin})
        trace = Trace.objects.select_for_update(of=("self",)).select_related("run").get(pk=trace.pk)
        if trace.failed:
            trace.run = queue_run(
                code=code, stdin=stdin, user=user, snippet=snippet, purpose=Run.Purpose.TRACE
            )
            trace.keep({})
            trace.save(update_fields=["run", "data", "steps_index", "steps_text", "steps_total"])
    return trace


def start_stepping(
    *,
    user: AbstractBaseUser,
    code: str,
    stdin: str,
    origin: str,
    snippet=None,
    exercise=None,
    test_name: str = "",
    from_line: int | None = None,
    prediction: str = "",
) -> Stepping:
    """The learner's stepping through this program (one per program, input and place:
    starting again reopens it), with its trace made or queued."""
    trace = trace_for(code=code, stdin=stdin, user=user, snippet=snippet)
    now = timezone.now()
    stepping, _ = Stepping.objects.update_or_create(
        user=user,
        trace=trace,
        origin=origin,
        snippet=snippet,
        exercise=exercise,
        test_name=test_name,
        defaults={"from_line": from_line, "prediction": prediction, "updated_at": now},
        create_defaults={
            "from_line": from_line,
            "prediction": prediction,
            "created_at": now,
            "updated_at": now,
        },
    )
    stepping.trace = trace
    return stepping


def record_reached(*, stepping: Stepping, step: int) -> None:
    """The learner saw step `step`: keep the furthest (one UPDATE; never goes back)."""
    step = max(0, min(step, stepping.trace.steps_total))
    Stepping.objects.filter(pk=stepping.pk).update(
        furthest_step=Greatest(F("furthest_step"), step), updated_at=timezone.now()
    )


# In the worker ----------------------------------------------------------------------------


def trace_limits(run: Run) -> sandbox.Limits:
    return limits_for(run.snippet)


def trace_run(*, run: Run, limits: sandbox.Limits) -> sandbox.Result:
    """In the worker: trace the run's program in the sandbox, keep the whole trace on its
    Trace row (tutor.practice.stepping.steps.Steps.pack), and give the run what it printed."""
    from tutor.sandbox import tracing  # the sandbox's tracer: no Django in there

    started = time.monotonic()
    result = tracing.trace(
        run.code, stdin=run.stdin, limits=limits, max_steps=MAX_STEPS, max_bytes=MAX_BYTES
    )
    data = result.to_dict()
    for trace in Trace.objects.filter(run=run).only("pk"):
        trace.keep(data)
        trace.save(update_fields=["data", "steps_index", "steps_text", "steps_total"])
    status = {"complete": "ok", "stopped": "ok"}.get(data.get("status"), "error")
    error = data.get("error") or {}
    return sandbox.Result(
        status=status,
        exit_code=0 if status == "ok" else 1,
        stdout=data.get("stdout", ""),
        stderr=f"line {error.get('line')}: {error.get('message')}" if error else "",
        duration_ms=int((time.monotonic() - started) * 1000),
        truncated=bool(data.get("stopped")),
    )
