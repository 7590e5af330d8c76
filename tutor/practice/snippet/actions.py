"""Predict, reveal, self-check, and the learner's own edited code (drafts)."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from course.kinds.snippet import Snippet
from tutor import run_notices
from tutor.actions.drafts import keep_draft
from tutor.actions.progress import count_run, learner_worked, refresh_lesson_progress, start_lesson
from tutor.actions.runs import lock_learner, queue_run
from tutor.grading import compare_prediction
from tutor.models import Run, code_digest
from tutor.practice.snippet.models import CodeDraft, Prediction, VersionPrediction
from tutor.trail import actions as trail


def reveal_run(*, snippet: Snippet) -> Run:
    """The run that shows what this version of the snippet prints, shared by every learner.

    Reuses the latest reveal run of the same code and input unless it could not run at
    all; only the first learner to reveal a version queues one. A class revealing at once
    finds it without a lock once it exists; until then they queue behind a lock on the
    snippet's row (a short transaction of its own), so exactly one run is queued.
    """
    run = _reusable_reveal(snippet)
    if run is not None:
        return run
    with transaction.atomic():
        Snippet.objects.select_for_update().filter(pk=snippet.pk).values_list("pk").first()
        run = _reusable_reveal(snippet)
        if run is None:
            run = queue_run(
                code=snippet.code, stdin=snippet.stdin, snippet=snippet, purpose=Run.Purpose.REVEAL
            )
    return run


def reveal_ahead(sender, instance: Snippet, raw: bool = False, **kwargs) -> None:
    """post_save of a snippet (imported, or saved in the admin): the output of its version
    is computed now, by the worker, and kept as the version's reveal run. A class revealing
    it then finds it done -- each click a write and a read -- instead of the first click of
    the day queueing the run and the class waiting for it."""
    if raw:
        return
    pk = instance.pk
    transaction.on_commit(lambda: _reveal_ahead(pk))


def _reveal_ahead(pk: int) -> None:
    snippet = Snippet.objects.filter(pk=pk).first()
    if snippet is not None:
        reveal_run(snippet=snippet)


def keep_as_reveal(*, snippet: Snippet, result) -> Run | None:
    """What `check_content` saw a snippet print, kept as its version's reveal run when the
    version has none finished yet (a queued one is finished with it: the worker then skips
    it), and the predictions waiting for it given their verdicts. `result` is a
    tutor.sandbox result; returns the run kept, or None when one was already finished."""
    done = {
        "status": result.status,
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "truncated": result.truncated,
        "duration_ms": result.duration_ms,
        "finished_at": timezone.now(),
    }
    with transaction.atomic():
        Snippet.objects.select_for_update().filter(pk=snippet.pk).values_list("pk").first()
        found = Run.objects.reveals_of(snippet).exclude(status=Run.Status.FAILED).first()
        if found is not None and found.is_final:
            return None
        if found is not None:
            if not Run.objects.filter(pk=found.pk, status=Run.Status.QUEUED).update(**done):
                return None  # a worker is running it now: its result will do
            run = Run.objects.get(pk=found.pk)
        else:
            run = Run.objects.create(
                snippet=snippet, purpose=Run.Purpose.REVEAL, code=snippet.code,
                stdin=snippet.stdin, started_at=done["finished_at"], **done,
            )  # fmt: skip
    run_notices.announce(run.pk)
    settle_predictions_for_run(run=run)
    return run


def _reusable_reveal(snippet: Snippet) -> Run | None:
    run = Run.objects.reveals_of(snippet).exclude(status=Run.Status.FAILED).first()
    if run is not None and not run.is_final and run.fail_if_stale():
        return None
    return run


def verdict_for(prediction: Prediction, run: Run) -> str:
    """The verdict once the real output is known (said-out-loud ones wait for the self-check)."""
    if prediction.said_out_loud:
        return prediction.verdict
    if compare_prediction(prediction.text, run.stdout, error=run.raised).is_right:
        return Prediction.Verdict.RIGHT
    return Prediction.Verdict.WRONG


def prediction_words(verdict: str) -> str:
    """A settled prediction in the live view's words: "predicted — right"."""
    return f"predicted — {Prediction.Verdict(verdict).label.lower()}"


