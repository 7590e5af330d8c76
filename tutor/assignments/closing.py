"""The one check every practice kind's submitting POST goes through (predict, run, check,
submit): a student of a class whose teacher closed an assignment covering the block gets
a refusal instead. Late work is otherwise always accepted (and marked late)."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from course.models import Block
from tutor.assignments.models import Assignment


def closed_to(user: AbstractBaseUser | AnonymousUser, block: Block) -> str | None:
    """Why `user` may no longer send work on `block` (their teacher closed an assignment
    that covers it), or None (one query). The view refuses with this message, 403."""
    if not user.is_authenticated:
        return None
    closed = (
        Assignment.objects.closed()
        .covering(block)
        .for_student(user)
        .select_related("cohort")
        .order_by("closed_at", "pk")
        .first()
    )
    if closed is None:
        return None
    return (
        f"Closed by your teacher: the assignment for “{closed.cohort.name}” no longer takes "
        "work, so this cannot be sent. Ask your teacher if you need more time."
    )
