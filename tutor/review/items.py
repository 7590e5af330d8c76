"""What each kind of item is at review: how long it takes, the rating the lesson gave it,
what the learner is shown before answering (never the answer), how their answer is read
and graded -- by the lesson's own checks, no new kind of answer -- and what is shown once
they have answered.

A kind of item is one `Reviewer` in REVIEWERS, by block kind; a kind missing there is
never made a card.
"""

import random
from dataclasses import dataclass, field
from typing import Any

import fsrs
from django.conf import settings
from django.db import transaction
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from course.kinds.questions import with_parameters
from course.models import Block
from tutor.actions.runs import RunRefused, queue_run
from tutor.grading import compare_prediction, outputs_match
from tutor.models import Run, code_digest
from tutor.practice.code_exercise.forms import ExerciseCodeForm
from tutor.practice.code_exercise.models import Submission
from tutor.practice.code_exercise.state import TestFeedback
from tutor.practice.ordering.actions import (
    NoReferenceOutput,
    _reference_output,  # the lesson's own reference
)
from tutor.practice.ordering.board import LineTokens
from tutor.practice.ordering.lines import ExerciseLines
from tutor.practice.ordering.models import OrderingArrangement
from tutor.practice.questions import code_runs, variants
from tutor.practice.questions import state as question_state
from tutor.practice.questions.answers import Malformed, read_answer
from tutor.practice.questions.grading import grade
from tutor.practice.questions.models import QuestionAnswer, QuestionTries
from tutor.practice.snippet.actions import reveal_run
from tutor.practice.snippet.forms import PredictionForm
from tutor.practice.snippet.models import Prediction
from tutor.review.models import CodeReview
from tutor.sandbox.grading import Grading


class Pending(Exception):
    """The answer is being graded by the worker (a code exercise's tests): `review`, the
    CodeReview row, gets its answer once they have run."""

    def __init__(self, review):
        super().__init__(review.pk)
        self.review = review


class NotReady(Exception):
    """The item cannot be graded yet (its output or variant is still being computed): not
    counted, the learner answers again in a moment."""


@dataclass(frozen=True)
class Graded:
    right: bool
    score: float
    answer: Any  # what is kept of the answer (JSON)
    variant: dict = field(default_factory=dict)
    expected: float | None = None


def rating_for(graded: Graded) -> fsrs.Rating:
    """Right -> Good; partly right (some of a checkbox or blanks question's marks) -> Hard;
    wrong -> Again."""
    if graded.right:
        return fsrs.Rating.Good
    return fsrs.Rating.Hard if graded.score >= 0.5 else fsrs.Rating.Again


def lesson_rating(*, right: bool, first_try: bool) -> fsrs.Rating:
    """The lesson's result as the card's first rating: right at the first try -> Good, right
    after a wrong try (or with help) -> Hard, never right -> Again."""
    if not right:
        return fsrs.Rating.Again
    return fsrs.Rating.Good if first_try else fsrs.Rating.Hard


class Reviewer:
    minutes = 1  # about how long one review takes: the day's ten minutes are counted in these
    label = ""
    template = ""  # with partials `review-form` and `review-result`

    def lesson_rating(self, *, user, block: Block) -> fsrs.Rating | None:
        """The rating the lesson gave the item, or None while it is no card (not finished)."""
        raise NotImplementedError

    def lesson_variant(self, *, user, block: Block) -> dict:
        return {}

    def shown(self, card) -> dict:
        """What the form shows before an answer: nothing that tells the answer."""
        raise NotImplementedError

    def grade(self, card, data: QueryDict) -> Graded:
        """Read and grade an answer. Raises Malformed (told to the learner, not counted) or
        NotReady."""
        raise NotImplementedError

    def result(self, card, answer) -> dict:
        """What is shown once answered (`answer`: a ReviewAnswer): the right answer too."""
        raise NotImplementedError


# Predictions: what a snippet prints ----------------------------------------------------


