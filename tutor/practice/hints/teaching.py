"""What teachers see of hint ladders: per item of a lesson, the share of the class who used
hints and how far up they went (the item analysis); each rung a student took (their
timeline). The live view reads "used 3 hints" from the action's words."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Max, Q
from django.utils.translation import gettext as _

from tutor import practice, teaching
from tutor.practice.hints import hints_of, laddered_kinds, piece_count
from tutor.practice.hints.models import HintUse


@dataclass
class HintItem:
    """How the class used one item's ladder."""

    title: str
    anchor: str  # the item on the lesson page
    hints: int  # the ladder's hints (its solution's pieces come after them)
    rungs: int  # every rung, hints and pieces
    used: int = 0  # students who took at least one rung
    students: int = 0
    mean_rungs: float = 0.0  # among those who used it
    solution_seen: int = 0  # students who took a piece of the solution

    @property
    def percent(self) -> int:
        return round(100 * self.used / self.students) if self.students else 0


def analysis(*, in_class: Q, lesson, students: int) -> list[HintItem]:
    """Each of the lesson's items with hints, in page order, and how the class used them
    (two queries)."""
    blocks = [
        block for block in practice.practice_blocks_of(lesson.blocks.filter(kind__in=laddered_kinds()))
        .prefetch_related("ordering_exercise__lines").order_by("position", "pk")
        if hints_of(block)
    ]
    if not blocks:
        return []
    tops: dict[int, list[int]] = defaultdict(list)
    for block_id, top in (
        # order_by(): the model's ordering would group by each row's time too.
        HintUse.objects.filter(in_class, block__in=blocks).order_by()
        .values("block_id", "user_id").annotate(top=Max("rung")).values_list("block_id", "top")
    ):
        tops[block_id].append(top)
    found = []
    for block in blocks:
        hints = len(hints_of(block))
        taken = tops.get(block.pk, [])
        item = HintItem(
            title=practice.item_title(block),
            anchor=f"{lesson.get_absolute_url()}#{practice.get(block.kind).anchor}-{block.key}",
            hints=hints, rungs=hints + piece_count(block), used=len(taken), students=students,
            mean_rungs=round(sum(taken) / len(taken), 1) if taken else 0.0,
            solution_seen=sum(top > hints for top in taken),
        )
        found.append(item)
    return found


def events(*, student, limit: int) -> list[teaching.Event]:
    """The student's latest rungs taken, for their timeline."""
    uses = (
        HintUse.objects.filter(user=student)
        .select_related("block__lesson__course")
        .order_by("-at", "-pk")[:limit]
    )
    found = []
    for use in uses:
        block = use.block
        hints = len(hints_of(block))
        name = block.title or block.key
        if use.rung <= hints:
            title = _("Took hint %(n)d of %(total)d on “%(item)s”") % {"n": use.rung, "total": hints, "item": name}
        else:
            title = _("Saw piece %(n)d of the solution of “%(item)s”") % {"n": use.rung - hints, "item": name}
        kind = practice.get(block.kind)
        found.append(
            teaching.Event(
                "hint", use.at, use, title=title, place=block.lesson.title,
                link=f"{block.lesson.get_absolute_url()}#{kind.anchor if kind else 'exercise'}-{block.key}",
            )
        )
    return found


def rungs_taken(*, blocks: list[int], users) -> dict[tuple[int, int], int]:
    """(user pk, block pk) -> the highest rung the user took on the block (one query);
    `users` a list or a queryset of user pks."""
    rows = (
        HintUse.objects.filter(block__in=blocks, user__in=users).order_by()
        .values("user_id", "block_id").annotate(top=Max("rung"))
        .values_list("user_id", "block_id", "top")
    )
    return {(user, block): top for user, block, top in rows}


def score_after_hints(*, done: list[bool], rungs: list[int], cost: int) -> int:
    """An assignment's score in percent, each item done scoring 100% less `cost`% for each
    rung of its ladder the student took (never below 0), each item not done 0."""
    if not done:
        return 0
    scores = [max(0, 100 - cost * taken) if is_done else 0 for is_done, taken in zip(done, rungs, strict=True)]
    return round(sum(scores) / len(scores))


def scores_after_hints(*, blocks: list[int], students: list[int], done, taken: dict, cost: int) -> dict[int, int]:
    """Each student's score after hints on an assignment's items (`done`: the (student,
    block) pairs done; `taken`: rungs_taken's), as the teacher's page and the LMS get it."""
    return {
        student: score_after_hints(
            done=[(student, block) in done for block in blocks],
            rungs=[taken.get((student, block), 0) for block in blocks],
            cost=cost,
        )
        for student in students
    }
