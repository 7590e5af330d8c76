"""A teacher's question bank from another platform, brought into the content files.

`moodle.py` reads and writes Moodle XML, `gift.py` reads and writes GIFT; each turns a
bank into `Question`s in the content files' terms (a kind and its fields) and lists what it
cannot bring over (`LeftOut`) or brings over changed (`Question.changes`), never dropping
anything silently. `checked` runs each question through its kind's one check (the files'
and the admin's), so nothing they would refuse is brought over; `lesson_file.py` writes the
questions into a lesson's file for the teacher to review and `import_content` to read.
"""

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from course import kinds
from course.content_files.reader import check_block

MAX_BANK_BYTES = 20 * 1024 * 1024  # a bank of thousands of questions is far smaller


class BankRefused(Exception):
    """The file as a whole cannot be read (hostile XML, not UTF-8, not a bank at all)."""


@dataclass
class Question:
    """One question brought over: its name in the bank, its kind and its fields as a
    content file writes them (without kind and key), and what changed on the way."""

    name: str
    kind: str
    values: dict[str, Any]
    changes: list[str] = field(default_factory=list)


@dataclass
class LeftOut:
    """A question that is not brought over: its name, its type in the bank, and why."""

    name: str
    type: str
    why: str


@dataclass
class Bank:
    questions: list[Question] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)  # the bank's, in order: named in the report

    def report(self) -> list[str]:
        """What a teacher reads: what was not brought over and what changed, one a line."""
        lines = []
        if self.categories:
            lines.append(
                _("Categories in the bank: %(names)s") % {"names": ", ".join(self.categories)}
            )
        if self.left_out:
            lines.append(_("Not brought over (%(count)d):") % {"count": len(self.left_out)})
            lines += [f"  '{item.name}' ({item.type}): {item.why}" for item in self.left_out]
        changed = [question for question in self.questions if question.changes]
        if changed:
            lines.append(_("Brought over with changes (%(count)d):") % {"count": len(changed)})
            for question in changed:
                lines += [f"  '{question.name}': {change}" for change in question.changes]
        return lines


def normalised_text(data: bytes) -> str:
    """A bank's bytes as text, normalised once where it enters: UTF-8 (a byte-order mark
    dropped), line breaks as \\n, Unicode in NFC."""
    if len(data) > MAX_BANK_BYTES:
        raise BankRefused(
            _("the file is %(size)d MB; a question bank may be at most %(limit)d MB")
            % {"size": len(data) // 2**20, "limit": MAX_BANK_BYTES // 2**20}
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BankRefused(
            _("the file is not UTF-8 text (byte %(at)d): save it as UTF-8 and try again")
            % {"at": error.start}
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return unicodedata.normalize("NFC", text)


def checked(bank: Bank) -> Bank:
    """The bank with every question that its kind's one check refuses moved to `left_out`,
    with the check's own words (what the files and the admin would say)."""
    kept = Bank(left_out=list(bank.left_out), categories=list(bank.categories))
    for question in bank.questions:
        problems = check_block(kinds.get(question.kind), question.values, glossary=())
        if problems:
            why = "; ".join(message for messages in problems.values() for message in messages)
            kept.left_out.append(LeftOut(question.name, question.kind, why))
        else:
            kept.questions.append(question)
    return kept


def name_of(text: str, limit: int = 60) -> str:
    """A question's name from its text, when the bank gives none (as Moodle makes one)."""
    words = " ".join(re.sub(r"<[^>]*>", " ", text).split())
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"


def questions_of(lesson) -> list[Question]:
    """A lesson's questions (its blocks of a question kind), as the content files write
    them: what `write_moodle` and `write_gift` take."""
    from course.content_files.exporter import written
    from course.kinds.fields import plain
    from course.kinds.questions import QuestionKind

    found = []
    for block in lesson.blocks.order_by("position", "pk"):
        kind = kinds.get(block.kind)
        if isinstance(kind, QuestionKind):
            values = plain(written(kind.fields, kind.values_of(block)))
            found.append(Question(name=block.title or block.key, kind=block.kind, values=values))
    return found