def _reveal(snippet) -> Run:
    """The run that shows what the snippet prints, final (waiting a moment for the worker
    when it is not), or NotReady."""
    run = reveal_run(snippet=snippet)
    if not run.is_final:
        run = run.wait_until_final(settings.RUN_WAIT_SECONDS)
    if not run.is_final or run.status == Run.Status.FAILED:
        raise NotReady(_("The output of this code is still being worked out. Answer again in a moment."))
    return run


class PredictionReviewer(Reviewer):
    label = gettext_lazy("What does it print?")
    template = "tutor/review/items/snippet.html"

    def lesson_rating(self, *, user, block):
        snippet = block.snippet
        first = Prediction.objects.filter(
            user=user, snippet=snippet, snippet_version=snippet.version, is_first=True
        ).first()
        wrong = (Prediction.Verdict.WRONG, Prediction.Verdict.SELF_WRONG)
        # Only a prediction they got wrong comes back (a right one was known already).
        return fsrs.Rating.Again if first is not None and first.verdict in wrong else None

    def shown(self, card):
        return {"snippet": card.block.snippet}

    def grade(self, card, data):
        form = PredictionForm({"text": data.get("text", ""), "mode": "typed"})
        if not form.is_valid():
            raise Malformed(" ".join(error for errors in form.errors.values() for error in errors))
        text = form.cleaned_data["text"]
        run = _reveal(card.block.snippet)
        right = compare_prediction(text, run.stdout, error=run.raised).is_right
        return Graded(right=right, score=1.0 if right else 0.0, answer=text)

    def result(self, card, answer):
        snippet = card.block.snippet
        run = _reveal(snippet)
        return {
            "snippet": snippet,
            "output": run.stdout,
            "comparison": compare_prediction(answer.answer, run.stdout, error=run.raised),
        }


# Questions: choice, checkboxes, number, blanks, code_blanks -----------------------------------------


class QuestionReviewer(Reviewer):
    template = "tutor/review/items/question.html"

    def __init__(self, label):
        self.label = label

    def lesson_rating(self, *, user, block):
        tries = QuestionTries.objects.filter(user=user, block=block).first()
        if tries is None or not tries.finished:
            return None
        return lesson_rating(right=tries.right_at is not None, first_try=tries.tries == 1)

    def lesson_variant(self, *, user, block):
        values = block.kind_spec.values_of(block)
        if not values.get("parameters"):
            return {}
        return variants.learner_variant(block, values, user_id=user.pk)

    def variant(self, card, values: dict) -> dict:
        """A variant other than the one answered last, where the question has several: the
        same for this review of the card (a reload does not draw another)."""
        if not values.get("parameters"):
            return {}
        every = variants.variants_of(card.block, values)
        others = [chosen for chosen in every if chosen != card.last_variant] or every
        return random.Random(f"review:{card.user_id}:{card.block_id}:{card.reviews}").choice(others)

    def _state(self, card, values, chosen, *, tries=None, last=None, expected=None):
        block = card.block
        state = question_state.build(
            block, values, user=card.user, tries=tries, last=last,
            lesson_url=block.lesson.get_absolute_url(), variant_answer=expected,
            variant=chosen if chosen else None,
        )
        if chosen:
            state.variant, state.stem = chosen, with_parameters(block.body, chosen)
        return state

    def shown(self, card):
        values = card.block.kind_spec.values_of(card.block)
        return {"question": self._state(card, values, self.variant(card, values))}

    def grade(self, card, data):
        block = card.block
        values = block.kind_spec.values_of(block)
        answer = read_answer(block.kind, values, data, user_id=card.user_id, block_id=block.pk)
        if block.kind == "code_blanks":  # the filled program, run by the worker as in the lesson
            try:
                answer = code_runs.with_output(user=card.user, values=values, fills=answer,
                                               wait_seconds=settings.RUN_WAIT_SECONDS)
            except code_runs.ProgramRunning as running:
                raise NotReady(_("Your program is being run. Answer again in a moment.")) from running
            except (variants.VariantNotReady, RunRefused) as refusal:
                raise NotReady(str(refusal)) from refusal
        chosen = self.variant(card, values)
        expected = None
        if variants.computes(values):
            try:
                computed = variants.answer_of(block, values, chosen, wait_seconds=settings.RUN_WAIT_SECONDS)
            except variants.VariantNotReady as refusal:
                raise NotReady(str(refusal)) from refusal
            values = block.kind_spec.for_variant(values, chosen, computed)
            expected = computed if block.kind == "number" else None
        graded = grade(block.kind, values, answer)
        return Graded(graded.right, graded.score, answer, variant=chosen, expected=expected)

    def result(self, card, answer):
        values = card.block.kind_spec.values_of(card.block)
        # Shown as the lesson shows a finished question: the rows are not saved.
        now = timezone.now()
        tries = QuestionTries(tries=1, score=answer.score, finished_at=now,
                              right_at=now if answer.right else None)
        last = QuestionAnswer(answer=answer.answer, score=answer.score, right=answer.right,
                              variant=answer.variant, expected=answer.expected, try_number=1)
        state = self._state(card, values, answer.variant, tries=tries, last=last, expected=answer.expected)
        return {"question": state}


