"""A lesson, or some of its exercises, set for a class with a due date; and a later due
date for one student of that class."""

from datetime import datetime

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from course.models import Block, Lesson
from tutor.models import Cohort


class AssignmentQuerySet(models.QuerySet):
    def of_class(self, cohort) -> "AssignmentQuerySet":
        return self.filter(cohort=cohort).order_by("due_at", "pk")

    def for_student(self, user) -> "AssignmentQuerySet":
        """The assignments of every class the user is in."""
        return self.filter(cohort__memberships__student=user.pk)

    def opened(self, now: datetime | None = None) -> "AssignmentQuerySet":
        return self.filter(opens_at__lte=now or timezone.now())

    def closed(self) -> "AssignmentQuerySet":
        return self.filter(closed_at__isnull=False)

    def quizzes_running(self, now: datetime | None = None) -> "AssignmentQuerySet":
        """Quizzes opened, not closed, and not yet past their class's last due date (the
        assignment's or its latest extension's): their questions belong to the quiz."""
        now = now or timezone.now()
        extended = Extension.objects.filter(assignment=models.OuterRef("pk"), due_at__gte=now)
        return self.filter(quiz=True, closed_at__isnull=True, opens_at__lte=now).filter(
            models.Q(due_at__gte=now) | models.Exists(extended)
        )

    def covering(self, block: Block) -> "AssignmentQuerySet":
        """Assignments that include this block: its whole lesson, or the block by name (a
        drawn quiz's pool names blocks of other lessons than the one it is listed on)."""
        return self.filter(
            models.Q(lesson=block.lesson_id, whole_lesson=True) | models.Q(blocks=block.pk)
        ).distinct()


class Assignment(models.Model):
    """A lesson (or some of its practice blocks) a teacher set for a class, open from
    `opens_at`, due at `due_at`. Late work is accepted and marked late; once the teacher
    closes it (`closed_at`), its students can no longer submit work on its items."""

    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, related_name="assignments", verbose_name="class"
    )
    # PROTECT, as every row of tutor that points at content: removing a lesson from the
    # content (a re-import, the admin) is refused while a class has it assigned.
    lesson = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="assignments")
    whole_lesson = models.BooleanField(
        default=True, help_text="Every practice block of the lesson; otherwise only `blocks`."
    )
    blocks = models.ManyToManyField(
        Block,
        blank=True,
        related_name="assignments",
        help_text="The exercises set, when not the whole lesson.",
    )
    opens_at = models.DateTimeField()
    due_at = models.DateTimeField()
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="Closed by the teacher: no more work accepted."
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Closed-book (tutor/assignments/closed_book.py): from opening to due, its students reach
    # only its items, in one session each, from the allowed addresses if any are listed.
    closed_book = models.BooleanField(default=False)
    allowed_addresses = models.TextField(
        blank=True,
        help_text="Closed-book only: addresses or networks (CIDR), one a line; empty: any.",
    )

    # tutor/assignments/hidden_tests.py: once a student's due date has passed, the hidden
    # tests of the assignment's code exercises show them in full, as solving one does.
    hidden_tests_after_due = models.BooleanField(
        "show hidden tests once due",
        default=False,
        help_text="After a student's due date (their extension's, if any), the hidden tests of "
        "its code exercises show in full: what each checks and what it expected.",
    )

    # A quiz (tutor/quizzes/): its items are questions, answered in attempts of their own.
    quiz = models.BooleanField("give its questions as a quiz", default=False)
    attempts_allowed = models.PositiveSmallIntegerField(default=1)
    time_limit = models.PositiveIntegerField(
        "time limit (minutes)", null=True, blank=True, help_text="Empty: no time limit."
    )
    shuffle_questions = models.BooleanField(default=True)
    # A quiz drawn from the course's questions on some topics: `blocks` holds the pool (the
    # course's quiz questions on `draw_topics` when it was set, from any of its lessons; the
    # quiz is listed on `lesson`'s page), and each attempt draws `draw_count` of them.
    draw_count = models.PositiveSmallIntegerField(
        "questions drawn per attempt", null=True, blank=True,
        help_text="Quiz only: each attempt draws this many of the pool's questions; empty: the lesson's.",
    )
    draw_topics = models.JSONField(default=list, blank=True, help_text="The topics the pool was drawn from.")

    class Feedback(models.TextChoices):
        AT_ONCE = "at-once", gettext_lazy("At once: each question checked once, when answered")
        AFTER_SUBMITTING = "after-submitting", gettext_lazy("After submitting the attempt")
        AFTER_DUE = "after-due", gettext_lazy("After the due date")

    feedback = models.CharField(
        max_length=20, choices=Feedback.choices, default=Feedback.AFTER_SUBMITTING
    )

    # tutor/practice/hints/: each rung of a hint ladder a student takes on one of its items
    # (a hint, or a piece of the solution) costs this share of that item's score.
    hint_cost = models.PositiveSmallIntegerField(
        "hint cost (%)",
        default=0,
        validators=[MaxValueValidator(100)],
        help_text="Each hint (or piece of the solution) a student uses on an item costs this "
        "percentage of the item's score; 0: hints are free.",
    )

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        app_label = "tutor"
        ordering = ["due_at", "pk"]
        indexes = [
            models.Index(fields=["cohort", "due_at"]),
            models.Index(fields=["lesson", "closed_at"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(due_at__gt=models.F("opens_at")),
                name="assignment_due_after_opening",
            ),
            models.CheckConstraint(
                condition=models.Q(attempts_allowed__gte=1), name="assignment_attempts_from_1"
            ),
            models.CheckConstraint(
                condition=models.Q(draw_count__isnull=True) | models.Q(draw_count__gte=1, quiz=True),
                name="assignment_draws_from_1_in_a_quiz",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lesson} for {self.cohort}, due {self.due_at:%Y-%m-%d %H:%M}"

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    @property
    def is_drawn(self) -> bool:
        """A quiz whose attempts each draw `draw_count` questions from a pool (`blocks`)."""
        return self.draw_count is not None

    @property
    def covers(self) -> str:
        """What it sets, in a few words (the pages that list assignments say it)."""
        if self.is_drawn:
            return ngettext(
                "a quiz of %(n)d question drawn by topic", "a quiz of %(n)d questions drawn by topic", self.draw_count
            ) % {"n": self.draw_count}
        return _("the whole lesson") if self.whole_lesson else _("some of its exercises")


class Extension(models.Model):
    """A later due date for one student of the assignment's class."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="extensions")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignment_extensions"
    )
    due_at = models.DateTimeField()
    granted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        app_label = "tutor"
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "student"], name="one_extension_per_student"
            )
        ]

    def __str__(self) -> str:
        return f"{self.student} on {self.assignment}: due {self.due_at:%Y-%m-%d %H:%M}"


class ClosedBookSeat(models.Model):
    """A student in a closed-book assignment: the one session it is open in, and what was
    refused to them while it ran (the teacher sees both)."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="seats")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="closed_book_seats"
    )
    session_key = models.CharField(max_length=40)
    address = models.GenericIPAddressField(null=True, blank=True)
    seated_at = models.DateTimeField(default=timezone.now)
    refusals = models.PositiveIntegerField(default=0)
    last_refused = models.CharField(max_length=200, blank=True, help_text="The address asked for.")
    refused_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "tutor"
        constraints = [
            models.UniqueConstraint(fields=["assignment", "student"], name="one_seat_per_student")
        ]

    def __str__(self) -> str:
        return f"{self.student} in {self.assignment}"
