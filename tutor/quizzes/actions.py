"""The writes of a quiz: start an attempt, save or check an answer, submit the attempt; and
the sweeps that submit attempts whose time is over or whose assignment was closed. Each is
atomic and locks the attempt's row, so two tabs or a double click do one thing once.
The views validate what a form can (tutor/quizzes/views.py); these check the rest."""

import random
import time
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from course.models import Block
from tutor import signals
from tutor.actions.progress import learner_worked, start_lesson
from tutor.assignments.models import Assignment
from tutor.practice.questions import QUESTION_KINDS, code_runs
from tutor.practice.questions.actions import answer_words, grade_answer
from tutor.practice.questions.answers import read_answer
from tutor.practice.questions.grading import Graded
from tutor.practice.questions.models import QuestionAnswer
from tutor.practice.questions.variants import VariantNotReady
from tutor.quizzes.models import QuizAnswer, QuizAttempt
from tutor.quizzes.rules import time_over


class QuizRefused(Exception):
    """The student cannot do this now; the message says why, in their words."""


def questions_of(assignment: Assignment) -> list[Block]:
    """The quiz's questions in the course's order: the lesson's, those the teacher chose, or
    (a drawn quiz) its pool, from any lesson of the course."""
    if assignment.is_drawn:
        blocks = Block.objects.filter(assignments=assignment, kind__in=QUESTION_KINDS)
    else:
        blocks = Block.objects.filter(lesson=assignment.lesson_id, kind__in=QUESTION_KINDS)
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
    graded first (Malformed names none kept), then all kept in one transaction. A
    fill-in-the-code answer whose program the worker still runs is kept ungraded (score 0)
    with its run, and graded when the run is back (settle_answer)."""
    now = now or timezone.now()
    graded_answers = []
    for block, data in given:
        if block.pk not in attempt.order:
            raise QuizRefused(_("That question is not part of this attempt."))
        values = block.kind_spec.values_of(block)
        user = attempt.student
        answer = read_answer(block.kind, values, data, user_id=user.pk, block_id=block.pk)
        graded_answers.append((block, *_graded(user, block, values, answer, wait_seconds=wait_seconds)))
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
            for block, answer, graded, chosen, expected, run in graded_answers:
                saved = saved_before.get(block.pk)
                if saved is not None and saved.checked_at is not None:
                    raise QuizRefused(_("You have checked this question: its answer is final."))
                fields = {"answer": answer, "score": graded.score, "right": graded.right, "variant": chosen,
                          "expected": expected, "saved_at": now, "checked_at": now if check else None,
                          "run": run}
                if saved is None:
                    saved = QuizAnswer.objects.create(attempt=locked, block=block, **fields)
                else:
                    for name, value in fields.items():
                        setattr(saved, name, value)
                    saved.save(update_fields=[*fields])
                kept.append(saved)
                if check and not saved.running:  # a running one is recorded once graded
                    _record(locked, [saved], now, check=True)
    if over:
        raise QuizRefused(_("Time is over: the answers you saved were submitted."))
    return kept


def _graded(user, block: Block, values: dict, answer, *, wait_seconds: float) -> tuple:
    """(the answer as kept, its grade, variant, variant's answer, and the run it waits for)."""
    if block.kind == "code_blanks":
        try:
            answer = code_runs.with_output(user=user, values=values, fills=answer, wait_seconds=wait_seconds)
        except code_runs.ProgramRunning as running:
            return {"fills": running.fills, "status": "", "output": ""}, Graded(0.0, False), {}, None, running.run
    graded, chosen, expected = grade_answer(user=user, block=block, values=values, answer=answer,
                                            wait_seconds=wait_seconds)
    return answer, graded, chosen, expected, None


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
    one scores 0; one whose program still runs counts once graded: settle_answer)."""
    answers = list(attempt.answers.select_related("block__lesson"))
    attempt.submitted_at = now
    attempt.score = _score(attempt, answers)
    attempt.save(update_fields=["submitted_at", "score"])
    _record(attempt, [a for a in answers if a.checked_at is None and not a.running and a.block_id in attempt.order], now)
    # The live view is told once; the lesson is started (its progress row: the LMS's score needs it).
    first = Block.objects.filter(pk__in=attempt.order).select_related("lesson").first()
    if first is not None:
        what = _("submitted the quiz — %(percent)d%%") % {"percent": round(100 * attempt.score)}
        learner_worked(user=attempt.student, block=first, what=what, failed=attempt.score < 1, attempt=True)
    if first is None or first.lesson_id != attempt.assignment.lesson_id:
        # A drawn quiz's questions may all be of other lessons: the one it is listed on is started.
        start_lesson(user=attempt.student, lesson=attempt.assignment.lesson)
    _quiz_submitted(attempt)
    return attempt


def _score(attempt: QuizAttempt, answers: list[QuizAnswer]) -> float:
    if not attempt.order:
        return 0.0
    return round(sum(a.score for a in answers if a.block_id in attempt.order) / len(attempt.order), 6)


def _quiz_submitted(attempt: QuizAttempt) -> None:
    assignment_id, student_id = attempt.assignment_id, attempt.student_id
    transaction.on_commit(
        lambda: signals.quiz_submitted.send(sender=QuizAttempt, assignment_id=assignment_id, student_id=student_id)
    )


def settle_answer(*, answer_id: int, now: datetime | None = None) -> QuizAnswer | None:
    """Grade a fill-in-the-code answer whose program's run is back: kept graded; recorded
    for the teacher's views if it was checked, or its attempt submitted (whose score then
    counts it, and the LMS is told again). A run Parsnip lost is queued again: the answer
    keeps waiting, never lost. Returns the answer once graded, else None. The worker (when
    the run ends), the minute sweep and the student's next request all call it: the row
    locks make it happen once."""
    row = QuizAnswer.objects.filter(pk=answer_id, run__isnull=False).values_list("attempt_id", "run_id").first()
    if row is None:
        return None
    now = now or timezone.now()
    with transaction.atomic():
        attempt = QuizAttempt.objects.select_for_update().select_related("assignment").get(pk=row[0])
        saved = (QuizAnswer.objects.select_for_update(of=("self",)).select_related("block__lesson__course", "run")
                 .filter(pk=answer_id, run=row[1]).first())
        if saved is None:  # graded meanwhile, or replaced by another answer
            return None
        values = saved.block.kind_spec.values_of(saved.block)
        fills = saved.answer["fills"]
        try:
            answer = code_runs.answer_from(saved.run.as_seen(), fills)
        except code_runs.ProgramRunning:
            return None
        except VariantNotReady:  # lost by Parsnip, not the student's doing: run it again
            saved.run = code_runs.run_of(None, values, fills)
            saved.save(update_fields=["run"])
            return None
        graded, chosen, expected = grade_answer(user=attempt.student, block=saved.block, values=values, answer=answer)
        saved.answer, saved.score, saved.right, saved.run = answer, graded.score, graded.right, None
        saved.variant, saved.expected = chosen, expected
        saved.save(update_fields=["answer", "score", "right", "run", "variant", "expected"])
        if attempt.is_submitted:
            attempt.score = _score(attempt, list(attempt.answers.all()))
            attempt.save(update_fields=["score"])
            _record(attempt, [saved], now)
            _quiz_submitted(attempt)
        elif saved.checked_at is not None:
            _record(attempt, [saved], now, check=True)
    return saved


def settle_running(*, attempt: QuizAttempt, wait_seconds: float = 0) -> int:
    """Grade the attempt's answers whose programs are back, first waiting up to
    `wait_seconds` in all for those still running; how many are still running after."""
    deadline = time.monotonic() + wait_seconds
    waiting = list(attempt.answers.filter(run__isnull=False).select_related("run"))
    running = 0
    for saved in waiting:
        left = deadline - time.monotonic()
        if not saved.run.is_final and left > 0:
            saved.run.wait_until_final(left)
        running += settle_answer(answer_id=saved.pk) is None
    if len(waiting) > running:
        attempt.refresh_from_db(fields=["score"])  # a submitted attempt's score counts them now
    return running


def settle_runs(*, run=None) -> int:
    """Grade every quiz answer waiting for `run` (the worker finished it), or (None: the
    sweep) for any run that is back or lost; how many were graded."""
    waiting = QuizAnswer.objects.filter(run__isnull=False)
    if run is not None:
        waiting = waiting.filter(run=run)
    return sum(settle_answer(answer_id=pk) is not None for pk in waiting.values_list("pk", flat=True))


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