# Ordering exercises: the lines in a fresh shuffle, each given its place ---------------


@dataclass(frozen=True)
class PlacedLine:
    token: str
    text: str
    place: int | None = None  # once answered: where the learner put it (None: not used)


def _check_run(lines: ExerciseLines, order: list[str], user) -> Run:
    """The run of the arranged program, as the lesson's output check runs it: one that ran
    the same program already (its output is the same), else a new one, waited for a moment."""
    code = lines.program(order)
    runs = Run.objects.filter(code_hash=code_digest(code), purpose=Run.Purpose.CHECK)
    run = runs.exclude(status=Run.Status.FAILED).order_by("-created_at", "-pk").first()
    if run is None or (not run.is_final and run.fail_if_stale()):
        try:
            run = queue_run(code=code, user=user, purpose=Run.Purpose.CHECK)
        except RunRefused as refusal:
            raise NotReady(str(refusal)) from refusal
    if not run.is_final:
        run = run.wait_until_final(settings.RUN_WAIT_SECONDS)
    if not run.is_final:
        raise NotReady(_("Your program is being run. Answer again in a moment."))
    if run.status == Run.Status.FAILED:  # Parsnip lost it: not the learner's wrong answer
        raise NotReady(_("Your program could not be run. Answer again in a moment."))
    return run


class OrderingReviewer(Reviewer):
    minutes = 2
    label = gettext_lazy("Put the lines in order")
    template = "tutor/review/items/ordering.html"

    def lesson_rating(self, *, user, block):
        arrangement = OrderingArrangement.objects.filter(user=user, exercise__block=block).first()
        if arrangement is None or arrangement.solved_at is None:
            return None
        return lesson_rating(right=True, first_try=not arrangement.wrong_checks and not arrangement.help_used)

    def _lines(self, card) -> tuple[ExerciseLines, dict[str, str]]:
        lines = ExerciseLines.of(card.block.ordering_exercise)
        return lines, LineTokens.of(card.user, lines).by_key

    def shown(self, card):
        lines, tokens = self._lines(card)
        keys = sorted(lines.texts)
        random.Random(f"review:{card.user_id}:{card.block_id}:{card.reviews}").shuffle(keys)
        return {
            "lines": [PlacedLine(tokens[key], lines.texts[key]) for key in keys],
            "places": range(1, len(keys) + 1),
        }

    def grade(self, card, data):
        lines, tokens = self._lines(card)
        placed: dict[int, str] = {}
        for key, token in tokens.items():
            value = data.get(f"place-{token}", "")
            if value == "":
                continue  # not used
            if not value.isdecimal() or not 1 <= int(value) <= len(tokens):
                raise Malformed(_("Give each line a place from 1 to %(n)d, or leave it out.") % {"n": len(tokens)})
            if int(value) in placed:
                raise Malformed(_("Two lines have place %(n)s: give each line a place of its own.") % {"n": value})
            placed[int(value)] = key
        if not placed:
            raise Malformed(_("Give the lines their places first."))
        order = [placed[place] for place in sorted(placed)]
        if lines.needs_a_run(order):
            run = _check_run(lines, order, card.user)
            right = False  # a program that stops with an error is wrong, whatever it printed
            if run.status == Run.Status.OK:
                try:
                    expected = _reference_output(lines)
                except NoReferenceOutput:
                    raise NotReady(_("This exercise cannot be checked now: its program does not run.")) from None
                if expected is None:
                    raise NotReady(_("Your program is being run. Answer again in a moment."))
                right = outputs_match(run.stdout, expected)
        else:
            right = lines.is_solved_without_running(order)
        return Graded(right=right, score=1.0 if right else 0.0, answer=order)

    def result(self, card, answer):
        lines, tokens = self._lines(card)
        places = {key: number for number, key in enumerate(answer.answer, start=1)}
        return {
            "answered_lines": [PlacedLine(tokens[key], lines.texts[key], places.get(key))
                               for key in answer.answer if key in lines.texts],
            "left_out": [lines.texts[key] for key in lines.texts if key not in places],
            "solution": [lines.texts[key] for key in lines.correct],
        }


