"""A group of the same wrong answer, as every practice kind returns it."""

import hashlib
import json
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

SHOWN_CHARS = 60  # a line quoted in a description is cut after this many characters


@dataclass
class Group:
    """The students whose latest answer on an item is wrong in the same way.

    `key` names the normalised answer (the same for every answer that normalises alike);
    `description` says what is wrong in plain words; `answer` is the normalised answer
    itself, shown on the projector (never a name)."""

    key: str
    description: str
    answer: str
    students: set[int] = field(default_factory=set)
    label: str = ""  # a few words ("Line 2 differs"); the description says it in full
    marked: frozenset[int] = frozenset()  # the answer's lines (0-based) that differ
    right_marked: frozenset[int] = frozenset()  # the right answer's lines they do not match

    @property
    def count(self) -> int:
        return len(self.students)


@dataclass
class Distribution:
    """How a class answered one item: the latest answer of each student who answered."""

    block_id: int
    right: int = 0
    groups: list[Group] = field(default_factory=list)  # most students first
    other_wrong: int = 0  # wrong with nothing to group by (said out loud, not tested)
    right_answer: str = ""  # what a right answer is, for kinds that have one to show

    @property
    def wrong(self) -> int:
        return sum(group.count for group in self.groups) + self.other_wrong

    @property
    def answered(self) -> int:
        return self.right + self.wrong

    @property
    def right_percent(self) -> int | None:
        return round(100 * self.right / self.answered) if self.answered else None

    def group(self, key: str) -> Group | None:
        return next((group for group in self.groups if group.key == key), None)


def group_key(*parts) -> str:
    """A short stable name for a normalised answer (its parts: strings, numbers, lists)."""
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def quoted(text: str | None) -> str:
    """A line as a description quotes it: in backticks, cut when long, empty said so."""
    if text is None or text.strip() == "":
        return _("an empty line")
    text = text.strip().replace("`", "ʼ")  # a backtick would end the quote early
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 1] + "…"
    return f"`{text}`"


def joined(parts: list[str], *, most: int = 3) -> str:
    """The first `most` differences, and how many more there are."""
    shown = "; ".join(parts[:most])
    if len(parts) > most:
        more = len(parts) - most
        shown += "; " + ngettext(
            "and %(n)s more difference", "and %(n)s more differences", more
        ) % {"n": more}
    return shown


def gather(
    block_id: int,
    right: set[int],
    wrong: dict[int, Group],
    other_wrong: set[int] = frozenset(),
    *,
    right_answer: str = "",
) -> Distribution:
    """A distribution from each student's verdict: `right` students, and each wrong
    student's group (groups made per student are merged by key)."""
    groups: dict[str, Group] = {}
    for user_id, group in wrong.items():
        groups.setdefault(
            group.key,
            Group(
                group.key,
                group.description,
                group.answer,
                label=group.label,
                marked=group.marked,
                right_marked=group.right_marked,
            ),
        ).students.add(user_id)
    ordered = sorted(groups.values(), key=lambda group: (-group.count, group.description))
    return Distribution(
        block_id,
        right=len(right),
        groups=ordered,
        other_wrong=len(other_wrong),
        right_answer=right_answer,
    )
