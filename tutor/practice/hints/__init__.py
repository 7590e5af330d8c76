"""Hint ladders: the learner's side of a block's `hints` (course.kinds.fields.Hints).

A write-code exercise, an ordering exercise or a question may carry authored hints. A
learner asks for them one at a time ("Show a hint (1 of 3)"); after the last hint the
ladder's rungs show the solution a piece at a time: a line of the solution's code for an
exercise, a line's place for an ordering exercise, the right answer for a question (which
then finishes it, as using every try does). Each rung taken is a HintUse row; the page
shows the rungs up to the highest taken and nothing beyond (`ladders`), the one POST takes
the next (`actions.take_rung`, views.py). Teachers see them in the item analysis, the
student's timeline and the live view (teaching.py); an assignment may state what each
rung costs (`Assignment.hint_cost`), which the ladder says.

Not a practice kind of its own: it serves every kind whose content declares `hints`.
"""

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.humanize.templatetags.humanize import ordinal
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from course import htmx
from course import kinds as content_kinds
from course.kinds.blanks import pieces as blank_pieces
from tutor import practice
from tutor.practice.hints.models import HintUse

QUESTION_KINDS = ("choice", "checkboxes", "number", "blanks", "code_blanks")


def laddered_kinds() -> list[str]:
    """The block kinds whose content may carry hints (they declare the field)."""
    return [kind.name for kind in content_kinds.every() if "hints" in kind.field_names]


def hints_of(block) -> list[str]:
    return list((block.values or {}).get("hints") or [])


@dataclass(frozen=True)
class Rung:
    """One rung shown: a hint, or a piece of the solution."""

    number: int  # from 1
    hint: str = ""  # Markdown: a hint
    code: str = ""  # an exercise: the solution up to this piece
    lines: str = ""  # ... and how much of it that is: "3 of 8 lines"
    line: str = ""  # an ordering exercise: the line placed
    place: str = ""  # ... and its place: "2nd"
    answer: str = ""  # a question: the right answer, in Markdown

    @property
    def is_hint(self) -> bool:
        return bool(self.hint)


def code_pieces(solution: str) -> list[str]:
    """An exercise's solution, a line of code at a time: each piece is the solution up to
    and including its next line that is not blank."""
    lines = solution.rstrip("\n").split("\n")
    return ["\n".join(lines[: n + 1]) for n, line in enumerate(lines) if line.strip()]


def _ordering_lines(block) -> list:
    return [line for line in block.ordering_exercise.lines.all() if not line.is_distractor]


def piece_count(block) -> int:
    if block.kind == "code_exercise":
        return len(code_pieces(block.code_exercise.solution))
    if block.kind == "ordering":
        return len(_ordering_lines(block))
    return 1  # a question: its right answer


def rung_count(block) -> int:
    """How many rungs the block's ladder has: its hints, then its solution's pieces (none
    without hints: a ladder begins with a hint)."""
    hints = hints_of(block)
    return len(hints) + piece_count(block) if hints else 0


def question_answer(block, user) -> str:
    """A question's right answer, in Markdown (the learner's variant's, for a question that
    computes it, once it is finished)."""
    values = block.kind_spec.values_of(block)
    if block.kind in ("choice", "checkboxes", "blanks") and (values.get("program") or "").strip():
        from tutor.practice.questions.state import states  # its state knows the variant's answer

        state = states([block], user=user)[block.pk]
        if not state.finished:
            return _("The right answer is shown with the question.")
        if state.options:
            return "\n".join(f"- {option.text}" for option in state.options if option.right)
        return "".join(piece.text or f"**{piece.accepted}**" for piece in state.pieces)
    if block.kind in ("choice", "checkboxes"):
        return "\n".join(f"- {option['text']}" for option in values["options"] if option.get("right"))
    if block.kind == "blanks":
        answers = {blank["key"]: (blank.get("answers") or [""])[0] for blank in values["blanks"]}
        return "".join(
            text if what == "text" else f"**{answers.get(text, '')}**"
            for what, text in blank_pieces(values["text"])
        )
    if block.kind == "code_blanks":
        from course.kinds.code_blanks import filled, solution_fills

        return "```python\n" + filled(values["code"], solution_fills(values)) + "\n```"
    from tutor.practice.questions.state import states  # its state knows a variant's answer

    number = states([block], user=user)[block.pk].right_number
    if not number:
        return _("The right answer is shown with the question.")
    units = values.get("units") or ""
    return f"**{number}** {units}".strip()


def rung(block, number: int, *, user) -> Rung:
    """The ladder's rung `number` (from 1): what the learner may see once they took it."""
    hints = hints_of(block)
    if number <= len(hints):
        return Rung(number, hint=hints[number - 1])
    piece = number - len(hints)
    if block.kind == "code_exercise":
        pieces = code_pieces(block.code_exercise.solution)
        lines = ngettext("%(n)d of %(total)d line", "%(n)d of %(total)d lines", len(pieces)) % {
            "n": piece, "total": len(pieces)
        }
        return Rung(number, code=pieces[piece - 1], lines=lines)
    if block.kind == "ordering":
        line = _ordering_lines(block)[piece - 1]
        return Rung(number, line=line.text.strip(), place=ordinal(piece))
    return Rung(number, answer=question_answer(block, user))


