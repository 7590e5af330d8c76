"""What the teachers' pages and the students' panels compute about groups and comments.

A student sees a comment while their latest wrong answer is in its group, on a class they
are in: computed each time a panel renders (the lesson page, or one panel after a
check), so a student who lands in a group later sees the comment too."""

import weakref
from dataclasses import dataclass, field

from django.db.models import F, Q
from django.http import HttpRequest

from course.models import Block, Lesson
from tutor import practice
from tutor.clusters.groups import Distribution, Group
from tutor.clusters.models import ClusterComment, ClusterCommentRead
from tutor.models import Cohort
from tutor.practice import item_title, practice_blocks, practice_blocks_of

# The comments already loaded for a request, by scope ("lesson" or "block", its pk):
# a lesson page loads its comments once for all its panels.
_loaded: "weakref.WeakKeyDictionary[HttpRequest, dict]" = weakref.WeakKeyDictionary()


def _comments_by_block(request: HttpRequest, *, block_id: int, lesson_id: int | None) -> dict:
    seen = _loaded.setdefault(request, {})
    scope = ("lesson", lesson_id) if lesson_id else ("block", block_id)
    if scope not in seen:
        rows = ClusterComment.objects.seen_by(request.user).select_related("author", "cohort")
        rows = rows.filter(block__lesson=lesson_id) if lesson_id else rows.filter(block=block_id)
        by_block: dict[int, list[ClusterComment]] = {}
        for comment in rows.order_by("cohort__name", "pk"):
            by_block.setdefault(comment.block_id, []).append(comment)
        seen[scope] = by_block
    return seen[scope]


def comments_for(
    request: HttpRequest, kind_name: str, state, *, lesson: Lesson | None = None
) -> list:
    """The comments a learner sees beside the answer `state` shows: one query per lesson
    page (or per panel rendered alone), none when the answer is right or not given."""
    kind = practice.get(kind_name)
    if kind is None or request is None or not request.user.is_authenticated:
        return []
    found = kind.cluster_of(state)
    if found is None:
        return []
    block_id, group = found
    lesson_id = lesson.pk if isinstance(lesson, Lesson) else None
    comments = _comments_by_block(request, block_id=block_id, lesson_id=lesson_id)
    return [comment for comment in comments.get(block_id, []) if comment.key == group.key]


def teacher_name(user) -> str:
    full = f"{user.first_name} {user.last_name}".strip()
    return full or user.get_username()


# Teachers ------------------------------------------------------------------------------


def in_class(cohort: Cohort) -> Q:
    return Q(user__memberships__cohort=cohort)


@dataclass
class GroupRow:
    """A group as the teacher sees it, with the class's comment on it (if any)."""

    block: Block
    group: Group
    comment: ClusterComment | None = None
    readers: frozenset[int] = frozenset()  # students who opened the comment since its last edit

    @property
    def dom_id(self) -> str:
        return f"group-{self.block.pk}-{self.group.key}"

    @property
    def read(self) -> int:
        """Of the students it is shown to, those who have seen it (as they see it now)."""
        return len(self.reached_students & self.readers)

    @property
    def reached_students(self) -> set[int]:
        """Students who see the comment now: every student of the class in the group."""
        return self.group.students if self.comment is not None else set()

    @property
    def reached(self) -> int:
        return len(self.reached_students)


@dataclass
class ItemGroups:
    block: Block
    kind: practice.PracticeKind
    distribution: Distribution
    rows: list[GroupRow] = field(default_factory=list)
    idle: list[ClusterComment] = field(default_factory=list)  # on groups nobody is in now

    @property
    def title(self) -> str:
        return item_title(self.block)

    # A student has one latest answer on an item, so in one group at most: on one item,
    # answers and students are counted alike.
    @property
    def wrong_students(self) -> set[int]:
        return {student for row in self.rows for student in row.group.students}

    @property
    def reached_students(self) -> set[int]:
        return {student for row in self.rows for student in row.reached_students}

    @property
    def grouped(self) -> int:
        return len(self.wrong_students)

    @property
    def covered(self) -> int:
        return len(self.reached_students)

    @property
    def dom_id(self) -> str:
        return f"groups-{self.block.pk}-reach"


