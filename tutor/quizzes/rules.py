"""The quiz's rules as plain functions of rows already read: when an attempt's time is over,
and what a student may see of their answers (docs/assignments.md, "Quizzes")."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from tutor.assignments.models import Assignment

# Answers sent this long after an attempt's end are still taken: a click at 14:31:59 that
# reaches the server at 14:32:03 counts. After it, the attempt is submitted as saved.
GRACE = timedelta(seconds=10)


def time_over(attempt, now: datetime) -> bool:
    return attempt.ends_at is not None and now > attempt.ends_at + GRACE


def latest_due(assignment: Assignment, extension_dues) -> datetime:
    """The last due date of the class: the assignment's, or its latest extension's."""
    return max([assignment.due_at, *extension_dues])


@dataclass(frozen=True)
class Shown:
    """What a student sees of an attempt's answers."""

    graded: bool = False  # each question's score, right or not, and the author's feedback
    right_answers: bool = False  # the right answers, beside theirs

    @property
    def nothing(self) -> bool:
        return not self.graded


def shown(assignment: Assignment, attempt, *, checked: bool, now: datetime, due: datetime,
          attempts_left: int) -> Shown:
    """What one question of `attempt` shows: `checked` (feedback "at once": the student
    checked it, and it is final). `due`: the class's latest due date (latest_due), so no
    right answer reaches a student still taking the quiz."""
    Feedback = Assignment.Feedback
    past_due = now > due
    final = attempts_left == 0 or past_due
    if not attempt.is_submitted:
        if assignment.feedback == Feedback.AT_ONCE and checked:
            return Shown(graded=True, right_answers=True)
        return Shown()
    if assignment.feedback == Feedback.AT_ONCE:
        return Shown(graded=True, right_answers=checked or final)
    if assignment.feedback == Feedback.AFTER_SUBMITTING:
        return Shown(graded=True, right_answers=final)
    return Shown(graded=past_due, right_answers=past_due)  # after the due date
