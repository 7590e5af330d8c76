"""Take the next rung of a block's hint ladder: the one workflow that writes a HintUse.

Rungs are taken in order, each once: the form names the rung it takes, so a double click
(two POSTs for the same rung) takes one rung, the second finding it taken, and the
unique constraint settles two that land together. A question's last rung, its answer,
finishes it as using every try does (its tries row locked, as answering locks it).
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from course.models import Block
from tutor.actions.progress import learner_worked
from tutor.practice.hints import QUESTION_KINDS, hints_of, rung_count, used_words
from tutor.practice.hints.models import HintUse
from tutor.signals import progress_changed


class RungRefused(Exception):
    """This rung cannot be taken; the message says why."""


def take_rung(*, user: AbstractBaseUser, block: Block, rung: int) -> bool:
    """Take rung `rung` of the block's ladder for `user`. True when this call took it,
    False when it was already taken (a second click). Raises RungRefused otherwise."""
    total = rung_count(block)
    with transaction.atomic():
        tries = None
        if block.kind in QUESTION_KINDS:
            from tutor.practice.questions.models import QuestionTries

            row, _created = QuestionTries.objects.get_or_create(user=user, block=block)
            tries = QuestionTries.objects.select_for_update().get(pk=row.pk)
        taken = HintUse.objects.filter(user=user, block=block).aggregate(top=Max("rung"))["top"] or 0
        if rung <= taken:
            return False
        if tries is not None and tries.finished:
            raise RungRefused(_("You have answered this question: the right answer is shown with it."))
        if rung > total:
            raise RungRefused(_("You have seen every hint and the whole solution."))
        if rung != taken + 1:
            raise RungRefused(_("Hints come one at a time: take the next one first."))
        try:
            with transaction.atomic():
                HintUse.objects.create(user=user, block=block, rung=rung)
        except IntegrityError:  # another request took it at the same moment
            return False
        finishes = tries is not None and rung == total
        if finishes:
            tries.finished_at = timezone.now()
            tries.save(update_fields=["finished_at", "updated_at"])
        learner_worked(
            user=user, block=block, what=used_words(rung, len(hints_of(block))),
            counts=finishes, attempt=True,
        )
        if not finishes:  # (finishing recounts the progress, which says so itself)
            # A rung may cost a share of an assignment's score: the LMS link recounts it.
            transaction.on_commit(
                lambda: progress_changed.send(sender=HintUse, user_id=user.pk, lesson_id=block.lesson_id)
            )
    return True
