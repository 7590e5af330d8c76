"""What the trail adds to the pages about one learner: per item, active minutes, runs,
submissions and the largest paste (the student's timeline for their teacher; My progress
for themselves). One query."""

from django.contrib.auth.models import AbstractBaseUser

from course.models import Lesson
from tutor.trail.models import Trail


def trails_of(user: AbstractBaseUser) -> list[Trail]:
    return list(
        Trail.objects.filter(user=user, block__lesson__in=Lesson.objects.published())
        .select_related("block__lesson")
        .order_by("block__lesson__course__position", "block__lesson__position", "block__position")
    )


def class_trails(cohort, lesson) -> list[dict]:
    """The lesson's code items, each with its students' figures (one query): for the
    lesson's page of the class."""
    rows = (
        Trail.objects.filter(user__memberships__cohort=cohort, block__lesson=lesson)
        .select_related("block", "user")
        .order_by("block__position", "block__pk", "user__username")
    )
    items: dict[int, dict] = {}
    for trail in rows:
        items.setdefault(trail.block_id, {"block": trail.block, "trails": []})["trails"].append(trail)
    return list(items.values())
