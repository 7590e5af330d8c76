"""What a class remembers: the share of its students' answers at review that were right,
by item (the lessons' order), for the teacher's class review page."""

from dataclasses import dataclass

from django.db.models import Count, Q

from course.models import Block
from tutor import practice
from tutor.models import Cohort
from tutor.review.models import ReviewAnswer


@dataclass(frozen=True)
class ItemRetention:
    block: Block
    title: str
    answers: int
    right: int
    learners: int

    @property
    def percent(self) -> int:
        return round(100 * self.right / self.answers) if self.answers else 0


@dataclass(frozen=True)
class Retention:
    items: list[ItemRetention]

    @property
    def answers(self) -> int:
        return sum(item.answers for item in self.items)

    @property
    def percent(self) -> int:
        right = sum(item.right for item in self.items)
        return round(100 * right / self.answers) if self.answers else 0


def of_class(cohort: Cohort) -> Retention:
    """Every item the class's students answered at review: two queries."""
    rows = (
        ReviewAnswer.objects.filter(user__memberships__cohort=cohort)
        .values("block")
        .annotate(answers=Count("pk"), right=Count("pk", filter=Q(right=True)),
                  learners=Count("user", distinct=True))
    )
    by_block = {row["block"]: row for row in rows}
    blocks = practice.practice_blocks_of(Block.objects.filter(pk__in=list(by_block))).select_related(
        "lesson__course"
    ).order_by("lesson__course__position", "lesson__position", "position", "pk")
    return Retention([
        ItemRetention(block, practice.item_title(block), by_block[block.pk]["answers"],
                      by_block[block.pk]["right"], by_block[block.pk]["learners"])
        for block in blocks
    ])
