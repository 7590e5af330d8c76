"""What a student's pages show of a quiz: the start page's facts, and each question of an
attempt as the questions' own state (tutor/practice/questions/state.py `build`: the options
in the learner's order, their tokens, the variant) with only what the feedback rule allows."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max
from django.utils import timezone

from course.models import Block
from tutor.assignments.models import Assignment, Extension
from tutor.practice.questions.models import QuestionAnswer, QuestionTries
from tutor.practice.questions.state import QuestionPractice, build
from tutor.quizzes import rules
from tutor.quizzes.models import QuizAnswer, QuizAttempt


def class_latest_due(assignment: Assignment) -> datetime:
    latest = Extension.objects.filter(assignment=assignment).aggregate(latest=Max("due_at"))["latest"]
    return rules.latest_due(assignment, [latest] if latest else [])


def student_due(assignment: Assignment, student_id: int) -> datetime:
    extension = Extension.objects.filter(assignment=assignment, student=student_id).first()
    return extension.due_at if extension else assignment.due_at


def attempts_left(assignment: Assignment, used: int) -> int:
    return max(0, assignment.attempts_allowed - used)


@dataclass
class QuizQuestion:
    """One question of an attempt as the student sees it."""

    number: int  # its place in the attempt, from 1
    block: Block
    state: QuestionPractice
    saved: QuizAnswer | None
    shown: rules.Shown

    @property
    def prefix(self) -> str:
        """Its fields' names start with this: one form holds every question."""
        return f"q{self.block.pk}-"

    @property
    def checked(self) -> bool:
        return self.saved is not None and self.saved.checked_at is not None

    @property
    def percent(self) -> int:
        return round(100 * self.saved.score) if self.saved else 0


def question_view(block: Block, values: dict, *, number: int, attempt: QuizAttempt, saved: QuizAnswer | None,
                  shown: rules.Shown) -> QuizQuestion:
    now = timezone.now()
    last = tries = None
    if saved is not None:
        last = QuestionAnswer(answer=saved.answer, expected=saved.expected, score=saved.score, right=saved.right)
        tries = QuestionTries(tries=1, score=saved.score, right_at=now if saved.right else None,
                              finished_at=now if shown.right_answers else None)
    elif shown.right_answers:
        tries = QuestionTries(tries=0, finished_at=now)
    state = build(block, values, user=attempt.student, tries=tries, last=last,
                  lesson_url=block.lesson.get_absolute_url(),
                  variant_answer=saved.expected if saved is not None else None)
    if saved is not None and saved.running:  # its program is running: not graded yet
        state.pending = True
    if not shown.graded or state.pending:  # nothing yet tells whether an answer is right
        state.graded = None
        state.output = state.error = ""
        for option in state.options:
            option.feedback, option.right = "", None
        for piece in state.pieces:
            piece.right, piece.accepted = None, ""
        state.right_number = ""
    return QuizQuestion(number, block, state, saved, shown)


def attempt_questions(attempt: QuizAttempt, *, now: datetime, due: datetime, left: int) -> list[QuizQuestion]:
    """The attempt's questions in its order, each with what the feedback rule lets it show.
    `due`: the class's latest due date; `left`: the student's attempts left. Two queries."""
    blocks = Block.objects.select_related("lesson__course").in_bulk(attempt.order)
    saved = {answer.block_id: answer for answer in attempt.answers.all()}
    questions = []
    for pk in attempt.order:
        block = blocks.get(pk)
        if block is None:  # removed from the content since: not shown, still counted as 0
            continue
        answer = saved.get(pk)
        shown = rules.shown(attempt.assignment, attempt, checked=answer is not None and answer.checked_at is not None,
                            now=now, due=due, attempts_left=left)
        questions.append(question_view(block, block.kind_spec.values_of(block), number=len(questions) + 1,
                                       attempt=attempt, saved=answer, shown=shown))
    return questions
