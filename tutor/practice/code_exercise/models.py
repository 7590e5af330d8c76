"""A learner's work on code exercises: each submission (graded by the exercise's tests in
one sandbox run) and the draft they are typing."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from course.kinds.code_exercise import CodeExercise
from tutor.models import Run


class SubmissionQuerySet(models.QuerySet):
    def of(self, user, exercise) -> "SubmissionQuerySet":
        return self.filter(user=user, exercise=exercise)

    def latest_first(self) -> "SubmissionQuerySet":
        return self.order_by("-created_at", "-pk")


class Submission(models.Model):
    class Verdict(models.TextChoices):
        PENDING = "pending", gettext_lazy("Being tested")
        PASSED = "passed", gettext_lazy("All tests pass")
        FAILED = "failed", gettext_lazy("Not yet")
        NOT_CHECKED = "not_checked", gettext_lazy("Could not be tested")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    exercise = models.ForeignKey(CodeExercise, on_delete=models.PROTECT, related_name="submissions")
    code = models.TextField()
    run = models.OneToOneField(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="submission")
    verdict = models.CharField(max_length=20, choices=Verdict.choices, default=Verdict.PENDING)
    tests_total = models.PositiveIntegerField(default=0)
    tests_passed = models.PositiveIntegerField(default=0)
    # The harness's Grading (tutor.sandbox.grading), as a dict: every test's result.
    results = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    graded_at = models.DateTimeField(null=True, blank=True)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
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
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exercise_drafts"
    )
    exercise = models.ForeignKey(CodeExercise, on_delete=models.PROTECT, related_name="drafts")
    code = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
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
        SOLUTION = "solution", "Reference solution"
        STARTER = "starter", "Starter code"

    exercise = models.ForeignKey(CodeExercise, on_delete=models.CASCADE, related_name="checks")
    role = models.CharField(max_length=10, choices=Role.choices)
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="exercise_check")
    results = models.JSONField(default=dict, blank=True)

    class Meta:
        app_label = "tutor"

    def __str__(self) -> str:
        return f"{self.get_role_display()} of {self.exercise}"
