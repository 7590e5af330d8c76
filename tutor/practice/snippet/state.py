"""One learner's state on snippets: what a snippet's practice panel shows.

Read only: the panel is shown by page views (GET), which never write.
"""

from dataclasses import dataclass
from functools import cached_property

from django.contrib.auth.models import AbstractBaseUser

from course.kinds.snippet import Snippet
from tutor.actions.runs import limits_for
from tutor.feedback import Explanation, explain_run
from tutor.forms import grouped_number
from tutor.grading import PredictionComparison, compare_prediction
from tutor.models import Run, code_digest
from tutor.practice.snippet.browser import browser_run_settings
from tutor.practice.snippet.models import CodeDraft, Prediction, VersionPrediction

MAX_PREDICTION_CHARS = 5_000
# A longer comparison shows this many lines and folds the rest, so the table stays readable.
COMPARISON_LINES_SHOWN = 40


def output_lines(text: str) -> list[str]:
    """Output as lines for display; the final newline does not make an empty line."""
    text = text.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


@dataclass
class SnippetPractice:
    """One learner's state on one snippet: what the practice panel shows."""

    snippet: Snippet
    prediction: Prediction | None = None  # the first one on the current version
    reveal: Run | None = None  # the shared run that shows what this version prints
    draft: CodeDraft | None = None
    run: Run | None = None  # the learner's run to show (after a plain POST)

    prediction_limit = MAX_PREDICTION_CHARS
    prediction_limit_text = grouped_number(MAX_PREDICTION_CHARS)

    @property
    def revealed(self) -> bool:
        return self.prediction is not None

    @property
    def code(self) -> str:
        return self.draft.code if self.draft else self.snippet.code

    @property
    def code_rows(self) -> int:
        return min(max(self.code.count("\n") + 2, 6), 30)

    @property
    def answer_known(self) -> bool:
        return (
            self.reveal is not None
            and self.reveal.is_final
            and self.reveal.status != Run.Status.FAILED
        )

    @property
    def reveal_failed(self) -> bool:
        return self.reveal is not None and self.reveal.status == Run.Status.FAILED

    @property
    def waiting(self) -> bool:
        return self.revealed and not self.answer_known and not self.reveal_failed

    @property
    def real_output(self) -> list[str]:
        return output_lines(self.reveal.stdout) if self.answer_known else []

    @property
    def predicted_lines(self) -> list[str]:
        return output_lines(self.prediction.text) if self.prediction else []

    @cached_property
    def comparison(self) -> PredictionComparison | None:
        if not self.answer_known or self.prediction.said_out_loud:
            return None
        return compare_prediction(self.prediction.text, self.reveal.stdout, error=self.reveal.raised)

    @property
    def stdin(self) -> str:
        """What the Run form's input box holds: the shown run's input, else the snippet's."""
        return self.run.stdin if self.run is not None else self.snippet.stdin

    @cached_property
    def browser_run(self) -> dict:
        """What the run form needs to run the learner's version in their browser."""
        return browser_run_settings(self.snippet)

    @property
    def run_explanation(self) -> Explanation | None:
        """What went wrong with the shown run, in a beginner's words."""
        run = self.run
        if run is None or not run.is_final:
            return None
        return explain_run(
            status=run.status, stderr=run.stderr, exit_code=run.exit_code, stdin=run.stdin,
            limits=limits_for(self.snippet),
        )

    @property
    def comparison_lines_shown(self) -> list:
        return self.comparison.lines[:COMPARISON_LINES_SHOWN] if self.comparison else []

    @property
    def comparison_lines_folded(self) -> list:
        return self.comparison.lines[COMPARISON_LINES_SHOWN:] if self.comparison else []

    @cached_property
    def own_comparison(self) -> PredictionComparison | None:
        """The learner's prediction of their own version against what the run printed."""
        run = self.run
        if run is None or not run.is_final or run.status == Run.Status.FAILED:
            return None
        try:
            own = run.version_prediction
        except VersionPrediction.DoesNotExist:
            return None
        return compare_prediction(own.text, run.stdout, error=run.raised)

    @property
    def needs_self_check(self) -> bool:
        return (
            self.answer_known
            and self.prediction.said_out_loud
            and self.prediction.verdict == Prediction.Verdict.SELF_UNCHECKED
        )


def pick_reveal_runs(runs: list[Run]) -> dict[tuple[str, str], Run]:
    """Per code hash and input: the latest run that could run, else the latest failure
    (runs newest first)."""
    chosen: dict[tuple[str, str], Run] = {}
    for run in runs:
        current = chosen.get((run.code_hash, run.stdin))
        if current is None or (
            current.status == Run.Status.FAILED and run.status != Run.Status.FAILED
        ):
            chosen[run.code_hash, run.stdin] = run
    return chosen


def practices(
    user: AbstractBaseUser, snippets: list[Snippet], *, run_id: int | None = None
) -> dict[int, SnippetPractice]:
    """Each snippet's state for this learner, by snippet pk: three queries for any number of
    snippets (one more to show a run after a plain POST). Reads only: a verdict still to be
    given is given by the worker (or the repair sweep), and a run whose worker is gone is
    shown as failed (`Run.as_seen`) until the sweep records it so."""
    found = {snippet.pk: SnippetPractice(snippet) for snippet in snippets}
    if not snippets:
        return found
    by_pk = {snippet.pk: snippet for snippet in snippets}
    for prediction in Prediction.objects.filter(user=user, snippet__in=snippets, is_first=True):
        snippet = by_pk[prediction.snippet_id]
        if prediction.snippet_version == snippet.version:
            prediction.snippet = snippet
            found[snippet.pk].prediction = prediction
    for draft in CodeDraft.objects.filter(user=user, snippet__in=snippets):
        found[draft.snippet_id].draft = draft
    revealed = [practice for practice in found.values() if practice.revealed]
    if revealed:
        hashes = {code_digest(practice.snippet.code) for practice in revealed}
        runs = pick_reveal_runs(
            list(Run.objects.filter(purpose=Run.Purpose.REVEAL, code_hash__in=hashes))
        )
        for practice in revealed:
            snippet = practice.snippet
            practice.reveal = runs.get((code_digest(snippet.code), snippet.stdin))
    if run_id is not None:
        run = Run.objects.filter(
            pk=run_id, user=user, purpose=Run.Purpose.RUN, snippet__in=snippets
        ).first()
        if run is not None:
            found[run.snippet_id].run = run
    for practice in found.values():
        for run in (practice.reveal, practice.run):
            if run is not None:
                run.as_seen()
    return found


def practice_of(user: AbstractBaseUser, snippet: Snippet, **kwargs) -> SnippetPractice:
    return practices(user, [snippet], **kwargs)[snippet.pk]


def practice_after_reveal(
    user: AbstractBaseUser, snippet: Snippet, *, prediction: Prediction, reveal: Run
) -> SnippetPractice:
    """The panel a reveal answers with: the learner's first prediction and the reveal run
    are in hand, so only their draft is read (`practice_of` when the prediction sent was
    not the one that counts)."""
    if not prediction.is_first or prediction.snippet_version != snippet.version:
        return practice_of(user, snippet)
    draft = CodeDraft.objects.filter(user=user, snippet=snippet).first()
    reveal.as_seen()
    return SnippetPractice(snippet, prediction=prediction, reveal=reveal, draft=draft)
