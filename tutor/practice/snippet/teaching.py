"""What teachers see of snippets: the class's first predictions on each snippet of a
lesson, a student's predictions and runs in their timeline, and the attempts CSV rows."""

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q

from course.kinds.snippet import Snippet
from tutor import teaching
from tutor.feedback import raised_by
from tutor.grading import compare_prediction, output_lines
from tutor.models import Run
from tutor.practice.snippet.models import Prediction, VersionPrediction


@dataclass
class SnippetAnalysis:
    key: str
    title: str
    code: str
    expected_output: str
    version: int
    first: int = 0  # first predictions on the current version that have a verdict
    right: int = 0
    waiting: int = 0
    unchecked: int = 0  # said out loud and not marked
    wrong_answers: list[teaching.CommonAnswer] = field(default_factory=list)
    older: list[teaching.VersionShare] = field(default_factory=list)

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.first) if self.first else None


RIGHT = {Prediction.Verdict.RIGHT, Prediction.Verdict.SELF_RIGHT}
GRADED = RIGHT | {Prediction.Verdict.WRONG, Prediction.Verdict.SELF_WRONG}


def analyse_snippet(snippet, predictions: Iterable[tuple], *, top: int = 5) -> SnippetAnalysis:
    """predictions: first predictions on this snippet as (version, verdict, text, student name)."""
    analysis = SnippetAnalysis(
        snippet.key, snippet.title, snippet.code, snippet.expected_output, snippet.version
    )
    older: dict[int, teaching.VersionShare] = {}
    wrong: dict[str, list[str]] = defaultdict(list)
    for version, verdict, text, name in predictions:
        if version != snippet.version:
            share = older.setdefault(version, teaching.VersionShare(version, 0, 0))
            if verdict in GRADED:
                share.first += 1
                share.right += verdict in RIGHT
            continue
        if verdict == Prediction.Verdict.PENDING:
            analysis.waiting += 1
        elif verdict == Prediction.Verdict.SELF_UNCHECKED:
            analysis.unchecked += 1
        elif verdict in GRADED:
            analysis.first += 1
            analysis.right += verdict in RIGHT
            if verdict == Prediction.Verdict.WRONG:
                wrong["\n".join(output_lines(text))].append(name)
    groups = sorted(wrong.items(), key=lambda item: (-len(item[1]), item[0]))
    analysis.wrong_answers = [
        teaching.CommonAnswer(text, len(names), sorted(names, key=str.casefold)) for text, names in groups[:top]
    ]
    analysis.older = sorted(older.values(), key=lambda share: share.version, reverse=True)
    return analysis



PERSON = ("user__username", "user__first_name", "user__last_name")


def analyses(*, in_class: Q, lesson) -> list[SnippetAnalysis]:
    snippets = list(
        Snippet.objects.filter(block__lesson=lesson).select_related("block").order_by("block__position")
    )
    predictions = teaching.grouped(
        Prediction.objects.filter(in_class, snippet__in=snippets, is_first=True).values_list(
            "snippet_id", "snippet_version", "verdict", "text", *PERSON,
        ),
        lambda row: (row[1], row[2], row[3], teaching.student_name(*row[4:])),
    )
    return [analyse_snippet(s, predictions.get(s.pk, [])) for s in snippets]


def events(*, student, limit: int) -> list[teaching.Event]:
    predictions = (
        Prediction.objects.filter(user=student)
        .select_related("snippet__block__lesson__course")
        .order_by("-created_at", "-pk")[:limit]
    )
    runs = (
        Run.objects.filter(user=student, purpose=Run.Purpose.RUN)
        .select_related("snippet__block__lesson__course")
        .order_by("-created_at", "-pk")[:limit]
    )
    return [
        *(teaching.Event("prediction", p.created_at, p, "tutor/teaching/kinds/prediction_event.html") for p in predictions),
        *(teaching.Event("run", r.created_at, r, "tutor/teaching/kinds/run_event.html") for r in runs),
    ]


def attempt_rows(*, in_class: Q, chunk: int) -> list[Iterator[tuple[datetime, list]]]:
    """Every prediction, prediction of their own version and run of the class's students,
    each stream oldest first (the caller merges every kind's streams)."""
    titles = {s.pk: s.title for s in Snippet.objects.select_related("block")}

    def predictions():
        rows = (
            Prediction.objects.filter(in_class)
            .order_by("created_at", "pk")
            .values_list(
                "created_at", *PERSON, "snippet__block__lesson__course__title",
                "snippet__block__lesson__title", "snippet_id", "snippet_version",
                "verdict", "is_first", "text",
            )
            .iterator(chunk_size=chunk)
        )
        for when, username, first, last, course, lesson, snippet, version, verdict, is_first, text in rows:
            yield when, [
                "prediction", username, f"{first} {last}".strip(), when.isoformat(), course, lesson,
                titles.get(snippet, ""), version, verdict, "yes" if is_first else "no",
                text, "", "", "",
            ]

    def version_predictions():
        rows = (
            VersionPrediction.objects.filter(in_class)
            .order_by("created_at", "pk")
            .values_list(
                "created_at", *PERSON, "snippet__block__lesson__course__title",
                "snippet__block__lesson__title", "snippet_id", "text", "run__stdout", "run__stderr",
                "run__status",
            )
            .iterator(chunk_size=chunk)
        )
        for when, username, first, last, course, lesson, snippet, text, stdout, stderr, status in rows:
            verdict = ""
            if status in Run.FINAL_STATUSES and status != Run.Status.FAILED:
                # Graded as on the page: the error the version ends with is its last line.
                error = raised_by(status=status, stderr=stderr)
                verdict = "right" if compare_prediction(text, stdout, error=error).is_right else "wrong"
            yield when, [
                "prediction of their version", username, f"{first} {last}".strip(), when.isoformat(),
                course, lesson, titles.get(snippet, ""), "", verdict, "no", text, stdout,
                "", status,
            ]

    def runs():
        rows = (
            Run.objects.filter(in_class)
            .exclude(purpose__in=[Run.Purpose.CHECK, Run.Purpose.GRADE])  # in their kinds' rows
            .order_by("created_at", "pk")
            .values_list(
                "created_at", *PERSON, "snippet__block__lesson__course__title",
                "snippet__block__lesson__title", "snippet_id", "purpose", "code",
                "stdout", "stderr", "status",
            )
            .iterator(chunk_size=chunk)
        )
        for when, username, first, last, course, lesson, snippet, purpose, code, stdout, stderr, status in rows:
            yield when, [
                "run" if purpose == Run.Purpose.RUN else purpose, username, f"{first} {last}".strip(),
                when.isoformat(), course or "", lesson or "", titles.get(snippet, ""),
                "", "", "", code, stdout + stderr, "", status,
            ]

    return [predictions(), version_predictions(), runs()]
