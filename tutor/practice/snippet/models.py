"""A learner's work on snippets: predictions (the first one counts), predictions of their
own edited version, and the draft they are typing. Rows point at the snippet with
PROTECT (course.learner_work names them when content would go)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from course.kinds.snippet import Snippet
from tutor.models import Run


class PredictionQuerySet(models.QuerySet):
    def pending(self) -> "PredictionQuerySet":
        """Typed predictions still waiting for the real output to get their verdict."""
        return self.filter(verdict=Prediction.Verdict.PENDING)


class Prediction(models.Model):
    """What a learner said a snippet would print, before seeing the real output."""

    class Verdict(models.TextChoices):
        RIGHT = "right", gettext_lazy("Right")
        WRONG = "wrong", gettext_lazy("Not quite")
        SELF_RIGHT = "self_right", gettext_lazy("Said out loud: got it")
        SELF_WRONG = "self_wrong", gettext_lazy("Said out loud: didn't")
        SELF_UNCHECKED = "self_unchecked", gettext_lazy("Said out loud")
        PENDING = "pending", gettext_lazy("Waiting for the real output")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="predictions"
    )
    snippet = models.ForeignKey(Snippet, on_delete=models.PROTECT, related_name="predictions")
    snippet_version = models.PositiveIntegerField(help_text="The version of the code they saw.")
    text = models.TextField(blank=True)
    said_out_loud = models.BooleanField(default=False)
    verdict = models.CharField(max_length=20, choices=Verdict.choices)
    is_first = models.BooleanField(default=False, help_text="The first one is the one that counts.")
    created_at = models.DateTimeField(default=timezone.now)

    objects = PredictionQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["snippet", "snippet_version", "is_first"])]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "snippet", "snippet_version"],
                condition=models.Q(is_first=True),
                name="one_first_prediction_per_version",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.snippet}: {self.verdict}"

    @property
    def is_right(self) -> bool:
        return self.verdict in {self.Verdict.RIGHT, self.Verdict.SELF_RIGHT}


class VersionPrediction(models.Model):
    """What a learner said their own edited version would print, sent with its run.

    Kept apart from Prediction on purpose: it is practice after the reveal, so it never
    counts as the first prediction, changes no verdict and no item analysis."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="version_predictions"
    )
    snippet = models.ForeignKey(
        Snippet, on_delete=models.PROTECT, related_name="version_predictions"
    )
    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="version_prediction")
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.user}'s prediction of their version of {self.snippet}"


class CodeDraft(models.Model):
    """A learner's edited version of a snippet, saved as they type."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts")
    snippet = models.ForeignKey(Snippet, on_delete=models.PROTECT, related_name="drafts")
    code = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "snippet"], name="one_draft_per_snippet")
        ]

    def __str__(self) -> str:
        return f"{self.user}'s draft of {self.snippet}"
