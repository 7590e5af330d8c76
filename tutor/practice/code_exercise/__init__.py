"""Write code (Modify and Make), the learner's side: write or change a program, submit it,
and read what each test found, in a beginner's words.

The content (prompt, starter code, reference solution, tests) is declared in
course/kinds/code_exercise.py. Here: the learner's submissions and drafts (models.py),
their state on the page (state.py), the workflows (actions.py: a submission is one run,
graded by every test in one sandbox process by tutor.sandbox.grading), the views, how
progress counts an exercise (solved when a submission passes every test) and what
teachers see of it (teaching.py).
"""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Min
from django.http import HttpRequest
from django.urls import path
from django.utils.translation import gettext_lazy, ngettext

from course.kinds.code_exercise import CodeExercise
from course.models import Block
from tutor import practice, roles
from tutor.models import Run
from tutor.practice.code_exercise import actions, checks, clusters, teaching
from tutor.practice.code_exercise.models import ExerciseDraft, Submission
from tutor.practice.code_exercise.state import practices


class CodeExerciseKind(practice.PracticeKind):
    name = "code_exercise"
    label = gettext_lazy("Code exercises")
    template = "tutor/practice/code_exercise.html"
    analysis_template = "tutor/teaching/kinds/code_exercise_analysis.html"
    styles = ("css/snippet.css", "css/code_exercise.css")
    scripts = ("vendor/editor.bundle.js", "js/snippet.js", "js/trail.js")
    run_purpose = Run.Purpose.GRADE

    def states(
        self, blocks: list[Block], *, user: AbstractBaseUser | AnonymousUser, request: HttpRequest | None = None
    ) -> dict[int, object]:
        exercises = [block.code_exercise for block in blocks if hasattr(block, "code_exercise")]
        if not exercises or not user.is_authenticated:
            return {}
        found = practices(
            user,
            exercises,
            submission_id=practice.shown_id(request, "submission"),
            in_class=not roles.in_no_class(request),
        )
        return {exercise.block_id: found[exercise.pk] for exercise in exercises}

    # -- grading

    def run_limits(self, run: Run):
        return actions.grading_limits(actions.exercise_of_run(run))

    def execute(self, run: Run, limits):
        return actions.grade_run(run=run, limits=limits)

    def settle(self, run: Run) -> None:
        if run.purpose == self.run_purpose:
            actions.settle_submission(run=run)

    def repair(self) -> int:
        lost = Submission.objects.filter(
            verdict=Submission.Verdict.PENDING, run__status__in=Run.FINAL_STATUSES
        ).select_related("run")
        return sum(actions.settle_submission(run=submission.run) is not None for submission in lost)

    # -- progress

    def count(self) -> practice.Count:
        exercise, block = CodeExercise._meta.db_table, Block._meta.db_table
        submission = Submission._meta.db_table
        of_lesson = f"JOIN {block} b ON b.id = e.block_id WHERE b.lesson_id = %(lesson)s"
        return practice.Count(
            total=f"SELECT COUNT(*) FROM {exercise} e {of_lesson}",
            # Solved once stays solved: a later submission that fails does not undo it.
            done=f"""SELECT COUNT(DISTINCT s.exercise_id) FROM {submission} s
                JOIN {exercise} e ON e.id = s.exercise_id {of_lesson}
                AND s.user_id = %(user)s AND s.verdict = %(code_exercise_passed)s""",
            params=(("code_exercise_passed", Submission.Verdict.PASSED.value),),
        )

    def clusters(self, *, in_class, blocks: list) -> dict:
        return clusters.clusters(in_class=in_class, blocks=blocks)

    def cluster_of(self, state):
        return clusters.cluster_of(state)

    def worked_on(self):
        rows = Submission.objects.values_list("user_id", "exercise__block__lesson").distinct()
        drafts = ExerciseDraft.objects.values_list("user_id", "exercise__block__lesson").distinct()
        return [*rows, *drafts]

    def progress_text(self, counts: dict[str, int]) -> str:
        return ngettext(
            "%(done)d of %(total)d code exercise solved",
            "%(done)d of %(total)d code exercises solved",
            counts["total"],
        ) % {"done": counts["done"], "total": counts["total"]}

    def done_at(self, *, blocks: list[int], users) -> dict:
        # The first submission that passed every test, at the time it was sent.
        rows = (
            Submission.objects.filter(
                exercise__block__in=blocks, user__in=users, verdict=Submission.Verdict.PASSED
            )
            .values_list("user_id", "exercise__block_id")
            .annotate(at=Min("created_at"))
        )
        return {(user, block): at for user, block, at in rows}

    # -- teachers

    def analyses(self, *, in_class, lesson) -> list:
        return teaching.analyses(in_class=in_class, lesson=lesson)

    def events(self, *, student, limit: int) -> list:
        return teaching.events(student=student, limit=limit)

    def attempt_rows(self, *, in_class, chunk: int) -> list:
        return teaching.attempt_rows(in_class=in_class, chunk=chunk)

    # -- the author's check: the solution passes every test, the starter code fails one

    checks_content = True
    check_template = "admin/course/lesson/check_outputs_code_exercises.html"

    def check_content(self, *, lessons) -> list:
        exercises = checks.exercises_in_order().filter(block__lesson__in=lessons)
        return [checks.check_exercise(exercise) for exercise in exercises]

    def check_summary(self, *, wrong: int, total: int) -> str:
        if wrong:
            return f"{wrong} of {total} code exercises fail their own check (see above)."
        return (
            f"All {total} code exercises: the solution passes every test, "
            "the starter code does not."
        )

    def queue_content_checks(self, *, lessons) -> list:
        exercises = list(checks.exercises_in_order().filter(block__lesson__in=lessons))
        return actions.queue_exercise_checks(exercises=exercises)

    def queued_words(self, *, queued: list) -> str:
        count = len(queued) // 2  # the solution's run and the starter's
        return ngettext(
            "Grading the solution and starter code of %(count)s code exercise.",
            "Grading the solution and starter code of %(count)s code exercises.",
            count,
        ) % {"count": count}

    def queued_content_checks(self, run_ids: list[int]) -> list:
        return checks.queued_checks(run_ids)

    # -- endpoints

    @property
    def urls(self) -> list:
        from tutor.practice.code_exercise import views

        return [
            path("code-exercises/<int:exercise_id>/submit/", views.submission_create, name="submission_create"),
            path("submissions/<int:submission_id>/", views.submission_detail, name="submission_detail"),
            path("code-exercises/<int:exercise_id>/draft/", views.exercise_draft_save, name="exercise_draft_save"),
        ]


practice.register(CodeExerciseKind())
