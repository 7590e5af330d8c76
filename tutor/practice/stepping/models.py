"""Stepping through a program: the trace of a program (shared, computed once per code and
input, like a snippet's reveal) and each learner's stepping through one.

A `Trace` keeps the tracer's whole result (tutor.sandbox.tracing.Trace.to_dict()) in one
row: its summary and an index as JSON, the steps as text, one step's JSON a line, so a
step page reads one row and parses only the steps it shows. A `Stepping` is a learner's:
which trace, where it came from (a snippet, their own edited code, a failed test), where
it opens, and the furthest step they reached (recorded by POST, never by a page view).
"""

import hashlib

from django.conf import settings
from django.db import models
from django.db.models.functions import Substr
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.kinds.code_exercise import CodeExercise
from course.kinds.snippet import Snippet
from tutor.models import Run


def trace_key(code: str, stdin: str) -> str:
    """One trace per program and input: the digest of both."""
    digest = hashlib.sha256(code.encode("utf-8", "surrogatepass"))
    digest.update(b"\0stdin\0")
    digest.update(stdin.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class Trace(models.Model):
    """A program's trace, computed by the worker in the sandbox (a Run of purpose TRACE)."""

    key = models.CharField(max_length=64, unique=True, editable=False, verbose_name=_("key"))
    code = models.TextField(verbose_name=_("code"))
    stdin = models.TextField(blank=True, verbose_name=_("stdin"))
    run = models.OneToOneField(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="trace",
        verbose_name=_("run"),
    )
    # tutor.sandbox.tracing.Trace.to_dict() without its steps ({} until the worker has
    # traced it), an index of the steps, and the steps' JSON, one a line: a step page
    # parses the two steps it shows, not the whole trace (steps.Steps).
    data = models.JSONField(default=dict, blank=True, verbose_name=_("data"))
    steps_index = models.JSONField(default=dict, blank=True, verbose_name=_("steps index"))
    steps_text = models.TextField(blank=True, verbose_name=_("steps text"))
    steps_total = models.PositiveIntegerField(default=0, verbose_name=_("steps total"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("trace")
        verbose_name_plural = _("traces")
        app_label = "tutor"

    def __str__(self) -> str:
        return f"Trace {self.pk} ({self.steps_total} steps)"

    def save(self, *args, **kwargs) -> None:
        self.key = trace_key(self.code, self.stdin)
        super().save(*args, **kwargs)

    def keep(self, data: dict) -> None:
        """Keep the tracer's dict (in memory; the caller saves)."""
        from tutor.practice.stepping.steps import Steps

        self.data, self.steps_index, self.steps_text = Steps.pack(data)
        self.steps_total = len(data.get("steps", []))

    def steps(self):
        """The trace, read a step at a time (tutor.practice.stepping.steps.Steps). When the
        row was read without `steps_text` (deferred), the steps asked for are read from the
        database, only their part of the column (one query)."""
        from tutor.practice.stepping.steps import Steps

        if "steps_text" not in self.get_deferred_fields():
            return Steps(self.data, self.steps_index, self.steps_text)

        def fetch(start: int, length: int) -> str:
            part = Substr("steps_text", start + 1, length)  # SQL counts from 1
            return Trace.objects.filter(pk=self.pk).values_list(part, flat=True).get()

        return Steps(self.data, self.steps_index, None, fetch=fetch)

    @property
    def is_ready(self) -> bool:
        return bool(self.data)

    @property
    def failed(self) -> bool:
        """The worker finished (or lost) the run without a trace: it may be started again."""
        if self.is_ready:
            return False
        return self.run is None or self.run.as_seen().is_final


class Stepping(models.Model):
    """One learner stepping through one trace."""

    class Origin(models.TextChoices):
        SNIPPET = "snippet", _("A snippet")
        OWN = "own", _("Their own version of a snippet")
        TEST = "test", _("A test their code failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="steppings",
        verbose_name=_("user"),
    )
    trace = models.ForeignKey(
        Trace, on_delete=models.CASCADE, related_name="steppings", verbose_name=_("trace")
    )
    origin = models.CharField(max_length=10, choices=Origin.choices, verbose_name=_("origin"))
    snippet = models.ForeignKey(
        Snippet,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="steppings",
        verbose_name=_("snippet"),
    )
    exercise = models.ForeignKey(
        CodeExercise,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="steppings",
        verbose_name=_("exercise"),
    )
    test_name = models.CharField(max_length=200, blank=True, verbose_name=_("test name"))
    # Where it opens: the first step of the program's line `from_line` on (a check's
    # first line), or the first step whose output differs from `prediction`.
    from_line = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("from line"))
    prediction = models.TextField(blank=True, verbose_name=_("prediction"))
    furthest_step = models.PositiveIntegerField(
        default=0, help_text=_("1 is the first step."), verbose_name=_("furthest step")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    updated_at = models.DateTimeField(default=timezone.now, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("stepping")
        verbose_name_plural = _("steppings")
        app_label = "tutor"
        ordering = ["-updated_at", "-pk"]
        indexes = [models.Index(fields=["user", "updated_at"])]

    def __str__(self) -> str:
        return f"{self.user} stepping through {self.title}"

    @property
    def block(self):
        """The lesson's block it came from (a snippet's or an exercise's), if it is still there."""
        place = self.exercise if self.exercise_id else self.snippet
        return place.block if place is not None else None

    @property
    def title(self) -> str:
        """What they stepped through, in words."""
        if self.origin == self.Origin.TEST and self.exercise is not None:
            return f"{self.exercise.title}: test “{self.test_name}”"
        if self.snippet is not None:
            block = self.snippet.block
            what = block.title or self.snippet.caption or block.key
            return f"their version of “{what}”" if self.origin == self.Origin.OWN else f"“{what}”"
        return "a program"
