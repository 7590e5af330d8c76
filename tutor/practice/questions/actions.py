"""Answer a question: grade it, count the try on the server and record it.

The learner's QuestionTries row is locked first, so two answers sent at once (two tabs, a
script posting every option) are counted one after the other: once the question's tries
are used, no answer is graded, and the right one is shown instead.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from course.models import Block
from tutor.actions.progress import learner_worked
from tutor.practice.questions import code_runs, grading, variants
from tutor.practice.questions.models import QuestionAnswer, QuestionTries


class QuestionRefused(Exception):
    """The learner cannot answer this question now; the message says why."""


def allowed_tries(values: dict) -> int:
    return max(1, values.get("tries") or 1)


def answer_words(kind_label: str, graded: grading.Graded) -> str:
    """An answer in the live view's words: "answered a question — right"."""
    if graded.right:
        return f"answered {kind_label} — right"
    if graded.score:
        return f"answered {kind_label} — {graded.score:.0%} right"
    return f"answered {kind_label} — wrong"


def grade_answer(
    *, user: AbstractBaseUser, block: Block, values: dict, answer, wait_seconds: float = 0
) -> tuple[grading.Graded, dict, float | None]:
    """`answer` graded for this learner: against their variant's answer when the question
    computes it (see `answer_question`). Returns the grade, the variant and its answer.
    Practice and quizzes (tutor/quizzes/) both grade through here."""
    chosen, expected = {}, None
    if variants.computes(values):
        chosen = variants.learner_variant(block, values, user_id=user.pk)
        computed = variants.answer_of(block, values, chosen, wait_seconds=wait_seconds)
        values = block.kind_spec.for_variant(values, chosen, computed)
        expected = computed if block.kind == "number" else None  # the others' stay kept by variant
    return grading.grade(block.kind, values, answer), chosen, expected


def answer_question(
    *, user: AbstractBaseUser, block: Block, answer, wait_seconds: float = 0
) -> QuestionAnswer:
    """Grade `answer` (read by `answers.read_answer`) and keep it, as the learner's next try.
    A question that computes its answer is graded against the learner's variant's, which
    the worker computes first if no one has yet (waiting up to `wait_seconds`; raises
    variants.VariantNotReady after that, and nothing is counted)."""
    values = block.kind_spec.values_of(block)
    if block.kind == "code_blanks":
        if QuestionTries.objects.filter(user=user, block=block, finished_at__isnull=False).exists():
            raise QuestionRefused(_("You have answered this question: the right answer is shown with it."))
        try:
            answer = code_runs.with_output(user=user, values=values, fills=answer, wait_seconds=wait_seconds)
        except code_runs.ProgramRunning as running:
            keep_pending(user=user, block=block, fills=running.fills)
            raise
    graded, chosen, expected = grade_answer(user=user, block=block, values=values, answer=answer, wait_seconds=wait_seconds)
    with transaction.atomic():
        tries, _created = QuestionTries.objects.get_or_create(user=user, block=block)
        tries = QuestionTries.objects.select_for_update().get(pk=tries.pk)
        if tries.finished:
            raise QuestionRefused(
                _("You have answered this question: the right answer is shown with it.")
            )
        tries.tries += 1
        tries.pending = {}
        row = QuestionAnswer.objects.create(
            user=user, block=block, answer=answer, score=graded.score, right=graded.right,
            try_number=tries.tries, variant=chosen, expected=expected,
        )
        tries.score = max(tries.score, graded.score)
        now = timezone.now()
        if graded.right:
            tries.right_at = now
        if graded.right or tries.tries >= allowed_tries(values):
            tries.finished_at = now
        tries.save(update_fields=["tries", "score", "right_at", "finished_at", "pending", "updated_at"])
        learner_worked(
            user=user, block=block, what=answer_words(block.kind_spec.label.lower(), graded),
            failed=not graded.right, counts=tries.finished, attempt=True,
        )
    return row


def keep_pending(*, user: AbstractBaseUser, block: Block, fills: dict) -> None:
    """The fills whose program is running, shown again until they are graded (not a try)."""
    with transaction.atomic():
        tries, _created = QuestionTries.objects.get_or_create(user=user, block=block)
        if not tries.finished:
            QuestionTries.objects.filter(pk=tries.pk).update(pending=fills, updated_at=timezone.now())


def values_graded(values: dict, answer: QuestionAnswer) -> dict:
    """The question's values as `answer` was graded: its variant's answer, if it had one."""
    return {**values, "answer": answer.expected} if answer.expected is not None else values
