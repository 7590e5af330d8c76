"""Running a learner's filled program (a `code_blanks` question): their fills put into the
author's program, run by the worker as a Run of theirs (purpose `check`; `tests` for a
question graded by tests: the worker grades the program by them in one sandbox run, as a
code exercise's submission, and keeps the grading on the run), one run per program and
tests: identical fills, or another learner's identical fills, reuse the run. The web
process never runs the program; it waits up to RUN_WAIT_SECONDS for the worker, and while
the run is under way the answer is not graded and not a try (`ProgramRunning`): the page
asks again (htmx polls; without JavaScript, "See the result" posts the same fills).
"""


import dataclasses
import json

from django.conf import settings
from django.utils.translation import gettext as _

from course.kinds.code_blanks import filled, solution_fills
from tutor import sandbox
from tutor.actions.runs import queue_run
from tutor.grading import outputs_match
from tutor.models import Run, code_digest
from tutor.practice.questions import grading
from tutor.practice.questions.variants import VariantNotReady, VariantsCheck
from tutor.sandbox.grading import Grading, Test
from tutor.sandbox.grading import grade as grade_by_tests

PER_TEST_SECONDS = 2.0  # as a code exercise's tests (tutor/practice/code_exercise/actions.py)


class ProgramRunning(VariantNotReady):
    """The filled program is being run: the answer is graded once its output is back."""

    def __init__(self, fills: dict, run: Run):
        super().__init__(_("Your program is running. Its result shows here in a moment."))
        self.fills, self.run = fills, run


def program_of(values: dict, fills: dict) -> str:
    return filled(values["code"], fills)


def tests_of(values: dict) -> list[Test]:
    """The question's tests as the grader takes them."""
    return [
        Test(
            name=test["name"], visible=test.get("shown", "visible") != "hidden", stdin=test.get("stdin", ""),
            args=[str(arg) for arg in test.get("args", [])],
            stdout=None if test["check"].strip() else test.get("stdout", ""),
            check=test["check"] if test["check"].strip() else None,
        )
        for test in values.get("tests") or []
    ]


def _tests_text(values: dict) -> str:
    """The tests as the run keeps them (its `stdin`: the worker reads them there)."""
    return json.dumps([dataclasses.asdict(test) for test in tests_of(values)], sort_keys=True)


def run_of(user, values: dict, fills: dict) -> Run:
    """The run of this filled program: one under way or done (by anyone), or a new one."""
    code = program_of(values, fills)
    purpose, stdin = (Run.Purpose.TESTS, _tests_text(values)) if values.get("tests") else (Run.Purpose.CHECK, "")
    runs = Run.objects.filter(code_hash=code_digest(code), purpose=purpose, stdin=stdin).exclude(status=Run.Status.FAILED)
    run = runs.order_by("-created_at", "-pk").first()
    if run is None:
        run = queue_run(code=code, user=user, purpose=purpose, stdin=stdin)
    return run


# In the worker: a filled program graded by the question's tests -----------------------


def test_limits(run: Run) -> sandbox.Limits:
    """The sandbox's limits, with wall-clock time for every test's budget."""
    count = max(1, len(json.loads(run.stdin or "[]")))
    ceiling = float(settings.SANDBOX_MAX_LIMITS["wall_seconds"])
    limits = sandbox.Limits()
    return dataclasses.replace(limits, wall_seconds=min(max(limits.wall_seconds, PER_TEST_SECONDS * count + 3), ceiling))


def grade_run(run: Run, limits: sandbox.Limits) -> sandbox.Result:
    """Run every test against the filled program in one sandbox run; the run's stdout keeps
    the grading (JSON), read back by `answer_from`."""
    tests = [Test(**test) for test in json.loads(run.stdin)]
    found = grade_by_tests(run.code, tests, limits=limits, per_test_seconds=PER_TEST_SECONDS)
    return sandbox.Result(
        status="ok" if found.status != "not_checked" or found.kind == "refused" else "error",
        exit_code=0, stdout=json.dumps(found.to_dict()), stderr=found.diagnostic,
        duration_ms=found.duration_ms, truncated=False,
    )


