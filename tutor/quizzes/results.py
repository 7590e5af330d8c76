"""A quiz's results as the teacher's pages show them: each student's best submitted attempt
(their score on the quiz), how many they submitted, and how long the best one took."""

from datetime import timedelta

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tutor.quizzes.models import QuizAttempt


def best_attempts(assignment, students) -> dict[int, QuizAttempt]:
    """student pk -> their best submitted attempt (the earliest of equal scores): one query."""
    best: dict[int, QuizAttempt] = {}
    rows = (
        QuizAttempt.objects.submitted()
        .filter(assignment=assignment, student__in=students)
        .order_by("student_id", "-score", "number")
        .only("pk", "student_id", "number", "score", "started_at", "submitted_at", "ends_at", "order")
    )
    for attempt in rows:
        best.setdefault(attempt.student_id, attempt)
    return best


def duration_words(taken: timedelta | None) -> str:
    """How long an attempt took, as a teacher reads it: "12 min 5 s"."""
    if taken is None:
        return ""
    seconds = max(0, int(taken.total_seconds()))
    minutes, seconds = divmod(seconds, 60)
    if not minutes:
        return ngettext("%(s)d s", "%(s)d s", seconds) % {"s": seconds}
    return _("%(m)d min %(s)d s") % {"m": minutes, "s": seconds}
