"""Hidden tests shown once due: a teacher may choose that, after a student's due date on an
assignment (their extension's, if they have one), the hidden tests of the assignment's code
exercises show that student what each checks and what it expected, as solving the exercise
does. Before it, and on every other item, a hidden test says only the kind of failure
(docs/grading.md, "Threat model")."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from course.models import Block
from tutor.assignments.models import Assignment, Extension


def shown_after_due(user: AbstractBaseUser | AnonymousUser, blocks: list[Block]) -> set[int]:
    """The pks of those `blocks` whose hidden tests `user` may now read in full: an
    assignment of one of their classes covers the block, shows its hidden tests once due,
    and is due for them (one query)."""
    if not user.is_authenticated or not blocks:
        return set()
    own_due = Extension.objects.filter(assignment=OuterRef("pk"), student=user.pk).values("due_at")
    due = (
        Assignment.objects.for_student(user)
        .filter(hidden_tests_after_due=True, lesson__in={block.lesson_id for block in blocks})
        .annotate(due_for_them=Coalesce(Subquery(own_due[:1]), F("due_at")))
        .filter(due_for_them__lte=timezone.now())
        .values_list("lesson_id", "whole_lesson", "blocks")
    )
    shown = set()
    for lesson, whole_lesson, block in due:
        shown |= {
            b.pk for b in blocks if b.lesson_id == lesson and (whole_lesson or b.pk == block)
        }
    return shown
