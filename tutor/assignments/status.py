"""Where each student stands on an assignment: when their work on it was submitted, their
due date (an extension's, if they have one) and whether it is on time, late or missing.

An item is submitted when the learner first did it, as progress counts it (a snippet
predicted, an ordering solved, a code exercise passed: each practice kind's `done_at`);
an assignment is submitted when all its items are, at the time of the last of them.
`standings()` reads every row it needs in a fixed number of queries; the rules are the
plain functions `submission_time` and `status_of`.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block
from tutor import practice
from tutor.assignments.models import Assignment, Extension
from tutor.practice.questions import QUESTION_KINDS
from tutor.quizzes.models import QuizAttempt

ON_TIME = "on-time"
LATE = "late"
MISSING = "missing"
NOT_YET = "not-yet"
LABELS = {
    ON_TIME: _("On time"),
    LATE: _("Late"),
    MISSING: _("Missing"),
    NOT_YET: _("Not yet done"),
}


def submission_time(times: Iterable[datetime | None]) -> datetime | None:
    """When the whole is submitted: once every item is, at the last item's time."""
    times = list(times)
    if not times or any(time is None for time in times):
        return None
    return max(times)


def status_of(*, submitted_at: datetime | None, due_at: datetime, now: datetime) -> str:
    """On time when submitted at or before the due time; late after it. Not submitted:
    missing once the due time has passed, not yet done until then (at the due time itself
    there is still time)."""
    if submitted_at is not None:
        return ON_TIME if submitted_at <= due_at else LATE
    return MISSING if now > due_at else NOT_YET


@dataclass(frozen=True)
class Standing:
    """One student on one assignment."""

    due_at: datetime
    extended: bool  # due_at is this student's extension
    submitted_at: datetime | None
    done: int  # items done, of `total`
    total: int
    status: str
    # A quiz (tutor/quizzes/): attempts submitted, and the best one's score (0 to 1).
    attempts: int = 0
    score: float | None = None

    @property
    def label(self) -> str:
        return LABELS[self.status]

    @property
    def percent(self) -> int | None:
        return None if self.score is None else round(100 * self.score)


def items_of(assignments: list[Assignment]) -> dict[int, list[tuple[int, str]]]:
    """Each assignment's items, (block pk, kind), in page order: the lesson's practice
    blocks, or those the teacher chose (two queries)."""
    kinds = [kind.name for kind in practice.every()]
    whole = {a.lesson_id for a in assignments if a.whole_lesson}
    by_lesson: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for pk, lesson_id, kind in (
        Block.objects.filter(lesson__in=whole, kind__in=kinds)
        .order_by("position", "pk")
        .values_list("pk", "lesson_id", "kind")
    ):
        by_lesson[lesson_id].append((pk, kind))
    chosen: dict[int, list[tuple[int, str]]] = defaultdict(list)
    partial = [a.pk for a in assignments if not a.whole_lesson]
    if partial:
        for assignment_id, pk, kind in (
            Assignment.blocks.through.objects.filter(assignment__in=partial, block__kind__in=kinds)
            .order_by("block__position", "block__pk")
            .values_list("assignment_id", "block_id", "block__kind")
        ):
            chosen[assignment_id].append((pk, kind))
    found = {a.pk: by_lesson[a.lesson_id] if a.whole_lesson else chosen[a.pk] for a in assignments}
    for a in assignments:  # a quiz's items are its questions
        if a.quiz:
            found[a.pk] = [(pk, kind) for pk, kind in found[a.pk] if kind in QUESTION_KINDS]
    return found


def quiz_results(assignments: list[Assignment], among) -> dict[tuple[int, int], tuple]:
    """(assignment pk, student pk) -> (first submitted, attempts submitted, best score) for
    the quizzes among `assignments` (one query)."""
    quizzes = [a.pk for a in assignments if a.quiz]
    if not quizzes:
        return {}
    rows = (
        QuizAttempt.objects.submitted()
        .filter(assignment__in=quizzes, student__in=among)
        .values_list("assignment_id", "student_id")
        .annotate(first=Min("submitted_at"), count=Count("pk"), best=Max("score"))
    )
    return {(a, s): (first, count, best) for a, s, first, count, best in rows}


def done_times(items: Iterable[tuple[int, str]], users) -> dict[tuple[int, int], datetime]:
    """(user pk, block pk) -> when the user did the block, for every kind among `items`
    (one query per kind)."""
    by_kind: dict[str, set[int]] = defaultdict(set)
    for pk, kind in items:
        by_kind[kind].add(pk)
    times: dict[tuple[int, int], datetime] = {}
    for name, blocks in by_kind.items():
        kind = practice.get(name)
        if kind is not None:
            times |= kind.done_at(blocks=sorted(blocks), users=users)
    return times


def standings(
    assignments: list[Assignment], users, *, now: datetime | None = None, among=None
) -> dict[tuple[int, int], Standing]:
    """(assignment pk, user pk) -> Standing for each user (a list of user pks) on each
    assignment, in a fixed number of queries whatever the numbers of both. `among`: the
    same users as a queryset of pks (a class's members), which the queries use as a
    subquery instead of a long list."""
    if not assignments:
        return {}
    now = now or timezone.now()
    user_pks = list(users)
    among = user_pks if among is None else among
    items = items_of(assignments)
    done = done_times({item for found in items.values() for item in found}, among)
    extended = dict(
        (((assignment_id, student_id), due_at))
        for assignment_id, student_id, due_at in Extension.objects.filter(
            Q(assignment__in=[a.pk for a in assignments]), student__in=among
        ).values_list("assignment_id", "student_id", "due_at")
    )
    quizzes = quiz_results(assignments, among)
    found = {}
    for assignment in assignments:
        blocks = [pk for pk, _ in items[assignment.pk]]
        for user in user_pks:
            due = extended.get((assignment.pk, user), assignment.due_at)
            if assignment.quiz:
                # Handed in with the first attempt submitted; its score is the best attempt's.
                submitted, attempts, best = quizzes.get((assignment.pk, user), (None, 0, None))
                questions = assignment.draw_count or len(blocks)  # a drawn quiz: each attempt's draw
                found[(assignment.pk, user)] = Standing(
                    due_at=due,
                    extended=(assignment.pk, user) in extended,
                    submitted_at=submitted,
                    done=questions if submitted else 0,
                    total=questions,
                    status=status_of(submitted_at=submitted, due_at=due, now=now),
                    attempts=attempts,
                    score=best,
                )
                continue
            times = [done.get((user, block)) for block in blocks]
            submitted = submission_time(times)
            found[(assignment.pk, user)] = Standing(
                due_at=due,
                extended=(assignment.pk, user) in extended,
                submitted_at=submitted,
                done=sum(time is not None for time in times),
                total=len(blocks),
                status=status_of(submitted_at=submitted, due_at=due, now=now),
            )
    return found