def settle_predictions(*, predictions: list[Prediction], run: Run) -> list[Prediction]:
    """Give pending predictions their verdict from a final reveal run; returns those changed.

    One short transaction per learner, and the verdict is compared before it: a class
    whose reveal arrives together is settled by each learner's own request and by the
    worker at once, and whichever comes second finds nothing left to do.
    """
    if not run.is_final or run.status == Run.Status.FAILED:
        return []
    changed = []
    for prediction in predictions:
        if prediction.verdict != Prediction.Verdict.PENDING:
            continue
        verdict = verdict_for(prediction, run)
        with transaction.atomic(savepoint=False):
            settled = Prediction.objects.pending().filter(pk=prediction.pk).update(verdict=verdict)
            if settled:
                # the live view's "predicted" gets its verdict, while they are still there
                learner_worked(user=prediction.user, block=prediction.snippet.block,
                               what=prediction_words(verdict), failed=False, later=True,
                               counts=True)  # fmt: skip
        prediction.verdict = verdict  # the same whoever gave it
        if settled:
            changed.append(prediction)
    return changed


def settle_predictions_for_run(*, run: Run) -> list[Prediction]:
    """The worker finished a reveal run: give every prediction waiting for it its verdict."""
    if run.purpose != Run.Purpose.REVEAL or run.snippet is None:
        return []
    snippet = run.snippet
    if not run.shows(snippet):
        return []  # the snippet changed since; its new version has a reveal run of its own
    waiting = list(
        Prediction.objects.pending()
        .filter(snippet=snippet, snippet_version=snippet.version)
        .select_related("user", "snippet__block__lesson")
    )
    return settle_predictions(predictions=waiting, run=run)


class PredictionRefused(Exception):
    """The learner may not send another prediction right now; the message says why."""


def submit_prediction(
    *, user: AbstractBaseUser, snippet: Snippet, text: str, said_out_loud: bool
) -> tuple[Prediction, Run]:
    """Store what the learner said and start (or reuse) the run that reveals the answer.

    The first prediction on a version of the snippet is the one that counts; later ones
    are kept with is_first=False.
    """
    run = reveal_run(snippet=snippet)  # first, in its own short transaction
    # The output is known already (made ahead when the snippet was saved: the usual case),
    # so a typed prediction is compared now, before the transaction: it is stored with its
    # verdict and told to the live view once, and the click holds the write lock for an
    # insert and the progress recount, not for a pending row and its settling as well.
    prediction = Prediction(
        user=user,
        snippet=snippet,
        snippet_version=snippet.version,
        text="" if said_out_loud else text,
        said_out_loud=said_out_loud,
        verdict=Prediction.Verdict.SELF_UNCHECKED if said_out_loud else Prediction.Verdict.PENDING,
    )
    if run.is_final and run.status != Run.Status.FAILED:
        prediction.verdict = verdict_for(prediction, run)
    verdict = prediction.verdict
    with transaction.atomic():
        lock_learner(user)  # so the count and whether this one is first are exact
        since = timezone.now() - timedelta(minutes=1)
        this_version = Q(snippet=snippet, snippet_version=snippet.version, is_first=True)
        found = Prediction.objects.filter(user=user).aggregate(
            recent=Count("pk", filter=Q(created_at__gte=since)),
            firsts=Count("pk", filter=this_version),
        )
        recent = found["recent"]
        if recent >= settings.PREDICTIONS_PER_MINUTE:
            raise PredictionRefused(
                _(
                    "That's %(recent)s predictions in the last minute, the most Parsnip takes. "
                    "Read the answer you have, then try again in a moment."
                )
                % {"recent": recent}
            )
        # Under the learner's lock no other first prediction can be saved meanwhile (the
        # constraint one_first_prediction_per_version still stands guard).
        prediction.is_first = not found["firsts"]
        prediction.save()
        if verdict in (Prediction.Verdict.RIGHT, Prediction.Verdict.WRONG):
            learner_worked(user=user, block=snippet.block, what=prediction_words(verdict), failed=False, counts=True)
        else:
            learner_worked(user=user, block=snippet.block, what="said it out loud" if said_out_loud else "predicted", failed=False)
            # A prediction still waiting for its output counts for nothing yet: whoever
            # gives it its verdict counts it. It starts the lesson, though (a write only
            # the first time, then one query).
            if verdict == Prediction.Verdict.PENDING:
                start_lesson(user=user, lesson=snippet.block.lesson)
            else:
                refresh_lesson_progress(user=user, lesson=snippet.block.lesson)
    if prediction.verdict == Prediction.Verdict.PENDING:
        # The worker may have finished the run since reveal_run read it, and given their
        # verdicts to the predictions waiting then -- not this one, not yet committed. Each
        # side writes, then reads the other's: the worker saves the output, then looks for
        # predictions; this click saves its prediction, then reads the run. Whichever reads
        # second finds the other's write and gives the verdict (twice is harmless). No lock
        # on the shared run: a class revealing together would queue on it one by one.
        run = Run.objects.get(pk=run.pk)
        settle_predictions(predictions=[prediction], run=run)
    return prediction, run


