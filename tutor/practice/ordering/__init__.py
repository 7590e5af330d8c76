"""Put it in order (a Parsons problem), the learner's side.

The content (the lines in the solution's order, distractors, dependencies, grading) is
declared in course/kinds/ordering.py. Here: the learner's board (board.py), the lesson
page's template, how progress counts an exercise (solved once, it stays solved) and what
teachers see of it.
"""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Min
from django.http import HttpRequest
from django.urls import path
from django.utils.translation import gettext_lazy, ngettext

from course.kinds.ordering import OrderingExercise
from course.models import Block
from tutor import practice
from tutor.practice.ordering import actions as ordering_actions
from tutor.practice.ordering import checks, clusters, teaching
from tutor.practice.ordering.board import boards
from tutor.practice.ordering.models import OrderingAttempt


class OrderingKind(practice.PracticeKind):
    name = "ordering"
    label = gettext_lazy("Ordering exercises")
    template = "tutor/practice/ordering.html"
    analysis_template = "tutor/teaching/kinds/ordering_analysis.html"
    styles = ("css/ordering.css",)
    scripts = ("vendor/Sortable.min.js", "js/ordering.js")

    def states(
        self, blocks: list[Block], *, user: AbstractBaseUser | AnonymousUser, request: HttpRequest | None = None
    ) -> dict[int, object]:
        exercises = [block.ordering_exercise for block in blocks if hasattr(block, "ordering_exercise")]
        if not exercises:
            return {}
        found = boards(user, exercises, lesson_url=blocks[0].lesson.get_absolute_url())
        return {exercise.block_id: found[exercise.pk] for exercise in exercises}

    # -- the author's check: an output-graded exercise's solution runs and prints what
    # learners must match (the admin's queued "Check outputs" does not check these yet)

    checks_content = True

    def check_content(self, *, lessons) -> list:
        return checks.check_exercises(checks.output_graded_in_order().filter(block__lesson__in=lessons))

    def check_summary(self, *, wrong: int, total: int) -> str:
        if wrong:
            return f"{wrong} of {total} ordering exercises graded by output cannot be solved as written."
        return f"All {total} ordering exercises graded by output: the solution's order prints what it must."

    def settle(self, run) -> None:
        ordering_actions.settle_checks_for_run(run=run)

    def repair(self) -> int:
        waiting = OrderingAttempt.objects.ready_to_settle().select_related(
            "run", "user", "exercise__block__lesson"
        )
        settled = [ordering_actions.settle_check(attempt=attempt) for attempt in waiting]
        return sum(attempt.verdict != OrderingAttempt.Verdict.PENDING for attempt in settled)

    def analyses(self, *, in_class, lesson) -> list:
        return teaching.analyses(in_class=in_class, lesson=lesson)

    def events(self, *, student, limit: int) -> list:
        return teaching.events(student=student, limit=limit)

    def attempt_rows(self, *, in_class, chunk: int) -> list:
        return teaching.attempt_rows(in_class=in_class, chunk=chunk)

    def clusters(self, *, in_class, blocks: list) -> dict:
        return clusters.clusters(in_class=in_class, blocks=blocks)

    def cluster_of(self, state):
        return clusters.cluster_of(state)

    def worked_on(self):
        rows = OrderingAttempt.objects.filter(user__isnull=False)
        return rows.values_list("user_id", "exercise__block__lesson").distinct()

    def progress_text(self, counts: dict[str, int]) -> str:
        return ngettext(
            "%(done)d of %(total)d ordering exercise solved",
            "%(done)d of %(total)d ordering exercises solved",
            counts["total"],
        ) % {"done": counts["done"], "total": counts["total"]}

    def done_at(self, *, blocks: list[int], users) -> dict:
        # The first check that solved it ("Practise again" does not undo it).
        rows = (
            OrderingAttempt.objects.filter(
                exercise__block__in=blocks, user__in=users, verdict=OrderingAttempt.Verdict.SOLVED
            )
            .values_list("user_id", "exercise__block_id")
            .annotate(at=Min("created_at"))
        )
        return {(user, block): at for user, block, at in rows}

    @property
    def urls(self) -> list:
        from tutor.practice.ordering import views

        return [
            path("exercises/<int:exercise_id>/", views.ordering_practice, name="ordering_practice"),
            path("exercises/<int:exercise_id>/move/", views.ordering_move, name="ordering_move"),
            path("exercises/<int:exercise_id>/check/", views.ordering_check, name="ordering_check"),
            path("exercises/<int:exercise_id>/help/", views.ordering_help, name="ordering_help"),
            path("exercises/<int:exercise_id>/reset/", views.ordering_reset, name="ordering_reset"),
        ]

    def count(self) -> practice.Count:
        exercise, block = OrderingExercise._meta.db_table, Block._meta.db_table
        attempt = OrderingAttempt._meta.db_table
        of_lesson = f"JOIN {block} b ON b.id = s.block_id WHERE b.lesson_id = %(lesson)s"
        return practice.Count(
            total=f"SELECT COUNT(*) FROM {exercise} s {of_lesson}",
            # Solved once stays solved: "Practise again" does not undo it.
            done=f"""SELECT COUNT(DISTINCT a.exercise_id) FROM {attempt} a
                JOIN {exercise} s ON s.id = a.exercise_id {of_lesson}
                AND a.user_id = %(user)s AND a.verdict = %(ordering_solved)s""",
            params=(("ordering_solved", OrderingAttempt.Verdict.SOLVED.value),),
            columns=(("total", "exercises_total"), ("done", "exercises_solved")),
        )


practice.register(OrderingKind())
