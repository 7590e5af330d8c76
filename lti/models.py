"""How LMS courses, links and gradebook columns map onto Parsnip's classes and lessons, and
each learner's grade on its way to the LMS. The LTI records themselves (registrations,
deployments, contexts, users, resource links, keys) are django-lti's (`lti_tool`)."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiContext, LtiResourceLink, LtiUser

from course.models import Lesson
from tutor.assignments.models import Assignment
from tutor.models import Cohort


class ClassLink(models.Model):
    """An LMS course (an LTI context) taught as a Parsnip class. A class may be linked from
    several LMS courses (each gets the grades); an LMS course is one class."""

    context = models.OneToOneField(
        LtiContext, on_delete=models.CASCADE, related_name="class_link", verbose_name=_("context")
    )
    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, related_name="lms_links", verbose_name=_("class")
    )
    roster_synced_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When the roster was last read from the LMS."),
        verbose_name=_("roster synced at"),
    )
    roster_joined = models.PositiveIntegerField(
        default=0,
        help_text=_("Who joined the class at that read."),
        verbose_name=_("roster joined"),
    )
    roster_left = models.PositiveIntegerField(
        default=0, help_text=_("Who left the class at that read."), verbose_name=_("roster left")
    )
    roster_failed_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When the last read failed; empty when it went well."),
        verbose_name=_("roster failed at"),
    )
    roster_error = models.TextField(
        blank=True,
        help_text=_("What the LMS answered to the read that failed."),
        verbose_name=_("roster error"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("LMS course linked to a class")
        verbose_name_plural = _("LMS courses linked to classes")

    def __str__(self) -> str:
        return f"{self.context} → {self.cohort}"

    @property
    def roster_failed(self) -> bool:
        """The last roster read failed (what the class has is what the read before it brought)."""
        return self.roster_failed_at is not None


class LineItem(models.Model):
    """One gradebook column in one LMS course: one per course and lesson (or assignment),
    however many links (copied, re-linked) point at it, so a copy never makes a second column."""

    context = models.ForeignKey(
        LtiContext,
        on_delete=models.CASCADE,
        related_name="parsnip_columns",
        verbose_name=_("context"),
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.PROTECT, related_name="lms_line_items", verbose_name=_("lesson")
    )
    assignment = models.ForeignKey(
        Assignment,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="lms_line_items",
        help_text=_("Graded on the assignment's items only; empty: the whole lesson."),
        verbose_name=_("assignment"),
    )
    url = models.URLField(
        max_length=1000,
        blank=True,
        help_text=_("The column's URL on the LMS."),
        verbose_name=_("url"),
    )
    score_maximum = models.PositiveIntegerField(verbose_name=_("score maximum"))

    class Meta:
        verbose_name = _("line item")
        verbose_name_plural = _("line items")
        constraints = [
            models.UniqueConstraint(
                fields=["context", "lesson"],
                condition=models.Q(assignment__isnull=True),
                name="one_column_per_lms_course_and_lesson",
            ),
            models.UniqueConstraint(
                fields=["context", "assignment"],
                condition=models.Q(assignment__isnull=False),
                name="one_column_per_lms_course_and_assignment",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.assignment or self.lesson} in {self.context}"

    @property
    def resource_id(self) -> str:
        """How Parsnip finds its own column again on the LMS (AGS `resourceId`)."""
        if self.assignment_id:
            return f"parsnip-assignment-{self.assignment_id}"
        return f"parsnip-lesson-{self.lesson_id}"


class LinkedResource(models.Model):
    """What a link placed in an LMS course opens: a lesson, or an assignment (of a lesson)."""

    resource_link = models.OneToOneField(
        LtiResourceLink,
        on_delete=models.CASCADE,
        related_name="parsnip_target",
        verbose_name=_("resource link"),
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.PROTECT, related_name="lms_links", verbose_name=_("lesson")
    )
    assignment = models.ForeignKey(
        Assignment,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="lms_links",
        verbose_name=_("assignment"),
    )
    line_item = models.ForeignKey(
        LineItem,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="links",
        verbose_name=_("line item"),
    )

    class Meta:
        verbose_name = _("linked resource")
        verbose_name_plural = _("linked resources")

    def __str__(self) -> str:
        return f"{self.resource_link} → {self.lesson}"


class ScoreSyncQuerySet(models.QuerySet):
    def due(self, now: datetime | None = None) -> "ScoreSyncQuerySet":
        """Grades to send now: waiting or failed with their retry time passed, and those a
        worker claimed but never finished (it died mid-post)."""
        now = now or timezone.now()
        return self.filter(
            models.Q(
                status__in=[ScoreSync.Status.PENDING, ScoreSync.Status.FAILED],
                next_attempt_at__lte=now,
            )
            | models.Q(
                status=ScoreSync.Status.SENDING, claimed_at__lte=now - ScoreSync.CLAIM_TIMEOUT
            )
        )


class ScoreSync(models.Model):
    """One learner's grade in one gradebook column: what Parsnip has, what the LMS last
    accepted, and where the sending stands."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENDING = "sending", _("Sending")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed, will retry")

    CLAIM_TIMEOUT = timedelta(minutes=2)

    line_item = models.ForeignKey(
        LineItem, on_delete=models.CASCADE, related_name="syncs", verbose_name=_("line item")
    )
    lti_user = models.ForeignKey(
        LtiUser, on_delete=models.CASCADE, related_name="score_syncs", verbose_name=_("lti user")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="score_syncs",
        verbose_name=_("user"),
    )
    score_given = models.PositiveIntegerField(default=0, verbose_name=_("score given"))
    score_maximum = models.PositiveIntegerField(default=0, verbose_name=_("score maximum"))
    scored_at = models.DateTimeField(
        default=timezone.now,
        help_text=_("When Parsnip's score last changed."),
        verbose_name=_("scored at"),
    )
    sent_score = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("The score the LMS last accepted."),
        verbose_name=_("sent score"),
    )
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent at"))
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status")
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text=_("Failed tries since the last success."), verbose_name=_("attempts")
    )
    next_attempt_at = models.DateTimeField(null=True, blank=True, verbose_name=_("next attempt at"))
    claimed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("claimed at"))
    last_response = models.TextField(
        blank=True, help_text=_("What the LMS answered last."), verbose_name=_("last response")
    )

    objects = ScoreSyncQuerySet.as_manager()

    class Meta:
        verbose_name = _("grade sent to an LMS")
        verbose_name_plural = _("grades sent to an LMS")
        constraints = [
            models.UniqueConstraint(
                fields=["line_item", "lti_user"], name="one_grade_per_column_and_learner"
            )
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]

    def __str__(self) -> str:
        return f"{self.user} {self.score_given}/{self.score_maximum} in {self.line_item}: {self.status}"


class LaunchState(models.Model):
    """pylti1p3's short-lived launch data (state, nonce, launch) in the database, so every
    web process sees what another wrote (the embedded default's cache is per process)."""

    key = models.CharField(max_length=255, unique=True, verbose_name=_("key"))
    value = models.JSONField(null=True, verbose_name=_("value"))
    expires_at = models.DateTimeField(db_index=True, verbose_name=_("expires at"))

    class Meta:
        verbose_name = _("launch state")
        verbose_name_plural = _("launch states")

    def __str__(self) -> str:
        return self.key
