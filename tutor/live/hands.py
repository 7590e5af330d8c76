"""The learner's side of raising a hand: what the lesson page shows of it (tutor.views.lessons
and the hand's own view read it here)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Subquery

from course.models import Block, Lesson
from tutor.live.models import LessonActivity, RaisedHand
from tutor.models import Membership
from tutor.practice import item_title, practice_blocks

HAND_POLL_SECONDS = 10  # only while the hand is up: a cleared hand shows within this


def hand_state(
    user: AbstractBaseUser | AnonymousUser, lesson: Lesson, *, items: list[Block] | None = None
) -> dict | None:
    """For the lesson page: whether the learner is in a class (only then is there a
    teacher to raise a hand to), when their hand went up and about which item, and the
    items it may be about (`items`: the lesson's practice blocks, when the page has them
    already), the one they last worked on first. One query, and one for the items when
    not given; none for a reader who is not logged in."""
    if not user.is_authenticated:
        return None
    hand = RaisedHand.objects.filter(user=OuterRef("pk"), lesson=lesson)
    in_class, raised_at, about, last = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .annotate(
            in_class=Exists(Membership.objects.filter(student=OuterRef("pk"))),
            raised_at=Subquery(hand.values("raised_at")[:1]),
            about=Subquery(hand.values("block")[:1]),
            last=Subquery(
                LessonActivity.objects.filter(user=OuterRef("pk"), lesson=lesson).values("block")[:1]
            ),
        )
        .values_list("in_class", "raised_at", "about", "last")
        .get()
    )
    if items is None:
        items = practice_blocks(lesson) if in_class else []
    titles = [(block.pk, item_title(block)) for block in items]
    return {
        "in_class": in_class,
        "raised_at": raised_at,
        "about": dict(titles).get(about, ""),
        "items": titles,
        "chosen": about if raised_at else last,
        "lesson": lesson,
        "poll_seconds": HAND_POLL_SECONDS,
    }
