"""An author's check of snippets: run them in the sandbox and compare what they do with
what they declare.

A snippet declares what it prints (`expected_output`) and, when it fails on purpose, the
exception it ends with (`raises`); it runs fed its declared input (`stdin`).
`manage.py check_content` runs them here and now (a command line has no worker to wait
for), and keeps each output as its version's reveal run; the admin's "Check outputs" action queues Run rows for the worker, like any run, and
its results page compares them once they are final.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from course.kinds.snippet import Snippet
from tutor import sandbox
from tutor.actions.runs import limits_for, queue_run
from tutor.feedback import RaisedException, raised_by
from tutor.grading import outputs_match
from tutor.models import Run, code_digest
from tutor.practice.snippet.actions import keep_as_reveal


@dataclass(frozen=True)
class SnippetCheck:
    snippet: Snippet
    status: str
    printed: str
    stderr: str
    pending: bool = False  # a queued run the worker has not finished
    outdated: bool = False  # the snippet's code changed since the run

    @classmethod
    def of_run(cls, run: Run) -> "SnippetCheck":
        return cls(
            run.snippet,
            run.status,
            run.stdout,
            run.stderr,
            pending=not run.is_final,
            outdated=run.code_hash != code_digest(run.snippet.code),
        )

    @property
    def raised(self) -> RaisedException | None:
        return raised_by(status=self.status, stderr=self.stderr)

    @property
    def ends_as_declared(self) -> bool:
        """Finished without an error, or failed with the declared exception."""
        if not self.snippet.raises:
            return self.status == "ok"
        return self.raised is not None and self.snippet.raised(self.raised.name)

    @property
    def matches(self) -> bool:
        return (
            self.ends_as_declared
            and not self.outdated
            and outputs_match(self.printed, self.snippet.expected_output)
        )

    @property
    def exact(self) -> bool:
        return self.matches and self.printed == self.snippet.expected_output

    @property
    def where(self) -> str:
        lesson = self.snippet.block.lesson
        return f"{lesson.course.slug}/{lesson.slug} · {self.snippet.block.key}"

    @property
    def ok(self) -> bool:
        return not self.pending and self.matches

    @property
    def ok_note(self) -> str:
        return "" if self.exact else " (differs only in trailing blank space)"

    @property
    def mismatch_note(self) -> str:
        return f" (status: {self.status})"

    @property
    def report(self) -> list[str]:
        """What the command prints under a mismatch: how it ended, if not as declared, and
        what it declares against what it printed."""
        lines = [f"  it {self.problems[0]}"] if not self.ends_as_declared else []
        lines += ["  declared:\n" + _indent(self.snippet.expected_output),
                  "  printed:\n" + _indent(self.printed)]  # fmt: skip
        if self.stderr:
            lines.append("  stderr:\n" + _indent(self.stderr))
        return lines

    @property
    def problems(self) -> list[str]:
        """What differs from the declaration, one sentence each (none when it matches)."""
        problems = []
        declared = self.snippet.raises
        if not self.ends_as_declared:
            if self.raised is not None:
                ended = f"stops with {self.raised.line}"
            elif self.status == "ok":
                ended = "finishes without an error"
            else:
                ended = f"ends with status {self.status}"
            wanted = f"stop with {declared}" if declared else "finish without an error"
            problems.append(f"should {wanted} but {ended}")
        if not outputs_match(self.printed, self.snippet.expected_output):
            problems.append(
                f"declares {self.snippet.expected_output!r} but prints {self.printed!r}"
            )
        return problems


def check_snippets(snippets: Iterable[Snippet]) -> list[SnippetCheck]:
    """Run each snippet; raises sandbox.SandboxUnavailable if code cannot run here at all."""
    checks = []
    for snippet in snippets:
        result = sandbox.run(
            snippet.code,
            stdin=snippet.stdin,
            limits=limits_for(snippet),
            backend=settings.SANDBOX_BACKEND,
        )
        checks.append(SnippetCheck(snippet, result.status, result.stdout, result.stderr))
        # What it printed is what a learner's reveal shows: kept, a reveal needs no run.
        keep_as_reveal(snippet=snippet, result=result)
    return checks


def _indent(text: str) -> str:
    return "\n".join(f"    |{line}" for line in text.split("\n"))


def snippets_in_order():
    return Snippet.objects.select_related("block__lesson__course").order_by(
        "block__lesson__course__position", "block__lesson__position", "block__position"
    )


def queue_content_checks(*, snippets: Iterable[Snippet]) -> list[Run]:
    """One Run for the worker per snippet (never run in the web process). They belong to
    no learner: an admin checking a course is not spending a learner's run allowance."""
    with transaction.atomic():
        return [
            queue_run(
                code=snippet.code, stdin=snippet.stdin, snippet=snippet,
                purpose=Run.Purpose.CONTENT,
            )
            for snippet in snippets
        ]


def content_check_runs(run_ids: Iterable[int]):
    """The content-check runs with these ids, in the order of the course."""
    return (
        Run.objects.filter(pk__in=list(run_ids), purpose=Run.Purpose.CONTENT, snippet__isnull=False)
        .select_related("snippet__block__lesson__course")
        .order_by(
            "snippet__block__lesson__course__position",
            "snippet__block__lesson__position",
            "snippet__block__position",
            "pk",
        )
    )
