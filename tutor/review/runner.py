"""The worker's side of a code exercise at review: the code is graded by the exercise's
tests exactly as a lesson's submission is (one sandbox run, tutor.sandbox.grading), and the
answer is recorded and the card rescheduled here, in the worker, so it never depends on the
learner keeping the page open (a page view never writes).

Registered with tutor.practice as a panel that executes runs of purpose REVIEW."""

from tutor import practice, sandbox
from tutor.models import Run
from tutor.practice.code_exercise.actions import (
    PER_TEST_SECONDS,
    grading_limits,
    run_result,
    tests_of,
)
from tutor.review import actions, items
from tutor.review.models import CodeReview
from tutor.sandbox.grading import grade


class ReviewRunner(practice.PracticeKind):
    name = "review"
    panel = True
    run_purpose = Run.Purpose.REVIEW

    def run_limits(self, run: Run) -> sandbox.Limits:
        return grading_limits(self._review(run).card.block.code_exercise)

    @staticmethod
    def _review(run: Run) -> CodeReview:
        return CodeReview.objects.select_related("card__block__code_exercise", "card__user").get(run=run)

    def execute(self, run: Run, limits: sandbox.Limits) -> sandbox.Result:
        review = self._review(run)
        grading = grade(run.code, tests_of(review.card.block.code_exercise), limits=limits,
                        per_test_seconds=PER_TEST_SECONDS)
        CodeReview.objects.filter(pk=review.pk).update(results=grading.to_dict())
        if grading.status != "not_checked":  # not tested is no wrong answer: sent again
            graded = items.Graded(
                right=grading.status == "passed",
                score=grading.passed_count / len(grading.results) if grading.results else 0.0,
                answer=run.code,
            )
            try:
                answer = actions.review_card(card=review.card, graded=graded, reviews=review.reviews)
            except actions.ReviewRefused:
                pass  # reviewed meanwhile (another tab's code): this one is not counted
            else:
                CodeReview.objects.filter(pk=review.pk).update(answer=answer)
        return run_result(grading)