def retry_reveal(*, prediction: Prediction) -> Run:
    """Queue the reveal again after the sandbox could not run it; the prediction is kept."""
    return reveal_run(snippet=prediction.snippet)


class SelfCheckRefused(Exception):
    """The learner cannot mark this prediction now; the message says why."""


def record_self_check(*, prediction: Prediction, got_it: bool) -> Prediction:
    """The learner's honest answer to "did you get it?" after saying it out loud.

    Only once, and only after the real output is on the page: a learner cannot claim a
    right answer before seeing it, nor change their word later.
    """
    with transaction.atomic():
        # Locked, so two answers sent at once cannot both count.
        locked = Prediction.objects.select_for_update().get(pk=prediction.pk)
        if not locked.said_out_loud:
            raise SelfCheckRefused(_("This prediction was typed: it is checked for you."))
        if locked.verdict != Prediction.Verdict.SELF_UNCHECKED:
            raise SelfCheckRefused(_("You have already said whether you got it."))
        snippet = prediction.snippet
        if locked.snippet_version != snippet.version:
            raise SelfCheckRefused(_("The code has changed since: predict what it prints now."))
        answer_known = (
            Run.objects.final().reveals_of(snippet).exclude(status=Run.Status.FAILED).exists()
        )
        if not answer_known:
            raise SelfCheckRefused(
                _("Wait for the real output first, then say whether you got it.")
            )
        prediction.verdict = (
            Prediction.Verdict.SELF_RIGHT if got_it else Prediction.Verdict.SELF_WRONG
        )
        prediction.save(update_fields=["verdict"])
        learner_worked(user=prediction.user, block=snippet.block,
                       what="said they got it" if got_it else "said they didn't get it", counts=True)  # fmt: skip
    return prediction


def run_own_version(
    *, user: AbstractBaseUser, snippet: Snippet, code: str, prediction: str, stdin: str = ""
) -> Run:
    """Run the learner's edited code (with `stdin`) together with what they said it would print.

    The prediction is kept beside the run, never as a Prediction of the snippet: the
    first prediction stays the one that counts. RunRefused, as queue_run, stores neither.
    """
    with transaction.atomic():
        run = queue_run(code=code, stdin=stdin, user=user, snippet=snippet)
        VersionPrediction.objects.create(user=user, snippet=snippet, run=run, text=prediction)
    return run


def save_draft(*, user: AbstractBaseUser, snippet: Snippet, code: str) -> CodeDraft | None:
    """Keep the learner's edited code; code equal to the original needs no draft."""
    if code == snippet.code:
        discard_draft(user=user, snippet=snippet)
        return None
    return keep_draft(CodeDraft, code=code, user=user, snippet=snippet)


def discard_draft(*, user: AbstractBaseUser, snippet: Snippet) -> None:
    """Back to the original code: forget the learner's edits."""
    CodeDraft.objects.filter(user=user, snippet=snippet).delete()


class BrowserRunsRefused(Exception):
    """The learner's browser may not report more runs right now; the message says why."""


def record_browser_runs(*, user: AbstractBaseUser, snippet: Snippet, runs: list[dict]) -> list[Run]:
    """Keep the runs the learner's browser made of their version (validated by
    BrowserRunsForm) as Runs flagged `in_browser`, final as reported: for their trail, the
    teacher's views and their run count. They decide nothing: no prediction, test or reveal
    reads a run of purpose RUN, and the browser's are never queued for the worker."""
    now = timezone.now()
    with transaction.atomic():
        lock_learner(user)  # so the count and the rows it allows are one step
        recent = Run.objects.filter(
            user=user, in_browser=True, created_at__gte=now - timedelta(minutes=1)
        ).count()
        if recent + len(runs) > settings.BROWSER_RUNS_PER_MINUTE:
            raise BrowserRunsRefused(
                f"That's more than {settings.BROWSER_RUNS_PER_MINUTE} runs in the browser in "
                "a minute, the most Parsnip records."
            )
        rows = Run.objects.bulk_create(
            [
                Run(user=user, snippet=snippet, purpose=Run.Purpose.RUN, in_browser=True,
                    code_hash=code_digest(run["code"]), created_at=now, started_at=now,
                    finished_at=now, **run)  # fmt: skip
                for run in runs
            ]
        )
        count_run(user=user, lesson=snippet.block.lesson, runs=len(rows))
        learner_worked(user=user, block=snippet.block, what="ran their code in the browser")
    for run in runs:
        trail.record_moment(user=user, block=snippet.block, what=trail.BROWSER_RUN, code=run["code"])
    return rows
