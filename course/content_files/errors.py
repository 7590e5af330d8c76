import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class ContentError:
    """One problem in one content file, shown as `path:line: message` like a compiler."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class ContentErrors(Exception):
    """Every problem found; nothing was changed."""

    def __init__(self, errors: Iterable[ContentError]):
        self.errors = sorted(set(errors), key=lambda e: (e.path, e.line or 0, e.message))
        super().__init__(self.report())

    def report(self) -> str:
        count = len(self.errors)
        heading = f"{count} problem{'s' if count != 1 else ''} in the content files; nothing was imported."
        return "\n".join([heading, *(str(error) for error in self.errors)])


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' when a choice is close to `word`, else ''."""
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
