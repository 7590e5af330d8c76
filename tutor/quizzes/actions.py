"""The writes of a quiz: start an attempt, save or check an answer, submit the attempt; and
the sweeps that submit attempts whose time is over or whose assignment was closed. Each is
atomic and locks the attempt's row, so two tabs or a double click do one thing once.
The views validate what a form can (tutor/quizzes/views.py); these check the rest."""

import random
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from course.models import Block
from tutor import signals
from tutor.actions.progress import learner_worked, start_lesson
from tutor.assignments.models import Assignment
from tutor.practice.questions import QUIZ_KINDS
from tutor.practice.questions.actions import answer_words, grade_answer
from tutor.practice.questions.answers import read_answer
from tutor.practice.questions.grading import Graded
from tutor.practice.questions.models import QuestionAnswer
from tutor.quizzes.models import QuizAnswer, QuizAttempt
from tutor.quizzes.rules import time_over


class QuizRefused(Exception):
    """The student cannot do this now; the message says why, in their words."""


def questions_of(assignment: Assignment) -> list[Block]:
    """The quiz's questions in the course's order: the lesson's, those the teacher chose, or
    (a drawn quiz) its pool, from any lesson of the course."""
    if assignment.is_drawn:
        blocks = Block.objects.filter(assignments=assignment, kind__in=QUIZ_KINDS)
    else:
        blocks = Block.objects.filter(lesson=assignment.lesson_id, kind__in=QUIZ_KINDS)
        if not assignment.whole_lesson:
            blocks = blocks.filter(assignments=assignment)
    return list(blocks.select_related("lesson__course").order_by("lesson__position", "position", "pk"))


def question_order(block_ids: list[int], *, assignment: Assignment, student_id: int, number: int) -> list[int]:
    """The questions in the attempt's order: the lesson's, or (shuffle_questions) a shuffle
    seeded by the assignment, the student and the attempt, kept on the attempt. A drawn quiz
    first draws its `draw_count` from the pool, seeded the same way: each attempt draws anew,
    and once kept on the attempt a reload or a second tab never draws again."""
    order = list(block_ids)
    seeded = random.Random(f"quiz:{assignment.pk}:{student_id}:{number}")
    if assignment.is_drawn:
        drawn = set(seeded.sample(order, min(assignment.draw_count, len(order))))
        order = [pk for pk in order if pk in drawn]
    if assignment.shuffle_questions:
        seeded.shuffle(order)
    return order


def start_attempt(*, assignment: Assignment, student: AbstractBaseUser, now: datetime | None = None) -> QuizAttempt:
    """The student's open attempt, or a new one if none is open and attempts are left. Two
    starts at once (two tabs) make one attempt: the second finds the first's row."""
    now = now or timezone.now()
    if assignment.is_closed:
        raise QuizRefused(_("Closed by your teacher: this quiz no longer takes answers."))
    if now < assignment.opens_at:
        raise QuizRefused(_("This quiz is not open yet."))
    for _try in range(3):
        # One read: the open attempt and the count must come from the same moment.
        existing = list(QuizAttempt.objects.filter(assignment=assignment, student=student.pk))
        opened = next((attempt for attempt in existing if not attempt.is_submitted), None)
        if opened is not None:
            if not time_over(opened, now):
                return opened
            submit_attempt(attempt=opened, now=now)
            continue
        number = len(existing) + 1
        if number > assignment.attempts_allowed:
            raise QuizRefused(
                _("You have used every attempt at this quiz (%(n)d).") % {"n": assignment.attempts_allowed}
            )
        blocks = [block.pk for block in questions_of(assignment)]
        if not blocks:
            raise QuizRefused(_("This quiz has no questions. Tell your teacher."))
        ends = now + timedelta(minutes=assignment.time_limit) if assignment.time_limit else None
        try:
            with transaction.atomic():
                return QuizAttempt.objects.create(
                    assignment=assignment, student=student, number=number, started_at=now, ends_at=ends,
                    order=question_order(blocks, assignment=assignment, student_id=student.pk, number=number),
                )
        except IntegrityError:  # another tab started it between our look and our insert
            continue
    raise QuizRefused(_("The quiz could not be started. Please try again."))


def _locked(attempt: QuizAttempt) -> QuizAttempt:
    return QuizAttempt.objects.select_for_update().select_related("assignment").get(pk=attempt.pk)


def _still_open(attempt: QuizAttempt, now: datetime) -> None:
    if attempt.is_submitted:
        raise QuizRefused(_("This attempt is submitted: it takes no more answers."))
    if attempt.assignment.is_closed:
        raise QuizRefused(_("Closed by your teacher: this quiz no longer takes answers."))
    if time_over(attempt, now):
        raise QuizRefused(_("Time is over: the answers you saved were submitted."))


def save_answer(
    *, attempt: QuizAttempt, block: Block, data, now: datetime | None = None, wait_seconds: float = 0,
    check: bool = False,
) -> QuizAnswer:
    """Read (answers.read_answer: raises Malformed), grade and keep the answer to one question
    of an open attempt, replacing the one saved before. `check` (feedback "at once"): the
    answer is final, and shown graded. Time over: the attempt is submitted as saved, and
    QuizRefused says so."""
    return save_answers(attempt=attempt, given=[(block, data)], now=now, wait_seconds=wait_seconds,
                        check=check)[0]


