"""A learner's trail on one code block, kept in chunks (one per batch the editor sends or
moment recorded), with the whole text every few chunks so a replay seeks without going
back to the start."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from course.models import Block
from tutor.trail import encoding

CHECKPOINT_EVERY = 16  # chunks: a step is rebuilt from at most this many chunks


class Trail(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="trails",
        verbose_name=_("user"),
    )
    # PROTECT, as every row of learner work: a content edit never deletes a trail.
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="trails", verbose_name=_("block")
    )
    text = models.TextField(
        help_text=_("The code as it is now (after every step)."), verbose_name=_("text")
    )
    steps = models.PositiveIntegerField(default=0, verbose_name=_("steps"))
    chunks = models.PositiveIntegerField(default=0, verbose_name=_("chunks"))
    started_at = models.DateTimeField(default=timezone.now, verbose_name=_("started at"))
    updated_at = models.DateTimeField(
        default=timezone.now, db_index=True, verbose_name=_("updated at")
    )
    active_seconds = models.PositiveIntegerField(default=0, verbose_name=_("active seconds"))
    runs = models.PositiveIntegerField(default=0, verbose_name=_("runs"))
    submissions = models.PositiveIntegerField(default=0, verbose_name=_("submissions"))
    largest_paste = models.PositiveIntegerField(
        default=0, help_text=_("Characters."), verbose_name=_("largest paste")
    )
    # The steps to jump to: [[step, kind, characters]] for runs, checks, submissions, pastes
    # ([first step, "p", characters, last step] for a paste in pieces: tutor.trail.pastes).
    marks = models.JSONField(default=list, blank=True, verbose_name=_("marks"))
    # What judging pastes remembers between batches (tutor.trail.pastes.Memory): the small
    # insertions of the last seconds, digests of the large deletions of the last minutes.
    recent = models.JSONField(default=dict, blank=True, verbose_name=_("recent"))
    refused = models.PositiveIntegerField(
        default=0,
        help_text=_("Batches of edits refused: more than a student may record an hour."),
        verbose_name=_("refused"),
    )

    class Meta:
        app_label = "tutor"
        verbose_name = _("editing trail")
        verbose_name_plural = _("editing trails")
        constraints = [
            models.UniqueConstraint(fields=["user", "block"], name="one_trail_per_block")
        ]

    def __str__(self) -> str:
        return f"{self.user}'s trail on {self.block}"

    def paste_at(self, number: int) -> list | None:
        """The paste mark covering step `number`, if any."""
        for mark in self.marks:
            if mark[1] == encoding.PASTE and mark[0] <= number <= (
                mark[3] if len(mark) > 3 else mark[0]
            ):
                return mark
        return None

    @property
    def active_minutes(self) -> int:
        return round(self.active_seconds / 60)

    @property
    def active_time(self) -> str:
        """The active minutes in words: some typing is never "0 minutes"."""
        if 0 < self.active_seconds < 30:
            return gettext("under a minute")
        return ngettext("%(n)d minute", "%(n)d minutes", self.active_minutes) % {
            "n": self.active_minutes
        }


class TrailChunk(models.Model):
    trail = models.ForeignKey(
        Trail, on_delete=models.CASCADE, related_name="chunk_rows", verbose_name=_("trail")
    )
    seq = models.PositiveIntegerField(verbose_name=_("seq"))
    first_step = models.PositiveIntegerField(
        help_text=_("Steps before this chunk."), verbose_name=_("first step")
    )
    at = models.DateTimeField(help_text=_("When its first step happened."), verbose_name=_("at"))
    data = models.TextField(
        help_text=_("Its steps (tutor.trail.encoding)."), verbose_name=_("data")
    )
    # None: no checkpoint here ("" is a checkpoint: the code was empty).
    checkpoint = models.TextField(  # noqa: DJ001
        null=True,
        blank=True,
        help_text=_("The text before its steps."),
        verbose_name=_("checkpoint"),
    )
    # With a checkpoint: where pasted text sits in it ([[start, end], ...], tutor.trail.pastes).
    checkpoint_spans = models.JSONField(null=True, blank=True, verbose_name=_("checkpoint spans"))

    class Meta:
        verbose_name = _("trail chunk")
        verbose_name_plural = _("trail chunks")
        app_label = "tutor"
        constraints = [models.UniqueConstraint(fields=["trail", "seq"], name="one_chunk_per_place")]
        indexes = [models.Index(fields=["trail", "first_step"])]

    def __str__(self) -> str:
        return f"Chunk {self.seq} of {self.trail}"

    def steps(self) -> list[encoding.Step]:
        return encoding.decode(self.data)