def item_groups(cohort: Cohort, blocks: list[Block]) -> list[ItemGroups]:
    """Each block's groups with the class's comments: per kind its clusters' queries, and
    one for the comments."""
    distributions: dict[int, Distribution] = {}
    for kind in practice.every():
        of_kind = [block for block in blocks if block.kind == kind.name]
        if of_kind:
            distributions.update(kind.clusters(in_class=in_class(cohort), blocks=of_kind))
    comments: dict[tuple[int, str], ClusterComment] = {
        (comment.block_id, comment.key): comment
        for comment in ClusterComment.objects.filter(
            cohort=cohort, block__in=blocks
        ).select_related("author")
    }
    readers: dict[int, set[int]] = {}
    for comment_id, student_id in ClusterCommentRead.objects.filter(
        comment__in=[comment.pk for comment in comments.values()],
        read_at__gte=F("comment__updated_at"),
    ).values_list("comment_id", "student_id"):
        readers.setdefault(comment_id, set()).add(student_id)
    items = []
    for block in blocks:
        distribution = distributions.get(block.pk) or Distribution(block.pk)
        rows = []
        for group in distribution.groups:
            comment = comments.pop((block.pk, group.key), None)
            seen = frozenset(readers.get(comment.pk, ())) if comment is not None else frozenset()
            rows.append(GroupRow(block, group, comment, seen))
        item = ItemGroups(block, practice.get(block.kind), distribution, rows)
        items.append(item)
    by_block = {item.block.pk: item for item in items}
    for (block_id, _), comment in comments.items():
        by_block[block_id].idle.append(comment)
    return items


@dataclass
class LessonGroups:
    """Every count below comes from the same groups, so none can contradict another: wrong
    answers are counted per item (a student wrong on two items is two answers), students
    once each, however many items they are wrong on."""

    items: list[ItemGroups]

    @property
    def wrong(self) -> int:
        """Wrong answers grouped, one per student and item."""
        return sum(item.grouped for item in self.items)

    @property
    def covered(self) -> int:
        """Of those, the answers with a comment beside them."""
        return sum(item.covered for item in self.items)

    @property
    def percent(self) -> int | None:
        return round(100 * self.covered / self.wrong) if self.wrong else None

    @property
    def wrong_students(self) -> int:
        return len(set().union(*(item.wrong_students for item in self.items)))

    @property
    def reached_students(self) -> int:
        return len(set().union(*(item.reached_students for item in self.items)))

    def item(self, block_id: int) -> ItemGroups | None:
        return next((item for item in self.items if item.block.pk == block_id), None)

    @property
    def comments(self) -> int:
        return sum(row.comment is not None for item in self.items for row in item.rows) + sum(
            len(item.idle) for item in self.items
        )


def lesson_groups(cohort: Cohort, lesson: Lesson) -> LessonGroups:
    """The class's wrong answers on a lesson, grouped, with the comments and their reach."""
    return LessonGroups(item_groups(cohort, practice_blocks(lesson)))


# Students: the comments on their answers, wherever they are ---------------------------


@dataclass
class TeacherNote:
    """A comment beside one of the student's answers, as the home page and My progress
    list it: where it is, who wrote it, and whether the student has seen it since."""

    comment: ClusterComment
    teacher: str
    unread: bool

    @property
    def lesson(self) -> Lesson:
        return self.comment.block.lesson

    @property
    def item(self) -> str:
        return item_title(self.comment.block)

    @property
    def url(self) -> str:
        kind = practice.get(self.comment.block.kind)
        anchor = kind.anchor if kind is not None else "exercise"
        return f"{self.lesson.get_absolute_url()}#{anchor}-{self.comment.block.key}"


def teacher_notes(user, *, limit: int = 5) -> list[TeacherNote]:
    """The comments the student sees beside their latest answers on lessons they may open,
    new ones first: one query when there are none; else their groups (each kind's cluster
    queries, for this student alone) and one for what they read."""
    if not user.is_authenticated:
        return []
    comments = list(
        ClusterComment.objects.seen_by(user)
        .filter(block__lesson__in=Lesson.objects.visible_to(user))
        .select_related("author", "cohort")
        .order_by("-updated_at", "pk")
        .distinct()
    )
    if not comments:
        return []
    blocks = list(
        practice_blocks_of(
            Block.objects.filter(pk__in={c.block_id for c in comments}).select_related("lesson__course")
        )
    )
    theirs: dict[int, str] = {}  # block pk -> the key of the student's group there
    for kind in practice.every():
        of_kind = [block for block in blocks if block.kind == kind.name]
        if of_kind:
            for block_id, distribution in kind.clusters(in_class=Q(user=user.pk), blocks=of_kind).items():
                if distribution.groups:
                    theirs[block_id] = distribution.groups[0].key
    blocks_by_pk = {block.pk: block for block in blocks}
    shown = [c for c in comments if c.block_id in blocks_by_pk and theirs.get(c.block_id) == c.key][:limit]
    for comment in shown:
        comment.block = blocks_by_pk[comment.block_id]  # with its content's row, for its title
    read = dict(
        ClusterCommentRead.objects.filter(student=user, comment__in=shown).values_list("comment_id", "read_at")
    )
    notes = [
        TeacherNote(
            comment,
            teacher_name(comment.author),
            unread=comment.pk not in read or read[comment.pk] < comment.updated_at,
        )
        for comment in shown
    ]
    return sorted(notes, key=lambda note: not note.unread)  # stable: newest first within each
