"""The writes of assignments: set one, change it, close or reopen it, delete it, and grant
or withdraw a student's extension. The views validate first (tutor/assignments/forms.py);
these check again what a form cannot see (the student is in the class) and write
atomically."""

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from course.models import Block, Lesson
from tutor.assignments.models import Assignment, Extension
from tutor.models import Cohort
from tutor.practice.questions.topics import questions_on
from tutor.teaching import name_of


class AssignmentRefused(Exception):
    """The change cannot be made; the message says why, in the teacher's words."""


def _check_dates(opens_at: datetime, due_at: datetime) -> None:
    if due_at <= opens_at:
        raise AssignmentRefused(gettext("The due date must be after the opening date."))


def _check_blocks(lesson: Lesson, blocks: list[Block]) -> None:
    if any(block.lesson_id != lesson.pk for block in blocks):
        raise AssignmentRefused(gettext("Choose exercises of the assigned lesson only."))


QUIZ_SETTINGS = (
    "quiz", "attempts_allowed", "time_limit", "shuffle_questions", "feedback", "draw_count", "draw_topics",
)


def _quiz_settings(given: dict) -> dict:
    """A quiz's settings (tutor/quizzes/): those given, the model's defaults for the rest."""
    unknown = set(given) - set(QUIZ_SETTINGS)
    if unknown:
        raise TypeError(f"unexpected arguments: {', '.join(sorted(unknown))}")
    defaults = {name: Assignment._meta.get_field(name).get_default() for name in QUIZ_SETTINGS}
    chosen = defaults | given
    if chosen["attempts_allowed"] < 1:
        raise AssignmentRefused(gettext("Allow at least one attempt."))
    if not chosen["quiz"] or not chosen["draw_count"]:
        chosen["draw_count"], chosen["draw_topics"] = None, []
    return chosen


def _items(lesson: Lesson, blocks: list[Block], settings: dict) -> list[Block]:
    """The blocks the assignment names: those chosen, or (a drawn quiz) its pool, the
    course's quiz questions on its topics, as they are now."""
    if settings["draw_count"] is None:
        _check_blocks(lesson, blocks)
        return blocks
    if not settings["draw_topics"]:
        raise AssignmentRefused(gettext("Choose at least one topic to draw the questions from."))
    pool = questions_on(lesson.course, settings["draw_topics"])
    if settings["draw_count"] > len(pool):
        raise AssignmentRefused(
            ngettext(
                "The topics chosen offer %(n)s question: draw at most that many, or choose more topics.",
                "The topics chosen offer %(n)s questions: draw at most that many, or choose more topics.",
                len(pool),
            )
            % {"n": len(pool)}
        )
    return pool


@transaction.atomic
def create_assignment(
    *,
    cohort: Cohort,
    lesson: Lesson,
    blocks: list[Block],
    opens_at: datetime,
    due_at: datetime,
    closed_book: bool = False,
    allowed_addresses: str = "",
    hidden_tests_after_due: bool = False,
    hint_cost: int = 0,
    **quiz,
) -> Assignment:
    """Set `lesson` for the class: all its exercises when `blocks` is empty, else those; or
    (`draw_count`, `draw_topics`) a quiz drawn from its course's questions on those topics,
    listed on the lesson's page."""
    _check_dates(opens_at, due_at)
    settings = _quiz_settings(quiz)
    blocks = _items(lesson, blocks, settings)
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        whole_lesson=not blocks,
        opens_at=opens_at,
        due_at=due_at,
        closed_book=closed_book,
        allowed_addresses=allowed_addresses,
        hidden_tests_after_due=hidden_tests_after_due,
        **settings,
        hint_cost=hint_cost,
    )
    assignment.blocks.set(blocks)
    return assignment


@transaction.atomic
def update_assignment(
    *,
    assignment: Assignment,
    lesson: Lesson,
    blocks: list[Block],
    opens_at: datetime,
    due_at: datetime,
    closed_book: bool = False,
    allowed_addresses: str = "",
    hidden_tests_after_due: bool = False,
    hint_cost: int = 0,
    **quiz,
) -> Assignment:
    _check_dates(opens_at, due_at)
    settings = _quiz_settings(quiz)
    blocks = _items(lesson, blocks, settings)
    assignment.lesson = lesson
    assignment.whole_lesson = not blocks
    assignment.opens_at, assignment.due_at = opens_at, due_at
    assignment.closed_book, assignment.allowed_addresses = closed_book, allowed_addresses
    assignment.hidden_tests_after_due = hidden_tests_after_due
    for name, value in settings.items():
        setattr(assignment, name, value)
    assignment.hint_cost = hint_cost
    assignment.save(
        update_fields=[
            *settings,
            "lesson",
            "whole_lesson",
            "opens_at",
            "due_at",
            "closed_book",
            "allowed_addresses",
            "hidden_tests_after_due",
            "hint_cost",
        ]
    )
    assignment.blocks.set(blocks)
    return assignment


def set_closed(*, assignment: Assignment, closed: bool) -> Assignment:
    """Close the assignment (its students can no longer submit work on its items) or
    reopen it. Closing twice keeps the first time it was closed."""
    if closed:
        Assignment.objects.filter(pk=assignment.pk, closed_at__isnull=True).update(
            closed_at=timezone.now()
        )
        if assignment.quiz:  # attempts still open are submitted with what they saved
            from tutor.quizzes.actions import submit_open_attempts

            submit_open_attempts(assignment=assignment)
    else:
        Assignment.objects.filter(pk=assignment.pk).update(closed_at=None)
    assignment.refresh_from_db(fields=["closed_at"])
    return assignment


def delete_assignment(*, assignment: Assignment) -> None:
    """Gone, with its extensions; the students' work stays theirs."""
    assignment.delete()


def grant_extension(
    *, assignment: Assignment, student: AbstractBaseUser, due_at: datetime
) -> Extension:
    """A later due date for one student of the class; granting again moves it. Two grants
    at once leave one extension, with one of the two dates."""
    if not assignment.cohort.memberships.filter(student=student.pk).exists():
        raise AssignmentRefused(
            gettext("%(student)s is not in “%(class)s”.")
            % {"student": name_of(student), "class": assignment.cohort.name}
        )
    if due_at <= assignment.due_at:
        raise AssignmentRefused(gettext("An extension must be after the assignment’s due date."))
    for _ in range(2):
        try:
            with transaction.atomic():
                extension, _ = Extension.objects.update_or_create(
                    assignment=assignment,
                    student=student,
                    defaults={"due_at": due_at, "granted_at": timezone.now()},
                )
                return extension
        except IntegrityError:  # another grant inserted it between our look and our insert
            continue
    raise AssignmentRefused(gettext("The extension could not be saved. Please try again."))


def withdraw_extension(*, assignment: Assignment, student: AbstractBaseUser) -> None:
    deleted, _ = Extension.objects.filter(assignment=assignment, student=student.pk).delete()
    if not deleted:
        raise AssignmentRefused(
            gettext("%(student)s has no extension on this assignment.") % {"student": name_of(student)}
        )
