"""Run snippets in the sandbox and compare what they print with what they declare.

Used by `manage.py check_content` and the admin's "Check outputs" action.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from course.models import Snippet
from tutor import sandbox
from tutor.actions.runs import limits_for
from tutor.grading import outputs_match


@dataclass(frozen=True)
class SnippetCheck:
    snippet: Snippet
    status: str
    printed: str
    stderr: str

    @property
    def matches(self) -> bool:
        return self.status == "ok" and outputs_match(self.printed, self.snippet.expected_output)

    @property
    def exact(self) -> bool:
        return self.matches and self.printed == self.snippet.expected_output

    @property
    def where(self) -> str:
        lesson = self.snippet.block.lesson
        return f"{lesson.course.slug}/{lesson.slug} · {self.snippet.block.key}"


def check_snippets(snippets: Iterable[Snippet]) -> list[SnippetCheck]:
    """Run each snippet; raises sandbox.SandboxUnavailable if code cannot run here at all."""
    checks = []
    for snippet in snippets:
        result = sandbox.run(
            snippet.code, limits=limits_for(snippet), backend=settings.SANDBOX_BACKEND
        )
        checks.append(SnippetCheck(snippet, result.status, result.stdout, result.stderr))
    return checks


def snippets_in_order():
    return Snippet.objects.select_related("block__lesson__course").order_by(
        "block__lesson__course__position", "block__lesson__position", "block__position"
    )
