"""A learner's work on code exercises: each submission (graded by the exercise's tests in
one sandbox run) and the draft they are typing."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.kinds.code_exercise import CodeExercise
from tutor.models import Run


class SubmissionQuerySet(models.QuerySet):
    def of(self, user, exercise) -> "SubmissionQuerySet":
        return self.filter(user=user, exercise=exercise)

    def latest_first(self) -> "SubmissionQuerySet":
        return self.order_by("-created_at", "-pk")


class Submission(models.Model):
    class Verdict(models.TextChoices):
        PENDING = "pending", _("Being tested")
        PASSED = "passed", _("All tests pass")
        FAILED = "failed", _("Not yet")
        NOT_CHECKED = "not_checked", _("Could not be tested")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="submissions",
        verbose_name=_("user"),
    )
    exercise = models.ForeignKey(
        CodeExercise,
        on_delete=models.PROTECT,
        related_name="submissions",
        verbose_name=_("exercise"),
    )
    code = models.TextField(verbose_name=_("code"))
    run = models.OneToOneField(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="submission",
        verbose_name=_("run"),
    )
    verdict = models.CharField(
        max_length=20, choices=Verdict.choices, default=Verdict.PENDING, verbose_name=_("verdict")
    )
    tests_total = models.PositiveIntegerField(default=0, verbose_name=_("tests total"))
    tests_passed = models.PositiveIntegerField(default=0, verbose_name=_("tests passed"))
    # The harness's Grading (tutor.sandbox.grading), as a dict: every test's result.
    results = models.JSONField(default=dict, blank=True, verbose_name=_("results"))
    created_at = models.DateTimeField(
        default=timezone.now, db_index=True, verbose_name=_("created at")
    )
    graded_at = models.DateTimeField(null=True, blank=True, verbose_name=_("graded at"))

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        verbose_name = _("submission")
        verbose_name_plural = _("submissions")
        app_label = "tutor"
        indexes = [models.Index(fields=["exercise", "user"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}: {self.get_verdict_display()}"

    @property
    def is_graded(self) -> bool:
        return self.verdict != self.Verdict.PENDING


class ExerciseDraft(models.Model):
    """The code a learner is writing for an exercise, saved as they type."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="exercise_drafts",
        verbose_name=_("user"),
    )
    exercise = models.ForeignKey(
        CodeExercise, on_delete=models.PROTECT, related_name="drafts", verbose_name=_("exercise")
    )
    code = models.TextField(verbose_name=_("code"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("exercise draft")
        verbose_name_plural = _("exercise drafts")
        app_label = "tutor"
        constraints = [
            models.UniqueConstraint(fields=["user", "exercise"], name="one_draft_per_code_exercise")
        ]

    def __str__(self) -> str:
        return f"{self.user}'s draft of {self.exercise}"


class ExerciseCheck(models.Model):
    """The admin's "Check outputs" for a code exercise: its solution or its starter code,
    graded by its tests in the worker like a submission (the web process runs no code)."""

    class Role(models.TextChoices):
        SOLUTION = "solution", _("Reference solution")
        STARTER = "starter", _("Starter code")

    exercise = models.ForeignKey(
        CodeExercise, on_delete=models.CASCADE, related_name="checks", verbose_name=_("exercise")
    )
    role = models.CharField(max_length=10, choices=Role.choices, verbose_name=_("role"))
    run = models.OneToOneField(
        Run, on_delete=models.CASCADE, related_name="exercise_check", verbose_name=_("run")
    )
    results = models.JSONField(default=dict, blank=True, verbose_name=_("results"))

    class Meta:
        verbose_name = _("exercise check")
        verbose_name_plural = _("exercise checks")
        app_label = "tutor"

    def __str__(self) -> str:
        return f"{self.get_role_display()} of {self.exercise}"