def save_answers(
    *, attempt: QuizAttempt, given: list, now: datetime | None = None, wait_seconds: float = 0,
    check: bool = False,
) -> list[QuizAnswer]:
    """`save_answer` for several (block, data) at once (the attempt's one form): each read and
    graded first (Malformed names none kept), then all kept in one transaction."""
    now = now or timezone.now()
    graded_answers = []
    for block, data in given:
        if block.pk not in attempt.order:
            raise QuizRefused(_("That question is not part of this attempt."))
        values = block.kind_spec.values_of(block)
        user = attempt.student
        answer = read_answer(block.kind, values, data, user_id=user.pk, block_id=block.pk)
        graded, chosen, expected = grade_answer(user=user, block=block, values=values, answer=answer,
                                                wait_seconds=wait_seconds)
        graded_answers.append((block, answer, graded, chosen, expected))
    kept = []
    with transaction.atomic():
        locked = _locked(attempt)
        over = not locked.is_submitted and time_over(locked, now)
        if over:  # submitted as saved (committed), then refused below
            _submit(locked, now)
        else:
            _still_open(locked, now)
            saved_before = {
                row.block_id: row for row in QuizAnswer.objects.filter(attempt=locked, block__in=[b for b, *_ in graded_answers])
            }
            for block, answer, graded, chosen, expected in graded_answers:
                saved = saved_before.get(block.pk)
                if saved is not None and saved.checked_at is not None:
                    raise QuizRefused(_("You have checked this question: its answer is final."))
                fields = {"answer": answer, "score": graded.score, "right": graded.right, "variant": chosen,
                          "expected": expected, "saved_at": now, "checked_at": now if check else None}
                if saved is None:
                    saved = QuizAnswer.objects.create(attempt=locked, block=block, **fields)
                else:
                    for name, value in fields.items():
                        setattr(saved, name, value)
                    saved.save(update_fields=[*fields])
                kept.append(saved)
                if check:
                    _record(locked, [saved], now, check=True)
    if over:
        raise QuizRefused(_("Time is over: the answers you saved were submitted."))
    return kept


def _record(attempt: QuizAttempt, answers: list[QuizAnswer], now: datetime, *, check: bool = False) -> None:
    """The graded answers as QuestionAnswers of the attempt: item analysis, the groups of wrong
    answers and the timeline see them as they see practice (a check tells the live view too)."""
    QuestionAnswer.objects.bulk_create([
        QuestionAnswer(
            user_id=attempt.student_id, block=saved.block, answer=saved.answer, score=saved.score,
            right=saved.right, variant=saved.variant, expected=saved.expected, try_number=attempt.number,
            attempt=attempt, created_at=now,
        )
        for saved in answers
    ])
    if check:
        saved = answers[0]
        words = answer_words(saved.block.kind_spec.label.lower(), Graded(saved.score, saved.right))
        learner_worked(user=attempt.student, block=saved.block, what=_("%(what)s (quiz)") % {"what": words},
                       failed=not saved.right, attempt=True)


def _submit(attempt: QuizAttempt, now: datetime) -> QuizAttempt:
    """Submit a locked, open attempt: its score is the mean of its questions' (an unanswered
    one scores 0)."""
    answers = list(attempt.answers.select_related("block__lesson"))
    attempt.submitted_at = now
    attempt.score = round(sum(a.score for a in answers) / len(attempt.order), 6) if attempt.order else 0.0
    attempt.save(update_fields=["submitted_at", "score"])
    _record(attempt, [a for a in answers if a.checked_at is None and a.block_id in attempt.order], now)
    # The live view is told once; the lesson is started (its progress row: the LMS's score needs it).
    first = Block.objects.filter(pk__in=attempt.order).select_related("lesson").first()
    if first is not None:
        what = _("submitted the quiz — %(percent)d%%") % {"percent": round(100 * attempt.score)}
        learner_worked(user=attempt.student, block=first, what=what, failed=attempt.score < 1, attempt=True)
    if first is None or first.lesson_id != attempt.assignment.lesson_id:
        # A drawn quiz's questions may all be of other lessons: the one it is listed on is started.
        start_lesson(user=attempt.student, lesson=attempt.assignment.lesson)
    assignment_id, student_id = attempt.assignment_id, attempt.student_id
    transaction.on_commit(
        lambda: signals.quiz_submitted.send(sender=QuizAttempt, assignment_id=assignment_id, student_id=student_id)
    )
    return attempt


def submit_attempt(*, attempt: QuizAttempt, now: datetime | None = None) -> QuizAttempt:
    """Submit the attempt (once: submitting again, from another tab, changes nothing)."""
    with transaction.atomic():
        locked = _locked(attempt)
        if locked.is_submitted:
            return locked
        return _submit(locked, now or timezone.now())


def submit_overdue(*, now: datetime | None = None) -> int:
    """Submit every open attempt whose time is over (the scheduled task); how many."""
    now = now or timezone.now()
    overdue = list(QuizAttempt.objects.overdue(now).values_list("pk", flat=True))
    done = 0
    for pk in overdue:
        with transaction.atomic():
            locked = QuizAttempt.objects.select_for_update().filter(pk=pk, submitted_at__isnull=True).first()
            if locked is not None:
                _submit(locked, now)
                done += 1
    return done


def submit_open_attempts(*, assignment: Assignment, now: datetime | None = None) -> int:
    """The teacher closed the quiz: every attempt still open is submitted as saved."""
    now = now or timezone.now()
    done = 0
    for pk in assignment.quiz_attempts.open().values_list("pk", flat=True):
        with transaction.atomic():
            locked = QuizAttempt.objects.select_for_update().filter(pk=pk, submitted_at__isnull=True).first()
            if locked is not None:
                _submit(locked, now)
                done += 1
    return done
