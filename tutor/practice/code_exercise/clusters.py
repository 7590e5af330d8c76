"""Code exercises' failing submissions, grouped by the tests they fail and how.

Two submissions are in one group when the same tests fail (by name) with the same kinds of
failure (wrong output, an exception, too slow, ...); code that does not even run (a syntax
error) is one group, whatever test names it never reached."""

from django.db.models import Q

from course.kinds.code_exercise import CodeExercise
from tutor.clusters.groups import Distribution, Group, gather, group_key, joined
from tutor.practice.code_exercise.models import Submission
from tutor.practice.code_exercise.state import ExercisePractice
from tutor.practice.code_exercise.teaching import FAILURE_NAMES


def submission_group(results: dict) -> Group:
    """The group of a failing submission, from its grading (Submission.results)."""
    if results.get("kind") == "syntax_error":
        return Group(
            group_key("code_exercise", "syntax_error"),
            "The code does not run: a syntax error",
            "Syntax error",
        )
    failing = sorted(
        {(r["name"], r.get("kind") or "") for r in results.get("results", []) if not r["passed"]}
    )
    kinds = sorted({kind for _, kind in failing if kind})
    names = sorted({name for name, _ in failing})
    how = ", ".join(FAILURE_NAMES.get(kind, kind) for kind in kinds)
    description = joined([f"“{name}”" for name in names], most=4)
    description = (
        f"Fails {description}" + (f" ({how})" if how else "")
        if names
        else "Fails, with no test named"
    )
    answer = "\n".join(f"✗ {name}" for name in names) + (f"\n{how}" if how else "")
    return Group(group_key("code_exercise", names, kinds), description, answer)


def cluster_of(state: ExercisePractice | None) -> tuple[int, Group] | None:
    """The submission the panel shows, when it was tested and failed."""
    if (
        state is None
        or state.submission is None
        or state.submission.verdict != Submission.Verdict.FAILED
    ):
        return None
    return state.exercise.block_id, submission_group(state.submission.results)


def clusters(*, in_class: Q, blocks: list) -> dict[int, Distribution]:
    """Each student's latest tested submission: two queries for any number of exercises."""
    exercises = list(CodeExercise.objects.filter(block__in=blocks))
    latest: dict[int, dict[int, tuple[str, dict]]] = {e.pk: {} for e in exercises}
    rows = (
        Submission.objects.filter(in_class, exercise__in=exercises)
        .filter(verdict__in=[Submission.Verdict.PASSED, Submission.Verdict.FAILED])
        .order_by("created_at", "pk")
        .values_list("exercise_id", "user_id", "verdict", "results")
    )
    for exercise_id, user_id, verdict, results in rows:
        latest[exercise_id][user_id] = (verdict, results)
    found = {}
    for exercise in exercises:
        answers = latest[exercise.pk]
        right = {
            user for user, (verdict, _) in answers.items() if verdict == Submission.Verdict.PASSED
        }
        wrong = {
            user: submission_group(results)
            for user, (verdict, results) in answers.items()
            if verdict == Submission.Verdict.FAILED
        }
        found[exercise.block_id] = gather(exercise.block_id, right, wrong)
    return found
