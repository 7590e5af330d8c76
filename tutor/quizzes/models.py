"""A student's attempts at a quiz assignment, and the answer saved for each question of one."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block
from tutor.assignments.models import Assignment
from tutor.models import Run


class QuizAttemptQuerySet(models.QuerySet):
    def open(self) -> "QuizAttemptQuerySet":
        return self.filter(submitted_at__isnull=True)

    def submitted(self) -> "QuizAttemptQuerySet":
        return self.filter(submitted_at__isnull=False)

    def overdue(self, now) -> "QuizAttemptQuerySet":
        """Open attempts whose time is over (grace included: rules.GRACE)."""
        from tutor.quizzes.rules import GRACE

        return self.open().filter(ends_at__lt=now - GRACE)


class QuizAttempt(models.Model):
    """One go at a quiz: its questions in the order this attempt shows them (shuffled at the
    start when the quiz says so, then kept), until when it may take answers (the server's
    clock; null: no time limit), and once submitted its score."""

    assignment = models.ForeignKey(
        Assignment,
        on_delete=models.CASCADE,
        related_name="quiz_attempts",
        verbose_name=_("assignment"),
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="quiz_attempts",
        verbose_name=_("student"),
    )
    number = models.PositiveSmallIntegerField(
        help_text=_("1 for the first attempt, and so on."), verbose_name=_("number")
    )
    started_at = models.DateTimeField(default=timezone.now, verbose_name=_("started at"))
    ends_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("Start + time limit; empty: no limit."),
        verbose_name=_("ends at"),
    )
    submitted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("submitted at"))
    score = models.FloatField(
        null=True, blank=True, help_text=_("0 to 1, once submitted."), verbose_name=_("score")
    )
    order = models.JSONField(
        help_text=_("The questions' block ids, in this attempt's order."), verbose_name=_("order")
    )

    objects = QuizAttemptQuerySet.as_manager()

    class Meta:
        verbose_name = _("quiz attempt")
        verbose_name_plural = _("quiz attempts")
        app_label = "tutor"
        ordering = ["assignment", "student", "number"]
        constraints = [
            # Two tabs or a double click cannot start the same attempt twice, nor two at once.
            models.UniqueConstraint(
                fields=["assignment", "student", "number"], name="one_quiz_attempt_per_number"
            ),
            models.UniqueConstraint(
                fields=["assignment", "student"],
                condition=Q(submitted_at__isnull=True),
                name="one_open_quiz_attempt",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="quiz_attempt_number_from_1"),
        ]
        indexes = [models.Index(fields=["submitted_at", "ends_at"])]

    def __str__(self) -> str:
        return f"{self.student} on {self.assignment}: attempt {self.number}"

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    @property
    def percent(self) -> int:
        return round(100 * (self.score or 0))

    @property
    def time_taken(self):
        return (self.submitted_at - self.started_at) if self.submitted_at else None


class QuizAnswer(models.Model):
    """The answer saved for one question of one attempt, graded when saved (by the questions'
    grading); `checked_at`: shown graded to the student and final (feedback "at once")."""

    attempt = models.ForeignKey(
        QuizAttempt, on_delete=models.CASCADE, related_name="answers", verbose_name=_("attempt")
    )
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="quiz_answers", verbose_name=_("block")
    )
    answer = models.JSONField(verbose_name=_("answer"))
    score = models.FloatField(verbose_name=_("score"))
    right = models.BooleanField(verbose_name=_("right"))
    variant = models.JSONField(default=dict, blank=True, verbose_name=_("variant"))
    expected = models.FloatField(null=True, blank=True, verbose_name=_("expected"))
    saved_at = models.DateTimeField(default=timezone.now, verbose_name=_("saved at"))
    checked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("checked at"))
    # A fill-in-the-code question: the run of the filled program while the worker runs it.
    # Until it is back the answer scores 0 and is not recorded; then it is graded (and, once
    # checked or submitted, recorded and counted in the attempt's score): actions.settle_answer.
    run = models.ForeignKey(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("run"),
    )

    class Meta:
        verbose_name = _("quiz answer")
        verbose_name_plural = _("quiz answers")
        app_label = "tutor"
        constraints = [
            models.UniqueConstraint(fields=["attempt", "block"], name="one_quiz_answer_per_question")
        ]

    def __str__(self) -> str:
        return f"{self.attempt}: {self.block.key}"

    @property
    def running(self) -> bool:
        return self.run_id is not None
