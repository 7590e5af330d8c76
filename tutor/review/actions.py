"""Making review cards and moving them: every change of schedule is the `fsrs` package's.

Cards are made from what the lesson's actions announce (`tutor.signals.learner_worked`,
received inside the action's transaction, so a card commits or rolls back with the work
that made it); a review is graded by `items`, recorded as a ReviewAnswer and rescheduled
here, in one transaction with the card locked.
"""

from datetime import datetime, timedelta

import fsrs
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from course.models import Block
from tutor.review import items
from tutor.review.models import ReviewAnswer, ReviewCard

# No learning steps: Parsnip's review happens once a day, so the lesson is the card's first
# review and every interval after it is FSRS's in whole days. No fuzzing: a class that did
# a lesson together reviews its items on the same days, which its retention compares.
SCHEDULER = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


class ReviewRefused(Exception):
    """The card cannot be reviewed now; the message says why."""


def learner_worked(sender, *, user, block: Block, **kwargs) -> None:
    """Receives `tutor.signals.learner_worked` (connected in tutor.apps): the learner's first
    finished result on a reviewable item makes its card, rated by that result."""
    reviewer = items.reviewer(block)
    if reviewer is None or not user.is_authenticated:
        return
    # The item's result first: most actions (a move, a run, a wrong try) finish nothing,
    # and cost this one query.
    rating = reviewer.lesson_rating(user=user, block=block)
    if rating is None or ReviewCard.objects.filter(user=user, block=block).exists():
        return
    make_card(user=user, block=block, rating=rating,
              variant=reviewer.lesson_variant(user=user, block=block))


def make_card(
    *, user: AbstractBaseUser, block: Block, rating: fsrs.Rating, variant: dict | None = None,
    now: datetime | None = None,
) -> ReviewCard:
    """The learner's card for the item, scheduled from the lesson's result `rating` (a card
    that exists is left as it is)."""
    now = now or timezone.now()
    scheduled, _log = SCHEDULER.review_card(fsrs.Card(due=now), rating, now)
    card = ReviewCard(user=user, block=block, last_variant=variant or {}, created_at=now)
    card.take(scheduled)
    ReviewCard.objects.bulk_create([card], ignore_conflicts=True)
    return ReviewCard.objects.get(user=user, block=block)


def today_ends(now: datetime | None = None) -> datetime:
    """The end of today where the learner is (the active time zone)."""
    local = timezone.localtime(now or timezone.now())
    return (local + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


def review_card(
    *, card: ReviewCard, graded: items.Graded, now: datetime | None = None, reviews: int | None = None
) -> ReviewAnswer:
    """Record an answer given at review and reschedule the card with FSRS: right -> Good,
    partly right -> Hard, wrong -> Again (items.rating_for). Refused when the card is not
    due today, or was reviewed since it was shown (`reviews`, by default the card's as
    loaded): answered already, or from an old tab."""
    now = now or timezone.now()
    rating = items.rating_for(graded)
    reviews = card.reviews if reviews is None else reviews
    with transaction.atomic():
        locked = ReviewCard.objects.select_for_update().get(pk=card.pk)
        if locked.due >= today_ends(now) or locked.reviews != reviews:
            raise ReviewRefused(_("You have reviewed this one already: it comes back later."))
        before = locked.due
        scheduled, _log = SCHEDULER.review_card(locked.as_fsrs(), rating, now)
        locked.take(scheduled)
        locked.reviews += 1
        if graded.variant:
            locked.last_variant = graded.variant
        locked.save()
        answer = ReviewAnswer.objects.create(
            card=locked, user_id=locked.user_id, block_id=locked.block_id, answer=graded.answer,
            right=graded.right, score=graded.score, rating=rating.value, variant=graded.variant,
            expected=graded.expected, due_before=before, due_after=locked.due, created_at=now,
        )
    card.refresh_from_db()
    return answer
