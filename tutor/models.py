"""What learners do: runs of code, predictions, ordering attempts, and progress.

Rows that record learner work point at content with PROTECT: re-importing content
updates snippets and exercises in place, and the importer and the admin refuse to delete
content learners' work points at (course.learner_work names it). Runs keep their code and
output, so a run's snippet may go (SET_NULL).
"""

import hashlib
import os
import socket
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from course.kinds.ordering import OrderingExercise, OrderingLine
from course.kinds.snippet import Snippet
from course.models import Lesson
from tutor import run_notices
from tutor.exercise_lines import DOWN, LEAVE_OUT, UP, USE, ExerciseLines, starting_order
from tutor.feedback import RaisedException, learner_traceback, raised_by


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


class RunQuerySet(models.QuerySet):
    def final(self) -> "RunQuerySet":
        return self.filter(status__in=Run.FINAL_STATUSES)

    def pending(self) -> "RunQuerySet":
        return self.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING])

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
        QUEUED = "queued", "Waiting for a worker"
        RUNNING = "running", "Running"
        OK = "ok", "Finished"
        ERROR = "error", "Stopped with an error"
        TIMEOUT = "timeout", "Timed out"
        MEMORY = "memory", "Out of memory"
        OUTPUT_LIMIT = "output_limit", "Output too long"
        KILLED = "killed", "Killed"
        FAILED = "failed", "Could not run"

    class Purpose(models.TextChoices):
        RUN = "run", "Learner's run"
        REVEAL = "reveal", "Real output of a snippet"
        CHECK = "check", "Ordering check"
        GRADE = "grade", "Submission graded by tests"
        CONTENT = "content", "Content check"
        TRACE = "trace", "Step-through trace"

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
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="runs"
    )
    snippet = models.ForeignKey(
        Snippet, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    purpose = models.CharField(max_length=10, choices=Purpose.choices, default=Purpose.RUN)
    code = models.TextField()
    code_hash = models.CharField(max_length=64, db_index=True, editable=False)
    stdin = models.TextField(blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    exit_code = models.IntegerField(null=True, blank=True)
    stdout = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    truncated = models.BooleanField(default=False)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(
        null=True, blank=True, help_text="When a running run is overdue: its worker is gone."
    )
    worker = models.CharField(
        max_length=200, blank=True, help_text="The machine and process running it."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
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

    @property
    def queue_ms(self) -> int | None:
        if self.started_at is None:
            return None
        return int((self.started_at - self.created_at).total_seconds() * 1000)

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


class PredictionQuerySet(models.QuerySet):
    def pending(self) -> "PredictionQuerySet":
        """Typed predictions still waiting for the real output to get their verdict."""
        return self.filter(verdict=Prediction.Verdict.PENDING)


class Prediction(models.Model):
    """What a learner said a snippet would print, before seeing the real output."""

    class Verdict(models.TextChoices):
        RIGHT = "right", "Right"
        WRONG = "wrong", "Not quite"
        SELF_RIGHT = "self_right", "Said out loud: got it"
        SELF_WRONG = "self_wrong", "Said out loud: didn't"
        SELF_UNCHECKED = "self_unchecked", "Said out loud"
        PENDING = "pending", "Waiting for the real output"

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


class OrderingRefused(Exception):
    """The learner cannot do that to this exercise now; the message says why."""


def _pinned(
    order: Sequence[str], unused: Sequence[str], fixed: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Lines fixed by Help stay at the top of the answer, in the solution's order."""
    fixed_set = set(fixed)
    return (
        list(fixed) + [key for key in order if key not in fixed_set],
        [key for key in unused if key not in fixed_set],
    )


class OrderingArrangementQuerySet(models.QuerySet):
    def of(self, user, exercise) -> "OrderingArrangementQuerySet":
        """The learner's arrangement of the exercise (none until they first touch it);
        either may be given as a row or its pk."""
        return self.filter(user=user, exercise=exercise)


class OrderingArrangement(models.Model):
    """Where a learner's lines currently are in one exercise (saved after every move)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="arrangements"
    )
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.PROTECT, related_name="arrangements"
    )
    order = models.JSONField(default=list, help_text="Line keys in the answer area, top to bottom.")
    unused = models.JSONField(default=list, help_text="Line keys in the 'not used' area.")
    fixed = models.JSONField(default=list, help_text="Line keys put in place by 'Help me'.")
    removed = models.JSONField(default=list, help_text="Distractor keys removed by 'Help me'.")
    checks = models.PositiveIntegerField(default=0)
    wrong_checks = models.PositiveIntegerField(default=0)
    help_used = models.PositiveIntegerField(default=0)
    solved_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OrderingArrangementQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "exercise"], name="one_arrangement_per_exercise")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}"

    def refuse_if_solved(self) -> None:
        if self.solved_at is not None:
            raise OrderingRefused(
                "You have solved this one already. Choose “Practise again” to start over."
            )

    def fit_to_lines(self, lines: ExerciseLines) -> bool:
        """Bring the saved arrangement up to date with the exercise's lines, which may have
        been edited since the learner last worked on it. True when anything changed (in
        memory; the caller saves).

        A key no longer in the exercise goes. A new line joins the end of the answer, even a
        distractor: putting it in "Not used" would tell the learner that it does not belong.
        Lines fixed by Help stay fixed only while they still start the solution; a line Help
        took away stays away only while it is still a distractor.
        """
        distractors = set(lines.distractors)
        removed = [key for key in dict.fromkeys(self.removed) if key in distractors]
        fixed = []
        for key, right in zip(self.fixed, lines.correct, strict=False):
            if key != right:
                break
            fixed.append(key)
        away = set(removed)
        order = [key for key in dict.fromkeys(self.order) if key in lines.texts and key not in away]
        unused = [
            key
            for key in dict.fromkeys(self.unused)
            if key in lines.texts and key not in away and key not in order
        ]
        placed = away | set(order) | set(unused) | set(fixed)
        if len(placed) < len(lines.texts):
            # In the learner's own shuffle, so several new lines do not arrive in the solution's order.
            shuffle = starting_order(user_id=self.user_id, lines=lines)
            order += [key for key in shuffle if key not in placed]
        order, unused = _pinned(order, unused, fixed)
        if (order, unused, fixed, removed) == (self.order, self.unused, self.fixed, self.removed):
            return False
        self.order, self.unused, self.fixed, self.removed = order, unused, fixed, removed
        return True

    def arrange(self, order: Sequence[str], unused: Sequence[str]) -> None:
        """Save where the learner put the lines; those fixed by Help stay on top."""
        self.order, self.unused = _pinned(order, unused, self.fixed)
        self.save(update_fields=["order", "unused", "updated_at"])

    def move(self, key: str, direction: str) -> None:
        """One step for one line, saved: up or down in its area, out to "not used", or back in."""
        if key in self.removed:
            raise OrderingRefused("Help took that line away: it does not belong in the answer.")
        if key in self.fixed:
            raise OrderingRefused("That line is fixed in place by Help and cannot move.")
        order, unused = list(self.order), list(self.unused)
        area = order if key in order else unused
        top = len(self.fixed) if area is order else 0
        i = area.index(key)
        if direction == UP and i > top:
            area[i - 1], area[i] = area[i], area[i - 1]
        elif direction == DOWN and i < len(area) - 1:
            area[i + 1], area[i] = area[i], area[i + 1]
        elif direction == LEAVE_OUT and area is order:
            order.remove(key)
            unused.append(key)
        elif direction == USE and area is unused:
            unused.remove(key)
            order.append(key)
        self.arrange(order, unused)

    def give_help(self, lines: ExerciseLines) -> tuple[str, str]:
        """Take away one line that does not belong or, when none is left, fix the next line
        of the solution at the top of the answer; saved, and counted. Returns what Help did
        (an OrderingHelp.Given) and to which line."""
        left = [key for key in lines.distractors if key not in self.removed]
        order, unused = list(self.order), list(self.unused)
        if left:
            # The one doing harm first: a distractor still in the answer.
            key = next((key for key in order if key in left), left[0])
            order = [k for k in order if k != key]
            unused = [k for k in unused if k != key]
            self.removed = [*self.removed, key]
            given = OrderingHelp.Given.REMOVED
        elif len(self.fixed) < len(lines.correct):
            key = lines.correct[len(self.fixed)]
            self.fixed = [*self.fixed, key]
            given = OrderingHelp.Given.FIXED
        else:
            raise OrderingRefused("Every line is already in its place: press Check.")
        self.order, self.unused = _pinned(order, unused, self.fixed)
        self.save(update_fields=["order", "unused", "removed", "fixed", "updated_at"])
        OrderingArrangement.objects.filter(pk=self.pk).update(help_used=F("help_used") + 1)
        return given, key

    def start_over(self, lines: ExerciseLines) -> None:
        """Back to the learner's starting shuffle, with a fresh count of checks and help."""
        self.order = starting_order(user_id=self.user_id, lines=lines)
        self.unused, self.fixed, self.removed = [], [], []
        self.checks = self.wrong_checks = self.help_used = 0
        self.solved_at = None
        self.save()

    def count_check(self, verdict: str, *, checks: int = 0) -> None:
        """Count a check's verdict in the row itself (F() expressions: two requests at once
        lose nothing): a wrong one towards Help, a solving one as the time it was solved."""
        changes: dict = {"updated_at": timezone.now()}
        if checks:
            changes["checks"] = F("checks") + checks
        if verdict == OrderingAttempt.Verdict.WRONG:
            changes["wrong_checks"] = F("wrong_checks") + 1
        elif verdict == OrderingAttempt.Verdict.SOLVED:
            changes["solved_at"] = timezone.now()
        OrderingArrangement.objects.filter(pk=self.pk).update(**changes)


class OrderingAttemptQuerySet(models.QuerySet):
    def pending(self) -> "OrderingAttemptQuerySet":
        """Checks of output-graded exercises still waiting for their verdict."""
        return self.filter(verdict=OrderingAttempt.Verdict.PENDING)

    def ready_to_settle(self) -> "OrderingAttemptQuerySet":
        """Pending checks whose program has finished: only their verdict is missing."""
        return self.pending().filter(run__status__in=Run.FINAL_STATUSES)

    def learners_by_line(self, lines: list[OrderingLine]) -> dict[OrderingLine, set[int]]:
        """The learners whose attempts name each of `lines` (attempts keep line keys, so no
        foreign key protects a line)."""
        by_key = {(line.exercise_id, line.key): line for line in lines}
        learners: dict[OrderingLine, set[int]] = {}
        attempts = self.filter(exercise_id__in={line.exercise_id for line in lines})
        for user_id, exercise_id, order in attempts.values_list("user_id", "exercise_id", "order"):
            for key in order:
                line = by_key.get((exercise_id, key))
                if line is not None:
                    learners.setdefault(line, set()).add(user_id)
        return learners


def ordering_lines_in_attempts(rows: list) -> list[tuple[OrderingLine, str, set[int]]]:
    """For course.learner_work: the doomed ordering lines learners' attempts name."""
    lines = [row for row in rows if isinstance(row, OrderingLine)]
    if not lines:
        return []
    what = str(OrderingAttempt._meta.verbose_name_plural)
    found = OrderingAttempt.objects.learners_by_line(lines)
    return [(line, what, user_ids) for line, user_ids in found.items()]


class OrderingAttempt(models.Model):
    """One press of Check on an ordering exercise."""

    class Verdict(models.TextChoices):
        SOLVED = "solved", "Solved"
        WRONG = "wrong", "Not yet"
        PENDING = "pending", "Waiting for the program's output"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ordering_attempts"
    )
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.PROTECT, related_name="attempts"
    )
    order = models.JSONField(help_text="The submitted line keys, top to bottom.")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    lines_in_place = models.PositiveIntegerField(default=0)
    help_used = models.PositiveIntegerField(default=0)
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    objects = OrderingAttemptQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}: {self.verdict}"


class OrderingHelp(models.Model):
    """One use of "Help me" on an ordering exercise. A fact for the teacher: "Start again"
    resets the learner's board (OrderingArrangement), never these rows."""

    class Given(models.TextChoices):
        REMOVED = "removed", "Took away a line that does not belong"
        FIXED = "fixed", "Fixed a line in its place"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ordering_help"
    )
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.PROTECT, related_name="help_given"
    )
    given = models.CharField(max_length=10, choices=Given.choices)
    line_key = models.SlugField(help_text="The line Help took away or fixed.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["exercise", "user"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise}: {self.get_given_display()}"


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
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lesson_progress"
    )
    lesson = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="progress")
    snippets_total = models.PositiveIntegerField(default=0)
    snippets_predicted = models.PositiveIntegerField(default=0)
    predictions_right = models.PositiveIntegerField(default=0, help_text="First predictions that were right.")
    exercises_total = models.PositiveIntegerField(default=0)
    exercises_solved = models.PositiveIntegerField(default=0)
    runs = models.PositiveIntegerField(default=0)
    # Every practice kind's items on the lesson and those done (tutor.practice), and each
    # kind's own numbers: {"snippet": {"total": 2, "done": 1, "right": 1, ...}, ...}.
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    objects = LessonProgressQuerySet.as_manager()

    class Meta:
        verbose_name = verbose_name_plural = "lesson progress"
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
        """The classes a teacher may review: their own; an admin may review every class."""
        if user.is_superuser:
            return self.all()
        return self.filter(teacher=user.pk)

    def joined_by(self, user) -> "CohortQuerySet":
        return self.filter(memberships__student=user.pk)


class Cohort(models.Model):
    """A teacher's class. Students join with its code. ("Cohort" in the code only, because
    `class` is a Python keyword: people see "class" everywhere, the admin included.)"""

    name = models.CharField(max_length=100)
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="cohorts_taught"
    )
    join_code = models.CharField(max_length=12, unique=True)
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text="Where the class is: its due dates are shown and typed in this zone when "
        "the viewer's browser does not say its own.",
    )
    students = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="cohorts", blank=True
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = CohortQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = "class"
        verbose_name_plural = "classes"

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, related_name="memberships", verbose_name="class"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "student in a class"
        verbose_name_plural = "students in the class"
        constraints = [
            models.UniqueConstraint(fields=["cohort", "student"], name="one_membership_per_class")
        ]

    def __str__(self) -> str:
        return f"{self.student} in {self.cohort}"
