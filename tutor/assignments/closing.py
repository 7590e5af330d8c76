"""The one check every practice kind's submitting POST goes through (predict, run, check,
submit): a student of a class whose teacher closed an assignment covering the block gets
a refusal instead. Late work is otherwise always accepted (and marked late)."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q
from django.utils.translation import gettext

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
        gettext(
            "Closed by your teacher: the assignment for “%(class)s” no longer takes "
            "work, so this cannot be sent. Ask your teacher if you need more time."
        )
        % {"class": closed.cohort.name}
    )


def quiz_holding(user: AbstractBaseUser | AnonymousUser, blocks) -> dict[int, Assignment]:
    """Which of these question blocks a quiz of the user's classes holds now (block pk ->
    the quiz assignment): while the quiz runs, its questions are answered in it, not on the
    lesson page (else the page would grade them first). Two queries at most."""
    if not user.is_authenticated or not blocks:
        return {}
    lessons = {block.lesson_id for block in blocks}
    pks = [block.pk for block in blocks]
    # A whole lesson's quiz holds its questions; a quiz of chosen questions, or drawn from a
    # pool (its blocks, from any lesson of the course), holds those it names.
    running = list(
        Assignment.objects.for_student(user)
        .quizzes_running()
        .filter(Q(lesson__in=lessons, whole_lesson=True) | Q(whole_lesson=False, blocks__in=pks))
        .select_related("lesson")
        .distinct()
    )
    if not running:
        return {}
    held: dict[int, Assignment] = {}
    named = [a for a in running if not a.whole_lesson]
    chosen = set()
    if named:
        chosen = set(
            Assignment.blocks.through.objects.filter(assignment__in=named, block__in=pks).values_list(
                "assignment_id", "block_id"
            )
        )
    for block in blocks:
        for quiz in running:
            whole = quiz.whole_lesson and quiz.lesson_id == block.lesson_id
            if whole or (quiz.pk, block.pk) in chosen:
                held.setdefault(block.pk, quiz)
    return held