def tests_report(found: Grading) -> str:
    """What the learner reads of a failed grading: each failed test, a hidden one only the
    kind of its failure (as a code exercise's hidden tests)."""
    if found.kind in ("syntax_error", "refused", "not_checked"):
        return found.message
    lines = []
    for result in found.results:
        if not result.passed:
            if result.visible:
                lines.append(_("Test “%(name)s”: %(why)s") % {"name": result.name, "why": result.message})
            else:
                lines.append(_("A hidden test: %(why)s") % {"why": result.hidden_message})
    return "\n".join(lines)


def with_output(*, user, values: dict, fills: dict, wait_seconds: float) -> dict:
    """The answer to grade: the fills, and what the filled program printed (nothing runs
    when every fill is one the question accepts at once). Raises ProgramRunning while the
    worker runs it."""
    if all(grading.accepted_at_once(values, fills).values()):
        return {"fills": fills, "status": "", "output": ""}
    run = run_of(user, values, fills)
    if not run.is_final and wait_seconds:
        run.wait_until_final(wait_seconds)
        run.refresh_from_db()
    return answer_from(run.as_seen(), fills)


def answer_from(run: Run, fills: dict) -> dict:
    """The answer to grade once `run` (of these fills' program) is final; raises
    ProgramRunning while it is not, VariantNotReady if Parsnip lost it."""
    if not run.is_final:
        raise ProgramRunning(fills, run)
    lost = run.status == Run.Status.FAILED or (run.purpose == Run.Purpose.TESTS and run.status != Run.Status.OK)
    if lost:  # Parsnip lost the run (or the grader could not grade it), not the learner's doing
        raise VariantNotReady(_("Your program could not be run just now. Check it again in a moment."))
    if run.purpose == Run.Purpose.TESTS:
        found = Grading.from_dict(json.loads(run.stdout))
        return {"fills": fills, "status": found.status, "passed": found.passed,
                "output": "" if found.passed else tests_report(found)[-4000:]}
    return {"fills": fills, "status": run.status, "output": run.stdout[-4000:], "error": run.stderr[-1000:]}


# The author's check: the solution prints the expected output (or passes the tests) ----------------------------


class SolutionCheck(VariantsCheck):
    @property
    def ok_note(self) -> str:
        if self.block.kind_spec.values_of(self.block).get("tests"):
            return " (the solution passes every test)"
        return " (the solution prints the expected output)"


def check_question(block) -> SolutionCheck:
    """Run the question's program with the solution's fills here and now. Raises
    sandbox.SandboxUnavailable when code cannot run here."""
    values = block.kind_spec.values_of(block)
    program = program_of(values, solution_fills(values))
    if values.get("tests"):
        found = grade_by_tests(program, tests_of(values), per_test_seconds=PER_TEST_SECONDS)
        failed = [result for result in found.results if not result.passed]
        problem = ""
        if found.kind in ("syntax_error", "refused", "not_checked"):
            problem = _("the solution cannot be tested: %(why)s") % {"why": found.message}
        elif failed:
            problem = _("the solution fails test “%(name)s”: %(why)s Fix the solution's fills or the test.") % {
                "name": failed[0].name, "why": failed[0].message}
        return SolutionCheck(block, 1, (({}, problem),) if problem else ())
    result = sandbox.run(program)
    problem = ""
    if result.status != "ok":
        last = (result.stderr.strip().splitlines() or [result.status])[-1]
        problem = _("the solution stops: %(why)s") % {"why": last}
    elif not outputs_match(result.stdout, values["expected_output"]):
        printed = " | ".join(result.stdout.strip().splitlines()[:3])
        problem = _("the solution prints %(printed)s, not the expected output") % {"printed": repr(printed)}
    return SolutionCheck(block, 1, (({}, problem),) if problem else ())
