"""A teacher's comment on a group of the same wrong answer, for one class."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block
from tutor.models import Cohort

MAX_COMMENT_CHARS = 2_000


class ClusterCommentQuerySet(models.QuerySet):
    def seen_by(self, user) -> "ClusterCommentQuerySet":
        """The comments a student sees: those on a class they are in."""
        return self.filter(cohort__memberships__student=user.pk)


class ClusterComment(models.Model):
    """One comment on the group `key` of wrong answers on `block`, for the students of
    `cohort`: whoever is in that group when their page renders sees it, now or later."""

    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, related_name="cluster_comments", verbose_name=_("class")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="cluster_comments",
        verbose_name=_("author"),
    )
    block = models.ForeignKey(
        Block, on_delete=models.CASCADE, related_name="cluster_comments", verbose_name=_("block")
    )
    key = models.CharField(
        max_length=32,
        help_text=_("The group's normalised answer (tutor.clusters.groups.group_key)."),
        verbose_name=_("key"),
    )
    summary = models.CharField(
        max_length=300,
        help_text=_("What the group got wrong, when the comment was written."),
        verbose_name=_("summary"),
    )
    text = models.TextField(max_length=MAX_COMMENT_CHARS, verbose_name=_("text"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    updated_at = models.DateTimeField(default=timezone.now, verbose_name=_("updated at"))

    objects = ClusterCommentQuerySet.as_manager()

    class Meta:
        app_label = "tutor"
        verbose_name = _("comment on a group of answers")
        verbose_name_plural = _("comments on groups of answers")
        constraints = [
            models.UniqueConstraint(
                fields=["cohort", "block", "key"], name="one_comment_per_group_and_class"
            )
        ]

    def __str__(self) -> str:
        return f"{self.author} on {self.block}: {self.summary}"


class ClusterCommentRead(models.Model):
    """When a student last saw a comment: it is new to them again once the teacher edits it."""

    comment = models.ForeignKey(
        ClusterComment, on_delete=models.CASCADE, related_name="reads", verbose_name=_("comment")
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="comments_read",
        verbose_name=_("student"),
    )
    read_at = models.DateTimeField(default=timezone.now, verbose_name=_("read at"))

    class Meta:
        app_label = "tutor"
        verbose_name = _("comment read by a student")
        verbose_name_plural = _("comments read by students")
        constraints = [
            models.UniqueConstraint(fields=["comment", "student"], name="one_read_per_comment_and_student")
        ]

    def __str__(self) -> str:
        return f"{self.student} read {self.comment_id} at {self.read_at:%Y-%m-%d %H:%M}"
