"""Running a learner's filled program (a `code_blanks` question): their fills put into the
author's program, run by the worker as a Run of theirs (purpose `check`), one run per
program: identical fills, or another learner's identical fills, reuse the run. The web
process never runs the program; it waits up to RUN_WAIT_SECONDS for the worker, and while
the run is under way the answer is not graded and not a try (`ProgramRunning`): the page
asks again (htmx polls; without JavaScript, "See the result" posts the same fills).
"""


from django.utils.translation import gettext as _

from course.kinds.code_blanks import filled, solution_fills
from tutor import sandbox
from tutor.actions.runs import queue_run
from tutor.grading import outputs_match
from tutor.models import Run, code_digest
from tutor.practice.questions import grading
from tutor.practice.questions.variants import VariantNotReady, VariantsCheck


class ProgramRunning(VariantNotReady):
    """The filled program is being run: the answer is graded once its output is back."""

    def __init__(self, fills: dict, run: Run):
        super().__init__(_("Your program is running. Its result shows here in a moment."))
        self.fills, self.run = fills, run


def program_of(values: dict, fills: dict) -> str:
    return filled(values["code"], fills)


def run_of(user, values: dict, fills: dict) -> Run:
    """The run of this filled program: one under way or done (by anyone), or a new one."""
    code = program_of(values, fills)
    runs = Run.objects.filter(code_hash=code_digest(code), purpose=Run.Purpose.CHECK).exclude(status=Run.Status.FAILED)
    run = runs.order_by("-created_at", "-pk").first()
    if run is None:
        run = queue_run(code=code, user=user, purpose=Run.Purpose.CHECK)
    return run


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
    if run.status == Run.Status.FAILED:  # Parsnip lost the run, not the learner's doing
        raise VariantNotReady(_("Your program could not be run just now. Check it again in a moment."))
    return {"fills": fills, "status": run.status, "output": run.stdout[-4000:], "error": run.stderr[-1000:]}


# The author's check: the solution prints the expected output ----------------------------


class SolutionCheck(VariantsCheck):
    @property
    def ok_note(self) -> str:
        return " (the solution prints the expected output)"


def check_question(block) -> SolutionCheck:
    """Run the question's program with the solution's fills here and now. Raises
    sandbox.SandboxUnavailable when code cannot run here."""
    values = block.kind_spec.values_of(block)
    result = sandbox.run(program_of(values, solution_fills(values)))
    problem = ""
    if result.status != "ok":
        last = (result.stderr.strip().splitlines() or [result.status])[-1]
        problem = _("the solution stops: %(why)s") % {"why": last}
    elif not outputs_match(result.stdout, values["expected_output"]):
        printed = " | ".join(result.stdout.strip().splitlines()[:3])
        problem = _("the solution prints %(printed)s, not the expected output") % {"printed": repr(printed)}
    return SolutionCheck(block, 1, (({}, problem),) if problem else ())
