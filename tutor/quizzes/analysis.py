"""Item analysis of a quiz: for each question, its difficulty (the mean score on it) and its
discrimination, and for a choice or checkboxes question each option's share; over each
student's best submitted attempt (the one that counts for their score).

Discrimination is the corrected point-biserial: the Pearson correlation, across students,
between the score on the question and the score on the rest of the quiz (the sum of the
other questions' scores), so a question does not correlate with itself. Near 0 or negative:
the question does not tell the stronger students from the weaker ones (or tells them the
wrong way round); it needs at least 3 students and some spread, otherwise it is not given.
"""

import statistics
from collections import Counter
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

from course.models import Block
from tutor.quizzes.models import QuizAnswer
from tutor.quizzes.results import best_attempts


@dataclass
class QuestionAnalysis:
    block: Block
    label: str
    students: int
    difficulty: float | None  # mean score, 0 to 1
    discrimination: float | None
    options: list[tuple[str, bool, int]] = field(default_factory=list)  # text, right, percent

    @property
    def difficulty_percent(self) -> str:
        return "—" if self.difficulty is None else f"{round(100 * self.difficulty)}%"

    @property
    def discrimination_text(self) -> str:
        return "—" if self.discrimination is None else f"{self.discrimination:+.2f}"


def corrected_point_biserial(item: list[float], rest: list[float]) -> float | None:
    """Pearson's r of the item's scores with the rest of the quiz's; None when undefined."""
    if len(item) < 3:
        return None
    try:
        return statistics.correlation(item, rest)
    except statistics.StatisticsError:  # no spread in one of them
        return None


def quiz_analysis(assignment, students) -> list[QuestionAnalysis]:
    """Each question of the quiz, in the course's order (two queries and the blocks'), over
    the attempts that showed it: all of them, or in a drawn quiz those that drew it."""
    from tutor.quizzes.actions import questions_of

    best = best_attempts(assignment, students)
    questions = questions_of(assignment)
    drew = {attempt.pk: set(attempt.order) for attempt in best.values()}
    scores: dict[int, dict[int, float]] = {attempt.pk: {} for attempt in best.values()}
    chosen: dict[int, Counter] = {block.pk: Counter() for block in questions}
    for row in QuizAnswer.objects.filter(attempt__in=list(scores)).only("attempt_id", "block_id", "score", "answer"):
        scores[row.attempt_id][row.block_id] = row.score
        if row.block_id in chosen and isinstance(row.answer, list):
            chosen[row.block_id].update(row.answer)
    found = []
    for block in questions:
        attempts = [scores[pk] for pk in scores if block.pk in drew[pk]]
        item = [attempt.get(block.pk, 0.0) for attempt in attempts]
        rest = [sum(attempt.values()) - attempt.get(block.pk, 0.0) for attempt in attempts]
        analysis = QuestionAnalysis(
            block, block.title or block.key, len(attempts),
            statistics.fmean(item) if item else None, corrected_point_biserial(item, rest),
        )
        if block.kind in ("choice", "checkboxes") and attempts:
            for option in block.kind_spec.values_of(block)["options"]:
                share = round(100 * chosen[block.pk][option["key"]] / len(attempts))
                analysis.options.append((option["text"], bool(option.get("right")), share))
        found.append(analysis)
    return found


# Lazy: read in the teacher's language when the page is drawn, not the one active at import.
FORMULA = _(
    "Difficulty: the mean score on the question. Discrimination: the correlation, across "
    "students, of the score on the question with the score on the rest of the quiz "
    "(corrected point-biserial); near 0 or below, the question does not separate the "
    "stronger students from the weaker. Each student's best submitted attempt counts."
)
