"""Review cards (one per learner and item, scheduled by FSRS) and the answers given at review."""

from datetime import datetime

import fsrs
from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block, Lesson
from tutor.models import Run


class ReviewCardQuerySet(models.QuerySet):
    def of(self, user) -> "ReviewCardQuerySet":
        return self.filter(user=user.pk)

    def due_by(self, moment: datetime) -> "ReviewCardQuerySet":
        """Cards due before `moment`, the most overdue first, on lessons still published."""
        published = Lesson.objects.published()
        return self.filter(due__lt=moment, block__lesson__in=published).order_by("due", "pk")


class ReviewCard(models.Model):
    """Where one learner stands with one item in FSRS's terms: its memory's stability and
    difficulty, and when it is due again. Only `tutor.review.actions` changes it, always
    through the `fsrs` package's Scheduler."""

    class State(models.IntegerChoices):
        LEARNING = fsrs.State.Learning.value, _("Learning")
        REVIEW = fsrs.State.Review.value, _("Review")
        RELEARNING = fsrs.State.Relearning.value, _("Relearning")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_cards",
        verbose_name=_("user"),
    )
    # PROTECT, as every row of tutor that points at content: a learner's review history is
    # theirs, and removing the item (a re-import, the admin) is refused while it exists.
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="review_cards", verbose_name=_("block")
    )
    state = models.PositiveSmallIntegerField(
        choices=State.choices, default=State.LEARNING, verbose_name=_("state")
    )
    step = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("step"))
    stability = models.FloatField(null=True, blank=True, verbose_name=_("stability"))
    difficulty = models.FloatField(null=True, blank=True, verbose_name=_("difficulty"))
    due = models.DateTimeField(db_index=True, verbose_name=_("due"))
    last_review = models.DateTimeField(null=True, blank=True, verbose_name=_("last review"))
    reviews = models.PositiveIntegerField(
        default=0,
        help_text=_("Times reviewed on the Review page (the lesson's result not counted)."),
        verbose_name=_("reviews"),
    )
    # A question with variants: the variant answered last, so the next review asks another.
    last_variant = models.JSONField(default=dict, blank=True, verbose_name=_("last variant"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    objects = ReviewCardQuerySet.as_manager()

    class Meta:
        verbose_name = _("review card")
        verbose_name_plural = _("review cards")
        constraints = [
            models.UniqueConstraint(fields=["user", "block"], name="one_review_card_per_item")
        ]
        indexes = [models.Index(fields=["user", "due"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.block}: due {self.due:%Y-%m-%d}"

    def as_fsrs(self) -> fsrs.Card:
        return fsrs.Card(
            card_id=self.pk or 0, state=fsrs.State(self.state), step=self.step,
            stability=self.stability, difficulty=self.difficulty, due=self.due,
            last_review=self.last_review,
        )

    def take(self, card: fsrs.Card) -> None:
        """Keep what the scheduler computed (not saved here)."""
        self.state, self.step = card.state.value, card.step
        self.stability, self.difficulty = card.stability, card.difficulty
        self.due, self.last_review = card.due, card.last_review


class ReviewAnswer(models.Model):
    """One answer given on the Review page, graded as in the lesson. Rows of their own, not
    the lesson's rows with a flag: progress, item analysis, groups of wrong answers,
    assignments' scores and grade passback read the lesson's rows, and none of them can
    count a review by mistake."""

    class Rating(models.IntegerChoices):
        AGAIN = fsrs.Rating.Again.value, _("Again")
        HARD = fsrs.Rating.Hard.value, _("Hard")
        GOOD = fsrs.Rating.Good.value, _("Good")
        EASY = fsrs.Rating.Easy.value, _("Easy")

    card = models.ForeignKey(
        ReviewCard, on_delete=models.CASCADE, related_name="answers", verbose_name=_("card")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_answers",
        verbose_name=_("user"),
    )
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="review_answers", verbose_name=_("block")
    )
    # What was sent, as the item's kind reads it (a prediction's text, a question's answer,
    # an order of line keys).
    answer = models.JSONField(verbose_name=_("answer"))
    right = models.BooleanField(verbose_name=_("right"))
    score = models.FloatField(default=0, verbose_name=_("score"))
    rating = models.PositiveSmallIntegerField(choices=Rating.choices, verbose_name=_("rating"))
    variant = models.JSONField(default=dict, blank=True, verbose_name=_("variant"))
    expected = models.FloatField(
        null=True, blank=True, verbose_name=_("expected")
    )  # a variant's answer
    due_before = models.DateTimeField(verbose_name=_("due before"))
    due_after = models.DateTimeField(verbose_name=_("due after"))
    created_at = models.DateTimeField(
        default=timezone.now, db_index=True, verbose_name=_("created at")
    )

    class Meta:
        verbose_name = _("answer at review")
        verbose_name_plural = _("answers at review")
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["user", "created_at"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.block}: {self.get_rating_display()}"


class CodeReview(models.Model):
    """Code submitted for a code exercise at review, while the worker tests it with the
    exercise's tests (a Run of purpose REVIEW, tutor.review.runner): its results, and the
    answer recorded once they are in. Not a Submission: a lesson's progress and an
    assignment's score count submissions."""

    card = models.ForeignKey(
        ReviewCard, on_delete=models.CASCADE, related_name="code_reviews", verbose_name=_("card")
    )
    run = models.OneToOneField(
        Run, on_delete=models.CASCADE, related_name="code_review", verbose_name=_("run")
    )
    reviews = models.PositiveIntegerField(
        help_text=_("The card's reviews when it was sent."), verbose_name=_("reviews")
    )
    results = models.JSONField(default=dict, blank=True, verbose_name=_("results"))
    answer = models.OneToOneField(
        ReviewAnswer,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="code_review",
        verbose_name=_("answer"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("code exercise at review")
        verbose_name_plural = _("code exercises at review")

    def __str__(self) -> str:
        return f"{self.card}: run {self.run_id}"
