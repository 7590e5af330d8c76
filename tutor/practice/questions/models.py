"""A learner's answers to questions (multiple choice, checkboxes, number, fill in the
blanks): each answer given, and one row per learner and question that counts the tries on
the server, so the right option cannot be found by posting each in turn."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block
from tutor.models import Run


class QuestionTriesQuerySet(models.QuerySet):
    def of(self, user, block) -> "QuestionTriesQuerySet":
        return self.filter(user=user, block=block)


class QuestionTries(models.Model):
    """How far one learner is with one question: the tries used, and when it was answered
    right, or every try was used (then the right answer is shown)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="question_tries",
        verbose_name=_("user"),
    )
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="question_tries", verbose_name=_("block")
    )
    tries = models.PositiveIntegerField(default=0, verbose_name=_("tries"))
    score = models.FloatField(
        default=0, help_text=_("The best score of the answers, 0 to 1."), verbose_name=_("score")
    )
    right_at = models.DateTimeField(null=True, blank=True, verbose_name=_("right at"))
    finished_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("Answered right, or every try used: the answer is shown."),
        verbose_name=_("finished at"),
    )
    # A `code_blanks` question: the fills last sent while their program was running (not yet
    # a try), shown in the blanks with "See the result" until it is graded.
    pending = models.JSONField(default=dict, blank=True, verbose_name=_("pending"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    objects = QuestionTriesQuerySet.as_manager()

    class Meta:
        verbose_name = _("question's tries")
        verbose_name_plural = _("questions' tries")
        constraints = [
            models.UniqueConstraint(fields=["user", "block"], name="one_tries_row_per_question")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.block}: {self.tries}"

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


class QuestionAnswer(models.Model):
    """One answer a learner gave to a question, as graded when given."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="question_answers",
        verbose_name=_("user"),
    )
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="question_answers", verbose_name=_("block")
    )
    # choice and checkboxes: the option keys chosen; number: {"text": typed, "value": read};
    # blanks: {name: typed}.
    answer = models.JSONField(verbose_name=_("answer"))
    score = models.FloatField(
        help_text=_("0 to 1: the share of the marks it earned."), verbose_name=_("score")
    )
    right = models.BooleanField(verbose_name=_("right"))
    # A question with parameters: the learner's variant, and the answer it computes.
    variant = models.JSONField(default=dict, blank=True, verbose_name=_("variant"))
    expected = models.FloatField(null=True, blank=True, verbose_name=_("expected"))
    try_number = models.PositiveIntegerField(verbose_name=_("try number"))
    # An answer given in a quiz (tutor/quizzes/), recorded when its attempt was submitted (or
    # checked at once): it counts in the teacher's views of answers, not in the learner's
    # practice of the question on the lesson page.
    attempt = models.ForeignKey(
        "tutor.QuizAttempt",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="question_answers",
        verbose_name=_("attempt"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("answer to a question")
        verbose_name_plural = _("answers to questions")
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["block", "user"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.block}: {self.score:.0%}"


class QuestionVariant(models.Model):
    """One variant of a question that computes its answer: the parameters' values and what
    its program printed for them, run once in the sandbox and kept (every learner with this
    variant is graded against it). Keyed by the program as run, so an edited program or new
    values make new rows."""

    block = models.ForeignKey(
        Block, on_delete=models.CASCADE, related_name="question_variants", verbose_name=_("block")
    )
    code_hash = models.CharField(max_length=64, verbose_name=_("code hash"))
    parameters = models.JSONField(verbose_name=_("parameters"))
    answer = models.FloatField(
        null=True, blank=True, verbose_name=_("answer")
    )  # a number question's
    # What the program printed, as the kind reads it: a number, {blank: [answers]}, option keys.
    computed = models.JSONField(null=True, blank=True, verbose_name=_("computed"))
    problem = models.TextField(
        blank=True, help_text=_("Why no answer came of it, if none did."), verbose_name=_("problem")
    )
    run = models.ForeignKey(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("run"),
    )
    computed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("computed at"))

    class Meta:
        verbose_name = _("question variant")
        verbose_name_plural = _("question variants")
        constraints = [
            models.UniqueConstraint(fields=["block", "code_hash"], name="one_row_per_question_variant")
        ]

    def __str__(self) -> str:
        return f"{self.block} {self.parameters}: {self.value}"

    @property
    def value(self):
        """The variant's answer as grading takes it (a row kept before `computed`: its number)."""
        return self.computed if self.computed is not None else self.answer
