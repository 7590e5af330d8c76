"""Code exercises' workflows: submit code for grading (one run through the queue), keep
a draft, and grade a submission in the worker."""

import dataclasses

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from course.kinds.code_exercise import CodeExercise
from tutor import sandbox
from tutor.actions.drafts import keep_draft
from tutor.actions.progress import learner_worked
from tutor.actions.runs import limits_for, queue_run
from tutor.models import Run
from tutor.practice.code_exercise.models import ExerciseCheck, ExerciseDraft, Submission
from tutor.sandbox.grading import Test, grade

PER_TEST_SECONDS = 2.0
# What a graded submission tells the live view (tutor.live): one that could not be
# tested is the learner's failure no more than their success.
FAILED = {Submission.Verdict.PASSED: False, Submission.Verdict.FAILED: True}


def submission_words(grading) -> str:
    """A grading in the live view's words: "submitted — 2 of 5 tests pass"."""
    if grading.status == "not_checked":
        return "submitted — could not be tested"
    return f"submitted — {grading.passed_count} of {len(grading.results)} tests pass"


def submit_code(*, user: AbstractBaseUser, exercise: CodeExercise, code: str) -> Submission:
    """Store the submission and queue its grading: one run, counted against the learner's
    allowance like any run (RunRefused when it is used up). The draft keeps the code."""
    with transaction.atomic():
        save_draft(user=user, exercise=exercise, code=code)
        run = queue_run(code=code, user=user, purpose=Run.Purpose.GRADE)
        learner_worked(
            user=user, block=exercise.block, what="submitted — being tested", attempt=True
        )
        return Submission.objects.create(
            user=user, exercise=exercise, code=code, run=run, tests_total=exercise.tests.count()
        )


def save_draft(*, user: AbstractBaseUser, exercise: CodeExercise, code: str) -> ExerciseDraft | None:
    """Keep the learner's code; code equal to the starter needs no draft."""
    if code == exercise.starter:
        ExerciseDraft.objects.filter(user=user, exercise=exercise).delete()
        return None
    return keep_draft(ExerciseDraft, code=code, user=user, exercise=exercise)


def discard_draft(*, user: AbstractBaseUser, exercise: CodeExercise) -> None:
    ExerciseDraft.objects.filter(user=user, exercise=exercise).delete()


def tests_of(exercise: CodeExercise) -> list[Test]:
    return [
        Test(
            name=test.name,
            visible=not test.hidden,
            stdin=test.stdin,
            args=[str(arg) for arg in test.args],
            stdout=None if test.is_check else test.stdout,
            check=test.check_code if test.is_check else None,
        )
        for test in exercise.tests.all()
    ]


def grading_limits(exercise: CodeExercise) -> sandbox.Limits:
    """The exercise's limits, with wall-clock time for every test's budget."""
    limits = limits_for(exercise)
    needed = PER_TEST_SECONDS * max(1, exercise.tests.count()) + 3
    ceiling = float(settings.SANDBOX_MAX_LIMITS["wall_seconds"])
    return dataclasses.replace(limits, wall_seconds=min(max(limits.wall_seconds, needed), ceiling))


def run_result(grading) -> sandbox.Result:
    """What the grading run's row keeps: a summary (the tests' results are kept on the
    submission or the check); "error" only when the harness could not grade."""
    return sandbox.Result(
        status="ok" if grading.status != "not_checked" else "error",
        exit_code=0,
        stdout=f"{grading.passed_count} of {len(grading.results)} tests pass. {grading.message}".strip(),
        stderr=grading.diagnostic,
        duration_ms=grading.duration_ms,
        truncated=False,
    )


def grade_submission(*, run: Run, limits: sandbox.Limits) -> sandbox.Result:
    """In the worker: run every test against the submitted code in one sandbox run, keep
    every test's result on the submission, and give the run a summary for its row."""
    submission = Submission.objects.select_related("user", "exercise__block__lesson__course").get(run=run)
    exercise = submission.exercise
    grading = grade(run.code, tests_of(exercise), limits=limits, per_test_seconds=PER_TEST_SECONDS)
    verdict = {
        "passed": Submission.Verdict.PASSED,
        "not_checked": Submission.Verdict.NOT_CHECKED,
    }.get(grading.status, Submission.Verdict.FAILED)
    with transaction.atomic():
        graded = Submission.objects.filter(pk=submission.pk, verdict=Submission.Verdict.PENDING).update(
            verdict=verdict,
            results=grading.to_dict(),
            tests_total=len(grading.results),
            tests_passed=grading.passed_count,
            graded_at=timezone.now(),
        )
        if graded:
            # In the verdict's transaction: a request that sees the pass (its wait for the
            # run ran out, and it read the submission) sees the progress that counts it too.
            learner_worked(user=submission.user, block=exercise.block, what=submission_words(grading),
                           failed=FAILED.get(verdict), later=True,
                           counts=verdict == Submission.Verdict.PASSED)  # fmt: skip
    return run_result(grading)


def settle_submission(*, run: Run) -> Submission | None:
    """After the grading run: a run that could not finish leaves its submission "could not
    be tested" (never pending for ever). (A pass was counted by `grade_submission`.)"""
    submission = (
        Submission.objects.filter(run=run).select_related("exercise__block__lesson", "user").first()
    )
    if submission is None:
        return None
    if submission.verdict == Submission.Verdict.PENDING and run.is_final:
        Submission.objects.filter(pk=submission.pk, verdict=Submission.Verdict.PENDING).update(
            verdict=Submission.Verdict.NOT_CHECKED, graded_at=timezone.now()
        )
        submission.refresh_from_db()
    return submission


def exercise_of_run(run: Run) -> CodeExercise:
    """The exercise a grading run grades: a learner's submission, or an admin's check."""
    found = Submission.objects.filter(run=run).select_related("exercise__block__lesson__course").first()
    if found is None:
        found = ExerciseCheck.objects.select_related("exercise__block__lesson__course").get(run=run)
    return found.exercise


def queue_exercise_checks(*, exercises) -> list[Run]:
    """Two grading runs per exercise for the worker, its solution's and its starter's; they
    belong to no learner (an admin checking content spends no learner's allowance)."""
    runs = []
    with transaction.atomic():
        for exercise in exercises:
            for role, code in ((ExerciseCheck.Role.SOLUTION, exercise.solution),
                               (ExerciseCheck.Role.STARTER, exercise.starter)):
                run = queue_run(code=code, purpose=Run.Purpose.GRADE)
                ExerciseCheck.objects.create(exercise=exercise, role=role, run=run)
                runs.append(run)
    return runs


def grade_run(*, run: Run, limits: sandbox.Limits) -> sandbox.Result:
    """In the worker: grade a submission, or an admin's check of an exercise."""
    if Submission.objects.filter(run=run).exists():
        return grade_submission(run=run, limits=limits)
    check = ExerciseCheck.objects.select_related("exercise").get(run=run)
    grading = grade(run.code, tests_of(check.exercise), limits=limits, per_test_seconds=PER_TEST_SECONDS)
    ExerciseCheck.objects.filter(pk=check.pk).update(results=grading.to_dict())
    return run_result(grading)
