"""Which cards a learner reviews today: those due before today ends where they are, the
most overdue first, as many as fit in about ten minutes (counting the reviews they have
done today); and whether review is open to them at all."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone
from django.utils.translation import gettext as _

from tutor.assignments.closing import quiz_holding
from tutor.models import Cohort
from tutor.review.actions import today_ends
from tutor.review.items import REVIEWERS
from tutor.review.models import ReviewAnswer, ReviewCard

DAILY_MINUTES = 10
# The most cards looked at to fill the day (a learner back after months has hundreds due).
LOOKED_AT = 60


def open_to(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Review is for a learner who studies on their own (in no class), or is in a class
    whose teacher turned review on. One query."""
    if not user.is_authenticated:
        return False
    classes = list(Cohort.objects.joined_by(user).values_list("review", flat=True))
    return not classes or any(classes)


@dataclass
class Today:
    cards: list[ReviewCard] = field(default_factory=list)
    done: int = 0  # reviews answered today
    minutes_left: int = DAILY_MINUTES
    due: int = 0  # every card due today, whether it fits today or not

    @property
    def count(self) -> int:
        return len(self.cards)

    @property
    def later(self) -> int:
        """Due today, but past today's ten minutes: they come first tomorrow."""
        return max(0, self.due - len(self.cards))


def today(user: AbstractBaseUser, now: datetime | None = None) -> Today:
    """Today's review for `user`: three queries (five while a quiz of theirs runs)."""
    ends = today_ends(now)
    answered = ReviewAnswer.objects.filter(user=user.pk, created_at__gte=ends - timedelta(days=1))
    kinds = list(answered.values_list("block__kind", flat=True))
    used = sum(REVIEWERS[kind].minutes for kind in kinds if kind in REVIEWERS)
    due = ReviewCard.objects.of(user).due_by(ends).filter(block__kind__in=list(REVIEWERS))
    found = Today(done=len(kinds), minutes_left=max(0, DAILY_MINUTES - used), due=due.count())
    left = found.minutes_left
    looked_at = list(due.select_related("block__lesson__course")[:LOOKED_AT])
    # A question a quiz of theirs holds now is answered in the quiz: it waits until then.
    held = quiz_holding(user, [card.block for card in looked_at])
    for card in looked_at:
        if card.block_id in held:
            continue
        minutes = REVIEWERS[card.block.kind].minutes
        if minutes > left:
            break
        left -= minutes
        found.cards.append(card)
    return found


def count_due(user: AbstractBaseUser | AnonymousUser) -> int:
    """How many to review today, for the home page (0 when review is not open to them)."""
    if not open_to(user):
        return 0
    return today(user).count


def is_due(card: ReviewCard, now: datetime | None = None) -> bool:
    return card.due < today_ends(now or timezone.now())


def held_by_quiz(card: ReviewCard) -> str | None:
    """Why this card cannot be reviewed now (a running quiz of the learner's class asks its
    question: reviewing it would show its answer first), or None."""
    quiz = quiz_holding(card.user, [card.block]).get(card.block_id)
    if quiz is None:
        return None
    return _("This question is part of your quiz “%(title)s” now: it comes back to review once the quiz is over.") % {
        "title": quiz.lesson.title
    }
