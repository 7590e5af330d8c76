"""A learner's work on ordering exercises: where their lines are (the arrangement, saved
after every move), each Check, and each use of Help."""

from collections.abc import Sequence

from django.conf import settings
from django.db import models
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy

from course.kinds.ordering import OrderingExercise, OrderingLine
from tutor.models import Run
from tutor.practice.ordering.lines import DOWN, LEAVE_OUT, UP, USE, ExerciseLines, starting_order


class OrderingRefused(Exception):
    """The learner cannot do that to this exercise now; the message says why."""


def _pinned(
    order: Sequence[str], unused: Sequence[str], fixed: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Lines fixed by Help stay at the top of the answer, in the solution's order."""
    fixed_set = set(fixed)
    return (
        list(fixed) + [key for key in order if key not in fixed_set],
        [key for key in unused if key not in fixed_set],
    )


class OrderingArrangementQuerySet(models.QuerySet):
    def of(self, user, exercise) -> "OrderingArrangementQuerySet":
        """The learner's arrangement of the exercise (none until they first touch it);
        either may be given as a row or its pk."""
        return self.filter(user=user, exercise=exercise)


class OrderingArrangement(models.Model):
    """Where a learner's lines currently are in one exercise (saved after every move)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="arrangements"
    )
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.PROTECT, related_name="arrangements"
    )
    order = models.JSONField(default=list, help_text="Line keys in the answer area, top to bottom.")
    unused = models.JSONField(default=list, help_text="Line keys in the 'not used' area.")
    fixed = models.JSONField(default=list, help_text="Line keys put in place by 'Help me'.")
    removed = models.JSONField(default=list, help_text="Distractor keys removed by 'Help me'.")
    checks = models.PositiveIntegerField(default=0)
    wrong_checks = models.PositiveIntegerField(default=0)
    help_used = models.PositiveIntegerField(default=0)
    solved_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OrderingArrangementQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "exercise"], name="one_arrangement_per_exercise")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}"

    def refuse_if_solved(self) -> None:
        if self.solved_at is not None:
            raise OrderingRefused(
                "You have solved this one already. Choose “Practise again” to start over."
            )

    def fit_to_lines(self, lines: ExerciseLines) -> bool:
        """Bring the saved arrangement up to date with the exercise's lines, which may have
        been edited since the learner last worked on it. True when anything changed (in
        memory; the caller saves).

        A key no longer in the exercise goes. A new line joins the end of the answer, even a
        distractor: putting it in "Not used" would tell the learner that it does not belong.
        Lines fixed by Help stay fixed only while they still start the solution; a line Help
        took away stays away only while it is still a distractor.
        """
        distractors = set(lines.distractors)
        removed = [key for key in dict.fromkeys(self.removed) if key in distractors]
        fixed = []
        for key, right in zip(self.fixed, lines.correct, strict=False):
            if key != right:
                break
            fixed.append(key)
        away = set(removed)
        order = [key for key in dict.fromkeys(self.order) if key in lines.texts and key not in away]
        unused = [
            key
            for key in dict.fromkeys(self.unused)
            if key in lines.texts and key not in away and key not in order
        ]
        placed = away | set(order) | set(unused) | set(fixed)
        if len(placed) < len(lines.texts):
            # In the learner's own shuffle, so several new lines do not arrive in the solution's order.
            shuffle = starting_order(user_id=self.user_id, lines=lines)
            order += [key for key in shuffle if key not in placed]
        order, unused = _pinned(order, unused, fixed)
        if (order, unused, fixed, removed) == (self.order, self.unused, self.fixed, self.removed):
            return False
        self.order, self.unused, self.fixed, self.removed = order, unused, fixed, removed
        return True

    def arrange(self, order: Sequence[str], unused: Sequence[str]) -> None:
        """Save where the learner put the lines; those fixed by Help stay on top."""
        self.order, self.unused = _pinned(order, unused, self.fixed)
        self.save(update_fields=["order", "unused", "updated_at"])

    def move(self, key: str, direction: str) -> None:
        """One step for one line, saved: up or down in its area, out to "not used", or back in."""
        if key in self.removed:
            raise OrderingRefused("Help took that line away: it does not belong in the answer.")
        if key in self.fixed:
            raise OrderingRefused("That line is fixed in place by Help and cannot move.")
        order, unused = list(self.order), list(self.unused)
        area = order if key in order else unused
        top = len(self.fixed) if area is order else 0
        i = area.index(key)
        if direction == UP and i > top:
            area[i - 1], area[i] = area[i], area[i - 1]
        elif direction == DOWN and i < len(area) - 1:
            area[i + 1], area[i] = area[i], area[i + 1]
        elif direction == LEAVE_OUT and area is order:
            order.remove(key)
            unused.append(key)
        elif direction == USE and area is unused:
            unused.remove(key)
            order.append(key)
        self.arrange(order, unused)

    def give_help(self, lines: ExerciseLines) -> tuple[str, str]:
        """Take away one line that does not belong or, when none is left, fix the next line
        of the solution at the top of the answer; saved, and counted. Returns what Help did
        (an OrderingHelp.Given) and to which line."""
        left = [key for key in lines.distractors if key not in self.removed]
        order, unused = list(self.order), list(self.unused)
        if left:
            # The one doing harm first: a distractor still in the answer.
            key = next((key for key in order if key in left), left[0])
            order = [k for k in order if k != key]
            unused = [k for k in unused if k != key]
            self.removed = [*self.removed, key]
            given = OrderingHelp.Given.REMOVED
        elif len(self.fixed) < len(lines.correct):
            key = lines.correct[len(self.fixed)]
            self.fixed = [*self.fixed, key]
            given = OrderingHelp.Given.FIXED
        else:
            raise OrderingRefused("Every line is already in its place: press Check.")
        self.order, self.unused = _pinned(order, unused, self.fixed)
        self.save(update_fields=["order", "unused", "removed", "fixed", "updated_at"])
        OrderingArrangement.objects.filter(pk=self.pk).update(help_used=F("help_used") + 1)
        return given, key

    def start_over(self, lines: ExerciseLines) -> None:
        """Back to the learner's starting shuffle, with a fresh count of checks and help."""
        self.order = starting_order(user_id=self.user_id, lines=lines)
        self.unused, self.fixed, self.removed = [], [], []
        self.checks = self.wrong_checks = self.help_used = 0
        self.solved_at = None
        self.save()

    def count_check(self, verdict: str, *, checks: int = 0) -> None:
        """Count a check's verdict in the row itself (F() expressions: two requests at once
        lose nothing): a wrong one towards Help, a solving one as the time it was solved."""
        changes: dict = {"updated_at": timezone.now()}
        if checks:
            changes["checks"] = F("checks") + checks
        if verdict == OrderingAttempt.Verdict.WRONG:
            changes["wrong_checks"] = F("wrong_checks") + 1
        elif verdict == OrderingAttempt.Verdict.SOLVED:
            changes["solved_at"] = timezone.now()
        OrderingArrangement.objects.filter(pk=self.pk).update(**changes)


class OrderingAttemptQuerySet(models.QuerySet):
    def pending(self) -> "OrderingAttemptQuerySet":
        """Checks of output-graded exercises still waiting for their verdict."""
        return self.filter(verdict=OrderingAttempt.Verdict.PENDING)

    def ready_to_settle(self) -> "OrderingAttemptQuerySet":
        """Pending checks whose program has finished: only their verdict is missing."""
        return self.pending().filter(run__status__in=Run.FINAL_STATUSES)

    def learners_by_line(self, lines: list[OrderingLine]) -> dict[OrderingLine, set[int]]:
        """The learners whose attempts name each of `lines` (attempts keep line keys, so no
        foreign key protects a line)."""
        by_key = {(line.exercise_id, line.key): line for line in lines}
        learners: dict[OrderingLine, set[int]] = {}
        attempts = self.filter(exercise_id__in={line.exercise_id for line in lines})
        for user_id, exercise_id, order in attempts.values_list("user_id", "exercise_id", "order"):
            for key in order:
                line = by_key.get((exercise_id, key))
                if line is not None:
                    learners.setdefault(line, set()).add(user_id)
        return learners


def ordering_lines_in_attempts(rows: list) -> list[tuple[OrderingLine, str, set[int]]]:
    """For course.learner_work: the doomed ordering lines learners' attempts name."""
    lines = [row for row in rows if isinstance(row, OrderingLine)]
    if not lines:
        return []
    what = str(OrderingAttempt._meta.verbose_name_plural)
    found = OrderingAttempt.objects.learners_by_line(lines)
    return [(line, what, user_ids) for line, user_ids in found.items()]


class OrderingAttempt(models.Model):
    """One press of Check on an ordering exercise."""

    class Verdict(models.TextChoices):
        SOLVED = "solved", gettext_lazy("Solved")
        WRONG = "wrong", gettext_lazy("Not yet")
        PENDING = "pending", gettext_lazy("Waiting for the program's output")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ordering_attempts"
    )
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.PROTECT, related_name="attempts"
    )
    order = models.JSONField(help_text="The submitted line keys, top to bottom.")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    lines_in_place = models.PositiveIntegerField(default=0)  # in order with each other (a longest run)
    help_used = models.PositiveIntegerField(default=0)
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    objects = OrderingAttemptQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}: {self.verdict}"


class OrderingHelp(models.Model):
    """One use of "Help me" on an ordering exercise. A fact for the teacher: "Start again"
    resets the learner's board (OrderingArrangement), never these rows."""

    class Given(models.TextChoices):
        REMOVED = "removed", "Took away a line that does not belong"
        FIXED = "fixed", "Fixed a line in its place"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ordering_help"
    )
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.PROTECT, related_name="help_given"
    )
    given = models.CharField(max_length=10, choices=Given.choices)
    line_key = models.SlugField(help_text="The line Help took away or fixed.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["exercise", "user"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}: {self.get_given_display()}"
