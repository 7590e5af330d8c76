"""The live view's table and queue, built from two queries whatever the class size: the
class's students with their activity row in the lesson, and the raised hands; for the live
view of an assignment, a few more (tutor.assignments.status.standings: one per kind of
item), for where each student stands on it."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import FilteredRelation, OuterRef, Q, Subquery
from django.utils.translation import gettext as _

from course import kinds
from tutor.assignments.models import Assignment
from tutor.assignments.status import Standing, standings
from tutor.live.models import LessonActivity, LiveSettings, RaisedHand
from tutor.models import Cohort, Membership
from tutor.teaching import student_name


def since_then(then: datetime, now: datetime) -> str:
    """ "12 s", "4 min", "2 h": short enough to read at a glance."""
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 60:
        return _("%(n)s s") % {"n": seconds}
    if seconds < 3600:
        return _("%(n)s min") % {"n": seconds // 60}
    return _("%(n)s h") % {"n": seconds // 3600}


def ago(then: datetime | None, now: datetime) -> str:
    """ "12 s ago", "4 min ago", "2 h ago"."""
    if then is None:
        return ""
    return _("%(time)s ago") % {"time": since_then(then, now)}


def block_label(
    key: str | None, title: str | None, kind: str | None, caption: str | None = None
) -> str:
    """The block as its learners see it named: its title, a snippet's caption, else its key."""
    if key is None:
        return ""
    spec = kinds.get(kind) if kind in kinds.names() else None
    label = title or caption or key
    return f"{label} ({str(spec.label).lower()})" if spec else label


CODE_KINDS = ("snippet", "code_exercise")  # the blocks with a code editor (tutor/trail/)


@dataclass
class Student:
    pk: int
    name: str
    block: str = ""
    block_pk: int | None = None
    watchable: bool = False  # their block has a code editor: its code can be watched live
    what: str = ""
    acted_at: datetime | None = None
    ago: str = ""
    failures: int = 0
    on_for: str = ""  # how long on this block without progress: "4 min"
    stuck: list[str] = field(default_factory=list)  # why, in words
    away: str = ""  # not here: where they are ("In “Loops”") or when last seen, in words
    hand: "Hand | None" = None
    standing: Standing | None = None  # on the assignment the board is for, if any

    @property
    def started(self) -> bool:
        return self.acted_at is not None


@dataclass
class Hand:
    student: Student
    raised_at: datetime
    waiting: str
    about: str = ""  # the item it is about; empty: the lesson as a whole


@dataclass
class Board:
    students: list[Student]
    hands: list[Hand]
    settings: LiveSettings

    @property
    def stuck(self) -> int:
        return sum(bool(student.stuck) for student in self.students)


def settings_of(cohort: Cohort) -> LiveSettings:
    """The class's rules (loaded with the class: select_related), or the defaults."""
    try:
        return cohort.live_settings
    except LiveSettings.DoesNotExist:
        return LiveSettings(cohort=cohort)


def stuck_reasons(
    *, failures: int, since, done: bool, rules: LiveSettings, now: datetime
) -> list[str]:
    reasons = []
    if failures >= rules.stuck_failures:
        reasons.append(_("%(n)s failed in a row") % {"n": failures})
    if since is not None and not done and now - since >= timedelta(minutes=rules.stuck_minutes):
        minutes = int((now - since).total_seconds() // 60)
        reasons.append(_("%(n)s min without progress") % {"n": minutes})
    return reasons


def away_from(
    *,
    acted_at: datetime | None,
    elsewhere: str | None,
    elsewhere_at: datetime | None,
    rules: LiveSettings,
    now: datetime,
) -> str:
    """Why a student is not here, in words ("" when they are): their last action is in
    another lesson, or they have done nothing anywhere for three times the class's minutes
    without progress. Such a student is not stuck: nobody is working on the item."""
    if elsewhere_at is not None and (acted_at is None or elsewhere_at > acted_at):
        return _("In “%(lesson)s” · %(ago)s") % {"lesson": elsewhere, "ago": ago(elsewhere_at, now)}
    last = max((t for t in (acted_at, elsewhere_at) if t is not None), default=None)
    if acted_at is not None and now - last >= timedelta(minutes=3 * rules.stuck_minutes):
        return _("Last seen %(ago)s") % {"ago": ago(last, now)}
    return ""


def build_board(
    cohort: Cohort, lesson, *, now: datetime, assignment: Assignment | None = None
) -> Board:
    """The class in `lesson` now; with `assignment` (one of the lesson's, for the class),
    each student's standing on it too."""
    rules = settings_of(cohort)
    elsewhere = (
        LessonActivity.objects.filter(user=OuterRef("pk"))
        .exclude(lesson=lesson)
        .order_by("-acted_at", "-pk")
    )
    rows = (
        User.objects.filter(memberships__cohort=cohort)
        .annotate(
            act=FilteredRelation("lesson_activity", condition=Q(lesson_activity__lesson=lesson)),
            elsewhere=Subquery(elsewhere.values("lesson__title")[:1]),
            elsewhere_at=Subquery(elsewhere.values("acted_at")[:1]),
        )
        .values_list(
            "pk",
            "username",
            "first_name",
            "last_name",
            "act__what",
            "act__acted_at",
            "act__failures",
            "act__since",
            "act__done",
            "act__block__key",
            "act__block__title",
            "act__block__kind",
            "act__block_id",
            "act__block__snippet__caption",
            "elsewhere",
            "elsewhere_at",
        )
    )
    students = {}
    for (
        pk, username, first, last, what, acted_at, failures, since, done, key, title, kind,
        block_pk, caption, elsewhere_title, elsewhere_at,
    ) in rows:  # fmt: skip
        away = away_from(
            acted_at=acted_at,
            elsewhere=elsewhere_title,
            elsewhere_at=elsewhere_at,
            rules=rules,
            now=now,
        )
        students[pk] = Student(
            pk=pk,
            name=student_name(username, first, last),
            block=block_label(key, title, kind, caption),
            block_pk=block_pk,
            watchable=kind in CODE_KINDS,
            what=what or "",
            acted_at=acted_at,
            ago=ago(acted_at, now),
            failures=failures or 0,
            on_for="" if done or away or since is None else since_then(since, now),
            stuck=[]
            if away
            else stuck_reasons(
                failures=failures or 0, since=since, done=bool(done), rules=rules, now=now
            ),
            away=away,
        )
    hands = []
    raised = (
        RaisedHand.objects.filter(lesson=lesson, user__memberships__cohort=cohort)
        .order_by("raised_at", "pk")
        .values_list(
            "user_id",
            "raised_at",
            "block__key",
            "block__title",
            "block__kind",
            "block__snippet__caption",
        )
    )
    for user_id, raised_at, key, title, kind, caption in raised:
        if (student := students.get(user_id)) is not None:
            student.hand = Hand(
                student=student,
                raised_at=raised_at,
                waiting=since_then(raised_at, now),
                about=block_label(key, title, kind, caption),
            )
            hands.append(student.hand)
    if assignment is not None:
        members = Membership.objects.filter(cohort=cohort).values("student")
        found = standings([assignment], list(students), now=now, among=members)
        for pk, student in students.items():
            student.standing = found[(assignment.pk, pk)]
    ordered = sorted(
        students.values(),
        key=lambda s: (not s.stuck, not s.started, s.name.casefold(), s.pk),
    )
    return Board(students=ordered, hands=hands, settings=rules)