# Code exercises: write the code again, tested by the exercise's tests in the worker -------


class CodeReviewer(Reviewer):
    minutes = 3
    label = gettext_lazy("Write the code")
    template = "tutor/review/items/code_exercise.html"

    def lesson_rating(self, *, user, block):
        verdicts = list(
            Submission.objects.filter(user=user, exercise__block=block)
            .exclude(verdict__in=(Submission.Verdict.PENDING, Submission.Verdict.NOT_CHECKED))
            .order_by("created_at", "pk").values_list("verdict", flat=True)
        )
        if Submission.Verdict.PASSED not in verdicts:
            return None
        return lesson_rating(right=True, first_try=verdicts[0] == Submission.Verdict.PASSED)

    def shown(self, card):
        exercise = card.block.code_exercise
        return {"exercise": exercise, "code": exercise.starter,
                "visible_tests": [test for test in exercise.tests.all() if not test.hidden]}

    def grade(self, card, data):
        form = ExerciseCodeForm(data)
        if not form.is_valid():
            raise Malformed(" ".join(error for errors in form.errors.values() for error in errors))
        waiting = CodeReview.objects.filter(card=card, reviews=card.reviews, answer=None)
        if any(not review.run.as_seen().is_final for review in waiting.select_related("run")):
            raise NotReady(_("Your code is being tested: its result comes in a moment."))
        with transaction.atomic():
            try:
                run = queue_run(code=form.cleaned_data["code"], user=card.user, purpose=Run.Purpose.REVIEW)
            except RunRefused as refusal:
                raise NotReady(str(refusal)) from refusal
            review = CodeReview.objects.create(card=card, run=run, reviews=card.reviews)
        run.wait_until_final(settings.RUN_WAIT_SECONDS)
        raise Pending(review)

    def result(self, card, answer):
        review = getattr(answer, "code_review", None)
        return {"exercise": card.block.code_exercise, "tests": tested(review)}


def tested(review) -> list:
    """Each test's result as the learner sees it at review: a hidden test says only the
    kind of failure (the lesson's rule, tutor.practice.code_exercise.state)."""
    if review is None or not review.results:
        return []
    return [TestFeedback(result, shown=result.visible) for result in Grading.from_dict(review.results).results]


REVIEWERS: dict[str, Reviewer] = {
    "snippet": PredictionReviewer(),
    "ordering": OrderingReviewer(),
    "code_exercise": CodeReviewer(),
    "choice": QuestionReviewer(gettext_lazy("Multiple choice")),
    "checkboxes": QuestionReviewer(gettext_lazy("Tick every right answer")),
    "number": QuestionReviewer(gettext_lazy("A number")),
    "blanks": QuestionReviewer(gettext_lazy("Fill in the blanks")),
    "code_blanks": QuestionReviewer(gettext_lazy("Fill in the program")),
}


def reviewer(block: Block) -> Reviewer | None:
    return REVIEWERS.get(block.kind)
