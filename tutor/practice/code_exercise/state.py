"""One learner's state on code exercises: what an exercise's panel shows.

Feedback is in the learner's words: each failing test by its name, with (for a visible
test, or a hidden one once the exercise is solved, or once an assignment that shows hidden
tests when due is due for the learner: tutor/assignments/hidden_tests.py) its input and what was expected next
to what the code printed or returned, compared line by line as a prediction is. A hidden
test the learner has not solved yet shows only its name and the kind of failure in plain
words (TestResult.hidden_message): no message, line or value its data could shape. Read only:
the panel is shown by page views, which never write.
"""

from dataclasses import dataclass
from functools import cached_property

from django.contrib.auth.models import AbstractBaseUser

from course.kinds.code_exercise import CodeExercise
from tutor.assignments.hidden_tests import shown_after_due
from tutor.grading import PredictionComparison, compare_prediction
from tutor.models import Run
from tutor.practice.code_exercise.models import ExerciseDraft, Submission
from tutor.sandbox.grading import Grading, TestResult

MAX_CODE_CHARS = 20_000


@dataclass
class TestFeedback:
    """One test's result as the learner sees it."""

    result: TestResult
    shown: bool  # its input and expected values may be shown (visible, solved, or due)

    @property
    def name(self) -> str:
        return self.result.name

    @property
    def passed(self) -> bool:
        return self.result.passed

    @property
    def hidden(self) -> bool:
        return not self.result.visible

    @property
    def message(self) -> str:
        """A hidden test not yet shown says only what kind of failure it was: its full
        message (an exception's text, a line, an exit code) could carry its input back."""
        return self.result.message if self.shown else self.result.hidden_message

    @property
    def traceback(self) -> str:
        return self.result.traceback if self.shown else ""

    @property
    def note(self) -> str:
        """A pass's word on a right value of another type: it names the expected value."""
        return self.result.note if self.shown else ""

    @property
    def args_text(self) -> str:
        return " ".join(self.result.args)

    @cached_property
    def comparison(self) -> PredictionComparison | None:
        """For an I/O test whose output differs: expected against printed, line by line,
        with the named slips a prediction gets (wrong case, missing blank line, ...)."""
        result = self.result
        if not self.shown or result.kind != "wrong_output" or result.expected is None:
            return None
        return compare_prediction(result.got or "", result.expected)


@dataclass
class ExercisePractice:
    """One learner's state on one code exercise."""

    exercise: CodeExercise
    draft: ExerciseDraft | None = None
    submission: Submission | None = None  # the latest, or the one to show
    previous: Submission | None = None  # the learner's submission just before that one
    solved: bool = False  # some submission passed every test
    attempts: int = 0
    due_shown: bool = False  # its hidden tests show in full: an assignment's due date passed

    code_limit = MAX_CODE_CHARS

    @property
    def hidden_tests_shown(self) -> bool:
        """Its hidden tests show in full (what each checks and expected, and a step-through
        of one that failed): once solved, or once an assignment's due date passed."""
        return self.solved or self.due_shown

    @property
    def code(self) -> str:
        if self.draft is not None:
            return self.draft.code
        return self.exercise.starter

    @property
    def code_rows(self) -> int:
        return min(max(self.code.count("\n") + 2, 8), 30)

    @property
    def hidden_count(self) -> int:
        return sum(test.hidden for test in self.exercise.tests.all())

    @property
    def listed_tests(self) -> list:
        """The tests "What the tests check" lists: the visible ones, and the hidden ones too
        once they show in full (solved, or an assignment's due date passed)."""
        tests = self.exercise.tests.all()
        return [test for test in tests if not test.hidden or self.hidden_tests_shown]

    @property
    def same_result_as_before(self) -> bool:
        """This submission's tests came out as the one before did (each passed or failed,
        and how): the panel says it was tested again, or a new click looks like nothing."""
        now, before = self.submission, self.previous
        if now is None or before is None or not now.results or not before.results:
            return False
        return now.verdict == before.verdict and _outcomes(now) == _outcomes(before)

    @property
    def waiting(self) -> bool:
        return self.submission is not None and self.submission.verdict == Submission.Verdict.PENDING and not self.lost

    @property
    def lost(self) -> bool:
        """The submission's run will never finish (its worker is gone): shown as not tested."""
        submission = self.submission
        if submission is None or submission.verdict != Submission.Verdict.PENDING:
            return False
        run = submission.run
        return run is None or run.as_seen().status == Run.Status.FAILED

    @cached_property
    def grading(self) -> Grading | None:
        if self.submission is None or not self.submission.results:
            return None
        return Grading.from_dict(self.submission.results)

    @cached_property
    def feedback(self) -> list[TestFeedback]:
        if self.grading is None:
            return []
        return [
            TestFeedback(result, shown=result.visible or self.hidden_tests_shown)
            for result in self.grading.results
        ]

    @property
    def failing(self) -> list[TestFeedback]:
        return [test for test in self.feedback if not test.passed]

    @property
    def passing(self) -> list[TestFeedback]:
        return [test for test in self.feedback if test.passed]

    @property
    def passing_noted(self) -> bool:
        """A passing test has a note (shown open: a folded list would hide it)."""
        return any(test.note for test in self.passing)


def practices(
    user: AbstractBaseUser,
    exercises: list[CodeExercise],
    *,
    submission_id: int | None = None,
    in_class: bool = True,
) -> dict[int, ExercisePractice]:
    """Each exercise's state for this learner, by exercise pk, in four queries for any
    number of exercises (their blocks should be loaded and their tests prefetched); three
    when the learner is known to be in no class (`in_class=False`: no assignment can show
    them hidden tests)."""
    found = {exercise.pk: ExercisePractice(exercise) for exercise in exercises}
    if not exercises:
        return found
    shown = shown_after_due(user, [exercise.block for exercise in exercises]) if in_class else set()
    for block in shown:
        found[next(e.pk for e in exercises if e.block_id == block)].due_shown = True
    for draft in ExerciseDraft.objects.filter(user=user, exercise__in=exercises):
        found[draft.exercise_id].draft = draft
    submissions = (
        Submission.objects.filter(user=user, exercise__in=exercises)
        .select_related("run")
        .latest_first()
    )
    after_shown: dict[int, bool] = {}  # by exercise: the one shown came just before this one
    for submission in submissions:
        practice = found[submission.exercise_id]
        practice.attempts += 1
        if after_shown.pop(submission.exercise_id, False):
            practice.previous = submission
        if practice.submission is None or submission.pk == submission_id:
            practice.submission, practice.previous = submission, None
            after_shown[submission.exercise_id] = True
        if submission.verdict == Submission.Verdict.PASSED:
            practice.solved = True
    return found


def _outcomes(submission: Submission) -> list[tuple]:
    return [
        (result.get("name"), result.get("passed"), result.get("kind"))
        for result in submission.results.get("results", [])
    ]


def practice_of(user: AbstractBaseUser, exercise: CodeExercise, **kwargs) -> ExercisePractice:
    return practices(user, [exercise], **kwargs)[exercise.pk]
