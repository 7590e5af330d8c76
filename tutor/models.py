"""What every kind shares of learners' work: runs of code, lesson progress, classes.

Each practice kind's own rows live in its folder (`tutor/practice/<kind>/models.py`:
predictions and drafts of snippets, ordering arrangements and attempts, submissions).

Rows that record learner work point at content with PROTECT: re-importing content
updates snippets and exercises in place, and the importer and the admin refuse to delete
content learners' work points at (course.learner_work names it). Runs keep their code and
output, so a run's snippet may go (SET_NULL).
"""

import hashlib
import os
import socket
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.text import get_text_list
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from course.kinds.snippet import Snippet
from course.models import Lesson
from tutor import run_notices
from tutor.feedback import RaisedException, learner_traceback, raised_by


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


class RunQuerySet(models.QuerySet):
    def final(self) -> "RunQuerySet":
        return self.filter(status__in=Run.FINAL_STATUSES)

    def pending(self) -> "RunQuerySet":
        return self.filter(status__in=Run.PENDING_STATUSES)

    def stale(self, now=None) -> "RunQuerySet":
        """Runs no worker will finish: running past their deadline (their wall-clock limit
        and a margin), or queued too long."""
        now = now or timezone.now()
        return self.filter(
            models.Q(status=Run.Status.RUNNING, deadline_at__lt=now)
            | models.Q(
                status=Run.Status.RUNNING,
                deadline_at__isnull=True,
                started_at__lt=now - Run.RUNNING_GRACE,
            )
            | models.Q(status=Run.Status.QUEUED, created_at__lt=now - Run.QUEUED_GRACE)
        )

    def reveals_of(self, snippet: Snippet) -> "RunQuerySet":
        """Runs that show what this version of the snippet prints: its code, fed its input."""
        return self.filter(
            purpose=Run.Purpose.REVEAL, code_hash=code_digest(snippet.code), stdin=snippet.stdin
        )

    def fail_stale(self, now=None) -> int:
        stale = list(self.stale(now).values_list("pk", flat=True))
        if not stale:  # a read only: no write lock for the common case
            return 0
        return Run.objects.filter(pk__in=stale).stale(now)._fail(stale)

    def fail_lost(self) -> int:
        """Runs that a worker process on this machine held when it died: failed at once,
        without waiting for their deadline (a restarted worker calls this)."""
        host = f"{socket.gethostname()}:"
        held = self.filter(status=Run.Status.RUNNING, worker__startswith=host)
        lost = [
            pk for pk, worker in held.values_list("pk", "worker")
            if not _process_alive(int(worker.rsplit(":", 1)[1]))
        ]
        if not lost:
            return 0
        return Run.objects.filter(pk__in=lost, status=Run.Status.RUNNING)._fail(lost)

    def _fail(self, run_ids: list[int]) -> int:
        failed = self.update(
            status=Run.Status.FAILED,
            stderr=Run.WORKER_LOST_MESSAGE,
            finished_at=timezone.now(),
        )
        for run_id in run_ids:  # wake whoever waits for them
            transaction.on_commit(lambda run_id=run_id: run_notices.announce(run_id))
        return failed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def worker_name() -> str:
    """Who is running a run: this machine and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Run(models.Model):
    """One execution of code in the sandbox, queued and finished by the worker."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting for a worker")
        RUNNING = "running", _("Running")
        OK = "ok", _("Finished")
        ERROR = "error", _("Stopped with an error")
        TIMEOUT = "timeout", _("Timed out")
        MEMORY = "memory", _("Out of memory")
        OUTPUT_LIMIT = "output_limit", _("Output too long")
        KILLED = "killed", _("Killed")
        FAILED = "failed", _("Could not run")

    class Purpose(models.TextChoices):
        RUN = "run", _("Learner's run")
        REVEAL = "reveal", _("Real output of a snippet")
        CHECK = "check", _("Ordering check")
        GRADE = "grade", _("Submission graded by tests")
        CONTENT = "content", _("Content check")
        TRACE = "trace", _("Step-through trace")
        REVIEW = "review", _("Code exercise at review")
        TESTS = "tests", _("Filled-in program graded by tests")

    PENDING_STATUSES = [Status.QUEUED, Status.RUNNING]
    FINAL_STATUSES = [
        Status.OK, Status.ERROR, Status.TIMEOUT, Status.MEMORY,
        Status.OUTPUT_LIMIT, Status.KILLED, Status.FAILED,
    ]
    # A run's deadline is its wall-clock limit plus this margin (sandbox start, saving).
    DEADLINE_MARGIN = timedelta(seconds=5)
    RUNNING_GRACE = timedelta(seconds=90)  # for rows from before deadlines were kept
    QUEUED_GRACE = timedelta(minutes=10)
    WORKER_LOST_MESSAGE = (
        "Parsnip lost this run: the worker stopped before it finished. Please run it again."
    )

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="runs",
        verbose_name=_("user"),
    )
    snippet = models.ForeignKey(
        Snippet,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="runs",
        verbose_name=_("snippet"),
    )
    purpose = models.CharField(
        max_length=10, choices=Purpose.choices, default=Purpose.RUN, verbose_name=_("purpose")
    )
    code = models.TextField(verbose_name=_("code"))
    code_hash = models.CharField(
        max_length=64, db_index=True, editable=False, verbose_name=_("code hash")
    )
    stdin = models.TextField(blank=True, verbose_name=_("stdin"))
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status")
    )
    exit_code = models.IntegerField(null=True, blank=True, verbose_name=_("exit code"))
    stdout = models.TextField(blank=True, verbose_name=_("stdout"))
    stderr = models.TextField(blank=True, verbose_name=_("stderr"))
    truncated = models.BooleanField(default=False, verbose_name=_("truncated"))
    duration_ms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("duration ms"))
    created_at = models.DateTimeField(
        default=timezone.now, db_index=True, verbose_name=_("created at")
    )
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    deadline_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When a running run is overdue: its worker is gone."),
        verbose_name=_("deadline at"),
    )
    worker = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("The machine and process running it."),
        verbose_name=_("worker"),
    )
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    # Run by the learner's own browser (Pyodide) and reported afterwards: a record of what
    # they ran and saw, for the trail and the teacher, never a verdict (docs/sandbox.md).
    in_browser = models.BooleanField(
        default=False,
        help_text=_("Run in the learner's browser, and only reported by it."),
        verbose_name=_("in browser"),
    )

    objects = RunQuerySet.as_manager()

    class Meta:
        verbose_name = _("run")
        verbose_name_plural = _("runs")
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "status", "created_at"]),
            models.Index(fields=["status", "deadline_at"]),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        self.code_hash = code_digest(self.code)
        super().save(*args, **kwargs)

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL_STATUSES

    def shows(self, snippet: Snippet) -> bool:
        """Whether this run ran the snippet's current code with its input."""
        return self.code_hash == code_digest(snippet.code) and self.stdin == snippet.stdin

    @property
    def raised(self) -> RaisedException | None:
        """The exception the program ended with, if it stopped with an error."""
        return raised_by(status=self.status, stderr=self.stderr)

    @property
    def learner_traceback(self) -> str:
        """stderr as a learner reads it: the frames of their own program only."""
        return learner_traceback(self.stderr)

    def wait_until_final(self, timeout: float) -> "Run":
        """Sleep until the worker announces this run, or `timeout` seconds; then the row
        as it is, shown failed if its worker is gone (`as_seen`: a read, no write)."""
        run_notices.wait(
            self.pk, lambda: Run.objects.filter(pk=self.pk).final().exists(), timeout
        )
        self.refresh_from_db()
        return self.as_seen()

    def is_overdue(self, now=None) -> bool:
        """No worker will finish it (the instance's view of `RunQuerySet.stale`)."""
        now = now or timezone.now()
        if self.status == Run.Status.RUNNING:
            if self.deadline_at is not None:
                return self.deadline_at < now
            return self.started_at is not None and self.started_at < now - Run.RUNNING_GRACE
        return self.status == Run.Status.QUEUED and self.created_at < now - Run.QUEUED_GRACE

    def as_seen(self) -> "Run":
        """This run as a learner should see it: one no worker will finish is shown failed
        with the message that says so. Only this instance changes: page views never write;
        the row is failed by the repair sweep (tutor.tasks.repair) or the next task."""
        if not self.is_final and self.is_overdue():
            self.status = Run.Status.FAILED
            self.stderr = Run.WORKER_LOST_MESSAGE
        return self

    def fail_if_stale(self) -> bool:
        """Mark this run failed if its worker is gone; True when it did."""
        changed = Run.objects.filter(pk=self.pk).stale().fail_stale()
        if changed:
            self.refresh_from_db()
        return bool(changed)