@dataclass
class Ladder:
    """One learner's ladder on one block: the rungs taken (and shown), the next one's
    button, and what an assignment says each rung costs."""

    block: object
    anchor: str  # the block's id on the lesson page: "exercise-<key>"
    hints: int
    pieces: int
    taken: int = 0
    shown: list[Rung] = field(default_factory=list)
    signed_in: bool = False
    login_url: str = ""
    finished: bool = False  # a question answered (the answer is shown with it): no more rungs
    costs: list[tuple[str, int]] = field(default_factory=list)  # (class, percent a rung)
    closed: bool = False  # a closed assignment covers the item: no button (the view refuses rungs)

    @property
    def total(self) -> int:
        return self.hints + self.pieces

    @property
    def region(self) -> str:
        return f"{self.anchor}-hints"

    @property
    def url(self) -> str:
        return reverse("tutor:hint_next", args=[self.block.pk])

    @property
    def next(self) -> int | None:
        """The rung the button takes, or None at the top (or on a finished question)."""
        if self.finished or self.closed or self.taken >= self.total:
            return None
        return self.taken + 1

    @property
    def next_label(self) -> str:
        number = self.next or 0
        if number <= self.hints:
            return _("Show a hint (%(n)d of %(total)d)") % {"n": number, "total": self.hints}
        piece, kind = number - self.hints, self.block.kind
        if kind == "code_exercise":
            return _("Show a line of the solution (%(n)d of %(total)d)") % {"n": piece, "total": self.pieces}
        if kind == "ordering":
            return _("Show where a line goes (%(n)d of %(total)d)") % {"n": piece, "total": self.pieces}
        return _("Show the answer (this finishes the question)")

    @property
    def is_question(self) -> bool:
        return self.block.kind in QUESTION_KINDS

    @property
    def used_words(self) -> str:
        """What the learner used so far, as the teacher reads it too."""
        return used_words(self.taken, self.hints)


def used_words(taken: int, hints: int) -> str:
    used = min(taken, hints)
    words = ngettext("used %(n)d hint", "used %(n)d hints", used) % {"n": used}
    if taken > hints:
        pieces = taken - hints
        words += ngettext(
            " and %(n)d piece of the solution", " and %(n)d pieces of the solution", pieces
        ) % {"n": pieces}
    return words


def costs_for(user, blocks: list) -> dict[int, list[tuple[str, int]]]:
    """What each rung costs on each block, by the open assignments of the user's classes
    that cover it and state a cost (one query)."""
    from tutor.assignments.models import Assignment

    if not user.is_authenticated or not blocks:
        return {}
    lessons = {block.lesson_id for block in blocks}
    assignments = (
        Assignment.objects.for_student(user)
        .filter(lesson__in=lessons, hint_cost__gt=0, closed_at__isnull=True)
        .select_related("cohort")
        .prefetch_related("blocks")
        .order_by("due_at", "pk")
    )
    found: dict[int, list[tuple[str, int]]] = {}
    for assignment in assignments:
        covered = None if assignment.whole_lesson else {b.pk for b in assignment.blocks.all()}
        for block in blocks:
            if block.lesson_id == assignment.lesson_id and (covered is None or block.pk in covered):
                found.setdefault(block.pk, []).append((assignment.cohort.name, assignment.hint_cost))
    return found


def ladders(blocks: list, *, user: AbstractBaseUser | AnonymousUser) -> dict[int, Ladder]:
    """The ladder of each block that has hints, by block pk, for this user: its taken rungs'
    content and nothing beyond (a fixed number of queries for any number of blocks)."""
    blocks = [block for block in blocks if block.kind in laddered_kinds() and hints_of(block)]
    if not blocks:
        return {}
    signed_in = user.is_authenticated
    taken = HintUse.objects.highest(user, blocks) if signed_in else {}
    finished: set[int] = set()
    questions = [block for block in blocks if block.kind in QUESTION_KINDS]
    if signed_in and questions:
        from tutor.practice.questions.models import QuestionTries

        finished = set(
            QuestionTries.objects.filter(user=user, block__in=questions, finished_at__isnull=False)
            .values_list("block_id", flat=True)
        )
    costs = costs_for(user, blocks)
    found = {}
    for block in blocks:
        anchor = f"{practice.get(block.kind).anchor}-{block.key}"
        ladder = Ladder(
            block, anchor, hints=len(hints_of(block)), pieces=piece_count(block),
            signed_in=signed_in, finished=block.pk in finished, costs=costs.get(block.pk, []),
            login_url=htmx.login_url(f"{block.lesson.get_absolute_url()}#{anchor}-hints"),
        )
        ladder.taken = min(taken.get(block.pk, 0), ladder.total)
        # An exercise's pieces grow one solution: the page shows its latest only.
        numbers = range(1, ladder.taken + 1)
        if block.kind == "code_exercise":
            numbers = [n for n in numbers if n <= ladder.hints or n == ladder.taken]
        ladder.shown = [rung(block, number, user=user) for number in numbers]
        found[block.pk] = ladder
    return found
