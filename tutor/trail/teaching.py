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
