"""The rows the live view reads: one activity row per learner and lesson, raised hands,
and each class's rules for "stuck"."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block, Lesson


class LessonActivity(models.Model):
    """Where one learner is in one lesson right now, kept up to date by every action they
    take there (tutor.live.actions.record): the block they last acted on, what they did,
    and how long they have been on it without progress."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lesson_activity",
        verbose_name=_("user"),
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="activity", verbose_name=_("lesson")
    )
    block = models.ForeignKey(
        Block,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("The block they last acted on."),
        verbose_name=_("block"),
    )
    what = models.CharField(
        max_length=200, help_text=_("Their last action, in words."), verbose_name=_("what")
    )
    acted_at = models.DateTimeField(default=timezone.now, verbose_name=_("acted at"))
    failures = models.PositiveIntegerField(
        default=0,
        help_text=_("Failed checks or submissions in a row on this block."),
        verbose_name=_("failures"),
    )
    since = models.DateTimeField(
        default=timezone.now,
        help_text=_("On this block without progress since."),
        verbose_name=_("since"),
    )
    done = models.BooleanField(
        default=False,
        help_text=_("Their last step on this block was progress (solved, predicted)."),
        verbose_name=_("done"),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("lesson activity")
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="one_activity_per_lesson")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.lesson}: {self.what}"


class RaisedHand(models.Model):
    """A learner asking for their teacher's help during a lesson, until it is lowered or
    cleared."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="raised_hands",
        verbose_name=_("user"),
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="raised_hands", verbose_name=_("lesson")
    )
    block = models.ForeignKey(
        Block,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="raised_hands",
        help_text=_("The item it is about (none: the lesson as a whole)."),
        verbose_name=_("block"),
    )
    raised_at = models.DateTimeField(default=timezone.now, verbose_name=_("raised at"))

    class Meta:
        verbose_name = _("raised hand")
        verbose_name_plural = _("raised hands")
        ordering = ["raised_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="one_hand_per_lesson")
        ]

    def __str__(self) -> str:
        return f"{self.user}'s hand in {self.lesson}"


class LiveSettings(models.Model):
    """When the live view calls a student of this class stuck."""

    DEFAULT_FAILURES = 3
    DEFAULT_MINUTES = 5

    cohort = models.OneToOneField(
        "tutor.Cohort",
        on_delete=models.CASCADE,
        related_name="live_settings",
        verbose_name=_("class"),
    )
    stuck_failures = models.PositiveSmallIntegerField(
        _("failed checks in a row"),
        default=DEFAULT_FAILURES,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text=_("Stuck after this many failed checks or submissions in a row on one item."),
    )
    stuck_minutes = models.PositiveSmallIntegerField(
        _("minutes without progress"),
        default=DEFAULT_MINUTES,
        validators=[MinValueValidator(1), MaxValueValidator(240)],
        help_text=_("Stuck after this many minutes on one item without progress."),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("live view settings")

    def __str__(self) -> str:
        return f"Live view of {self.cohort}"