class LessonProgressQuerySet(models.QuerySet):
    def of(self, user, lesson) -> "LessonProgressQuerySet":
        """The learner's progress on the lesson (no row until they first do something there)."""
        return self.filter(user=user, lesson=lesson)

    def grid_cells(self, cohort) -> models.QuerySet:
        """The class's progress as its grid and the grid's CSV read it, one tuple per row:
        (user pk, lesson pk, items done, items total, completed)."""
        return self.filter(user__memberships__cohort=cohort).values_list(
            "user_id", "lesson_id", "items_done", "items_total", models.Q(completed_at__isnull=False)
        )

    def by_lesson(self, user, lessons) -> dict[int, "LessonProgress"]:
        """The user's progress on each of these lessons that they started, by lesson pk."""
        rows = self.filter(user=user, lesson__in=[getattr(x, "pk", x) for x in lessons])
        return {row.lesson_id: row for row in rows}


class LessonProgress(models.Model):
    """How far one learner is through one lesson; derived from their predictions and attempts."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lesson_progress",
        verbose_name=_("user"),
    )
    lesson = models.ForeignKey(
        Lesson, on_delete=models.PROTECT, related_name="progress", verbose_name=_("lesson")
    )
    snippets_total = models.PositiveIntegerField(default=0, verbose_name=_("snippets total"))
    snippets_predicted = models.PositiveIntegerField(
        default=0, verbose_name=_("snippets predicted")
    )
    predictions_right = models.PositiveIntegerField(
        default=0,
        help_text=_("First predictions that were right."),
        verbose_name=_("predictions right"),
    )
    exercises_total = models.PositiveIntegerField(default=0, verbose_name=_("exercises total"))
    exercises_solved = models.PositiveIntegerField(default=0, verbose_name=_("exercises solved"))
    runs = models.PositiveIntegerField(default=0, verbose_name=_("runs"))
    # Every practice kind's items on the lesson and those done (tutor.practice), and each
    # kind's own numbers: {"snippet": {"total": 2, "done": 1, "right": 1, ...}, ...}.
    items_total = models.PositiveIntegerField(default=0, verbose_name=_("items total"))
    items_done = models.PositiveIntegerField(default=0, verbose_name=_("items done"))
    counts = models.JSONField(default=dict, blank=True, verbose_name=_("counts"))
    started_at = models.DateTimeField(default=timezone.now, verbose_name=_("started at"))
    updated_at = models.DateTimeField(default=timezone.now, verbose_name=_("updated at"))
    completed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("completed at"))

    objects = LessonProgressQuerySet.as_manager()

    class Meta:
        verbose_name = verbose_name_plural = _("lesson progress")
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="one_progress_per_lesson")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.lesson}: {self.percent}%"

    @property
    def percent(self) -> int:
        if not self.items_total:
            return 0
        return round(100 * self.items_done / self.items_total)

    @property
    def is_complete(self) -> bool:
        return self.completed_at is not None


class CohortQuerySet(models.QuerySet):
    def visible_to(self, user) -> "CohortQuerySet":
        """The classes a teacher may review: those they teach or co-teach; an admin may
        review every class. (A subquery, not a join: no class is listed twice.)"""
        if user.is_superuser:
            return self.all()
        co_taught = Cohort.co_teachers.through.objects.filter(user=user.pk).values("cohort")
        return self.filter(models.Q(teacher=user.pk) | models.Q(pk__in=co_taught))

    def joined_by(self, user) -> "CohortQuerySet":
        return self.filter(memberships__student=user.pk)


class Cohort(models.Model):
    """A teacher's class. Students join with its code. ("Cohort" in the code only, because
    `class` is a Python keyword: people see "class" everywhere, the admin included.)"""

    name = models.CharField(max_length=100, verbose_name=_("name"))
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="cohorts_taught",
        verbose_name=_("teacher"),
    )
    co_teachers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        related_name="cohorts_co_taught",
        blank=True,
        help_text=_(
            "Teachers who teach the class too: they see and do on its pages what its "
            "teacher does (a second instructor of its LMS course is added by their first launch)."
        ),
        verbose_name=_("co teachers"),
    )
    join_code = models.CharField(max_length=12, unique=True, verbose_name=_("join code"))
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text=_(
            "Where the class is: its due dates are shown and typed in this zone when "
            "the viewer's browser does not say its own."
        ),
        verbose_name=_("time zone"),
    )
    language = models.CharField(
        max_length=16,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("The language its students' pages speak unless they choose their own."),
        verbose_name=_("language"),
    )
    review = models.BooleanField(
        _("spaced review"),
        default=False,
        help_text=_(
            "Its students get the Review page: what they practised, brought back when "
            "it is about to be forgotten (tutor/review/)."
        ),
    )
    students = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Membership",
        related_name="cohorts",
        blank=True,
        verbose_name=_("students"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    objects = CohortQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("class")
        verbose_name_plural = _("classes")

    def __str__(self) -> str:
        return self.name

    def is_taught_by(self, user) -> bool:
        """`user` is the class's teacher or one of its co-teachers (an admin is neither)."""
        return self.teacher_id == user.pk or self.co_teachers.filter(pk=user.pk).exists()

    def teachers(self) -> list:
        """The teacher, then the co-teachers by name (prefetch `co_teachers` for a list of classes)."""
        return [self.teacher, *sorted(self.co_teachers.all(), key=lambda u: u.get_username())]

    def taught_by(self) -> str:
        """ "ted", "ted and tia", "ted, tia and tom": who teaches the class, as pages say it."""
        names = [teacher.get_username() for teacher in self.teachers()]
        return get_text_list(names, pgettext("the last of a list of names", "and"))


class AccountSettings(models.Model):
    """What a person chose for their own account (the language their pages speak)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="account_settings",
        verbose_name=_("user"),
    )
    language = models.CharField(
        max_length=16, choices=settings.LANGUAGES, blank=True, verbose_name=_("language")
    )

    class Meta:
        verbose_name = _("account settings")
        verbose_name_plural = _("account settings")

    def __str__(self) -> str:
        return f"{self.user}'s settings"


class Membership(models.Model):
    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("class")
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("student"),
    )
    joined_at = models.DateTimeField(default=timezone.now, verbose_name=_("joined at"))

    class Meta:
        verbose_name = _("student in a class")
        verbose_name_plural = _("students in the class")
        constraints = [
            models.UniqueConstraint(fields=["cohort", "student"], name="one_membership_per_class")
        ]

    def __str__(self) -> str:
        return f"{self.student} in {self.cohort}"
