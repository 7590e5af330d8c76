"""Grades on their way to the LMS (LTI Assignment and Grade Services).

A learner's score on a linked lesson is recorded on a `ScoreSync` row per gradebook column
the moment their progress changes; the worker sends it, never a request. A failed send is
retried with back-off (the row says what the LMS answered); a row is claimed before its
post, so two workers never post it at once, and a row whose worker died mid-post is taken
up again by the sweep. AGS scores carry Parsnip's timestamp: the LMS keeps the newest, so a
post repeated after a crash changes nothing.
"""

import logging
from datetime import datetime, timedelta

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem as AgsLineItem

from course.models import Lesson
from lti.http import TokenKeepingConnector
from lti.models import LineItem, ScoreSync
from tutor.models import LessonProgress
from tutor.queueing import enqueue_task_on_commit

log = logging.getLogger(__name__)

SEND_SCORE = "lti.tasks.send_score"
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


def lesson_items(lesson: Lesson) -> int:
    """What Parsnip grades a lesson out of: its practice items (a learner's progress counts
    the same items)."""
    from tutor import practice

    return lesson.blocks.filter(kind__in=[kind.name for kind in practice.every()]).count()


def retry_delay(attempts: int) -> timedelta:
    """30 s after the first failure, doubling, at most an hour apart: a broken LMS is asked
    again until it answers, and the teacher sees every failure meanwhile."""
    base = settings.LTI_RETRY_SECONDS
    return timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), 3600))


# --- recording -------------------------------------------------------------------------


def assignment_items(assignment) -> list[tuple[int, str]]:
    """The assignment's items, (block pk, kind): what its column is graded out of."""
    from tutor.assignments.status import items_of

    return items_of([assignment])[assignment.pk]


QUIZ_MAXIMUM = 100


def score_after_hints(assignment, items: list[tuple[int, str]], done, user_id: int) -> int:
    """The student's score in percent on an assignment whose hints cost (the teacher's
    assignment page shows the same: tutor.practice.hints.teaching.scores_after_hints)."""
    from tutor.practice.hints import teaching

    blocks = [pk for pk, _kind in items]
    taken = teaching.rungs_taken(blocks=blocks, users=[user_id])
    return teaching.scores_after_hints(
        blocks=blocks, students=[user_id], done=done, taken=taken, cost=assignment.hint_cost
    )[user_id]


def quiz_score(assignment, user_id: int) -> float | None:
    """The student's score on a quiz assignment: their best submitted attempt's (0 to 1)."""
    from tutor.assignments.status import quiz_results

    found = quiz_results([assignment], [user_id]).get((assignment.pk, user_id))
    return None if found is None else found[2]


def quiz_held_until(assignment) -> datetime | None:
    """A quiz whose feedback comes after the due date: its scores wait for the class's last
    due date (the LMS would otherwise show them to a student still taking it)."""
    if assignment.feedback != "after-due":
        return None
    from tutor.quizzes.state import class_latest_due

    return class_latest_due(assignment)


def quiz_submitted(sender, *, assignment_id: int, student_id: int, **kwargs) -> None:
    """tutor said a student submitted a quiz attempt: record their quiz score in the LMS
    columns linked to that assignment, and queue the sends. One query when there is none."""
    columns = list(
        LineItem.objects.filter(assignment_id=assignment_id, context__members__auth_user_id=student_id)
        .values_list("pk", "context__members__pk", "lesson_id")
        .distinct()
    )
    if not columns:
        return
    lesson_id = columns[0][2]
    pairs = [(pk, member) for pk, member, _lesson in columns]
    for sync_id in record_scores(user_id=student_id, lesson_id=lesson_id, columns=pairs):
        enqueue_send(sync_id)


def progress_changed(sender, *, user_id: int, lesson_id: int, **kwargs) -> None:
    """tutor said a learner's progress changed: record their score in every LMS column
    for the lesson (or one of its assignments) they are in, and queue the sends. One query
    when there is none."""
    columns = list(
        LineItem.objects.filter(lesson_id=lesson_id, context__members__auth_user_id=user_id)
        .values_list("pk", "context__members__pk")
        .distinct()
    )
    if not columns:
        return
    for sync_id in record_scores(user_id=user_id, lesson_id=lesson_id, columns=columns):
        enqueue_send(sync_id)


def scores_of(*, user_id: int, lesson_id: int, line_item_ids) -> dict[int, tuple] | None:
    """(items done, items, not before) in each column for the learner: the lesson's
    progress, or the assignment's items done, or a quiz's score out of 100 (`not before`: a
    quiz whose feedback waits for the due date holds its score until then, else None). None
    before the learner did anything on the lesson."""
    progress = LessonProgress.objects.filter(user_id=user_id, lesson_id=lesson_id).first()
    if progress is None:
        return None  # opening a lesson is no score: nothing goes to the gradebook before work does
    from tutor.assignments.status import done_times

    scores = {}
    held: dict[int, datetime | None] = {}
    for line_item in LineItem.objects.filter(pk__in=line_item_ids).select_related("assignment"):
        if line_item.assignment is None:
            scores[line_item.pk] = (progress.items_done, progress.items_total)
        elif line_item.assignment.quiz:
            # A quiz: the best submitted attempt's score, out of 100 (the LMS scales it to
            # the column's maximum); nothing before an attempt is submitted.
            best = quiz_score(line_item.assignment, user_id)
            if best is not None:
                scores[line_item.pk] = (round(100 * best), QUIZ_MAXIMUM)
                held[line_item.pk] = quiz_held_until(line_item.assignment)
        else:
            items = assignment_items(line_item.assignment)
            done = done_times(items, [user_id])
            if line_item.assignment.hint_cost:
                # Hints cost a share of an item's score: out of 100, as the teacher's page says.
                scores[line_item.pk] = (score_after_hints(line_item.assignment, items, done, user_id), 100)
            else:
                scores[line_item.pk] = (len(done), len(items))
    return {pk: (*score, held.get(pk)) for pk, score in scores.items()}


def record_scores(*, user_id: int, lesson_id: int, columns: list[tuple[int, int]]) -> list[int]:
    """Store the learner's current score on each (line item, LMS user) row; returns the rows
    whose score changed (or that never reached the LMS), now pending."""
    scores = scores_of(
        user_id=user_id, lesson_id=lesson_id, line_item_ids={pk for pk, _ in columns}
    )
    if scores is None:
        return []
    changed = []
    now = timezone.now()
    with transaction.atomic():
        for line_item_id, lti_user_id in columns:
            if line_item_id not in scores:  # a quiz not yet submitted
                continue
            done, total, not_before = scores[line_item_id]
            send_at = max(now, not_before) if not_before else now
            sync, created = ScoreSync.objects.select_for_update().get_or_create(
                line_item_id=line_item_id,
                lti_user_id=lti_user_id,
                defaults={
                    "user_id": user_id,
                    "score_given": done,
                    "score_maximum": total,
                    "scored_at": now,
                    "next_attempt_at": send_at,
                },
            )
            if not created and sync.score_given == done and sync.score_maximum == total:
                continue
            if not created:
                ScoreSync.objects.filter(pk=sync.pk).update(
                    score_given=done,
                    score_maximum=total,
                    scored_at=now,
                    next_attempt_at=send_at,
                    attempts=0,
                    # A row being sent stays claimed: its worker sees the new score and sends again.
                    status=(
                        ScoreSync.Status.SENDING
                        if sync.status == ScoreSync.Status.SENDING
                        else ScoreSync.Status.PENDING
                    ),
                )
            changed.append(sync.pk)
    return changed


def enqueue_send(sync_id: int) -> None:
    enqueue_task_on_commit(SEND_SCORE, sync_id, task_name=f"lti-score-{sync_id}")


def resync(syncs) -> int:
    """The teacher's Re-sync: send these rows again now, whatever their state."""
    ids = list(syncs.values_list("pk", flat=True))
    ScoreSync.objects.filter(pk__in=ids).exclude(status=ScoreSync.Status.SENDING).update(
        status=ScoreSync.Status.PENDING, next_attempt_at=timezone.now(), attempts=0
    )
    for pk in ids:
        enqueue_send(pk)
    return len(ids)


# --- sending ---------------------------------------------------------------------------


def _claim(sync_id: int, now: datetime) -> ScoreSync | None:
    """Take the row for this worker, if it is due (a conditional UPDATE: one winner)."""
    due = ScoreSync.objects.due(now).filter(pk=sync_id)
    if not due.update(status=ScoreSync.Status.SENDING, claimed_at=now):
        return None
    return ScoreSync.objects.select_related(
        "line_item__context__deployment__registration", "lti_user"
    ).get(pk=sync_id)


def send_score(*, sync_id: int, now: datetime | None = None) -> str | None:
    """Post one row's score to its LMS column; returns the row's status afterwards (None when
    it was not due: already sent, or another worker has it). `now` is the worker's clock."""
    now = now or timezone.now()
    sync = _claim(sync_id, now)
    if sync is None:
        return None
    score, maximum, scored_at = sync.score_given, sync.score_maximum, sync.scored_at
    try:
        answer = post_score(sync)
    except Exception as error:  # noqa: BLE001 -- whatever the LMS did, the row says so and is retried
        attempts = sync.attempts + 1
        ScoreSync.objects.filter(pk=sync.pk).update(
            status=ScoreSync.Status.FAILED,
            attempts=attempts,
            next_attempt_at=now + retry_delay(attempts),
            claimed_at=None,
            last_response=describe_failure(error),
        )
        log.warning("LTI score %s not sent (try %s): %s", sync.pk, attempts, error)
        return ScoreSync.Status.FAILED
    # Sent. If the score changed meanwhile, the row goes back to pending and is sent again.
    unchanged = Q(score_given=score, score_maximum=maximum, scored_at=scored_at)
    base = {
        "sent_score": score,
        "sent_at": timezone.now(),
        "attempts": 0,
        "claimed_at": None,
        "last_response": answer,
    }
    if ScoreSync.objects.filter(unchanged, pk=sync.pk).update(status=ScoreSync.Status.SENT, **base):
        return ScoreSync.Status.SENT
    ScoreSync.objects.filter(pk=sync.pk).update(
        status=ScoreSync.Status.PENDING, next_attempt_at=now, **base
    )
    enqueue_send(sync.pk)
    return ScoreSync.Status.PENDING


def describe_failure(error: Exception) -> str:
    if isinstance(error, LtiServiceException):
        response = error.response
        return f"HTTP {response.status_code}: {response.text[:500]}"
    if isinstance(error, requests.Timeout):
        return f"No answer within {settings.LTI_HTTP_TIMEOUT_SECONDS} s"
    return str(error)[:500]


def post_score(sync: ScoreSync) -> str:
    """One AGS score POST (after finding or creating the column when Parsnip has no URL for
    it yet); returns the LMS's answer as the teacher sees it."""
    line_item = sync.line_item
    context = line_item.context
    registration = context.deployment.registration.to_registration()
    service = AssignmentsGradesService(
        TokenKeepingConnector(registration),
        {"scope": AGS_SCOPES, "lineitems": context.lineitems_url, "lineitem": line_item.url},
    )
    if not line_item.url:
        found = service.find_or_create_lineitem(
            AgsLineItem()
            .set_label(str(line_item.assignment or line_item.lesson.title))
            .set_score_maximum(line_item.score_maximum)
            .set_resource_id(line_item.resource_id)
            .set_tag(line_item.resource_id),
            find_by="resource_id",
        )
        LineItem.objects.filter(pk=line_item.pk, url="").update(url=found.get_id())
        line_item.url = found.get_id()
        service = AssignmentsGradesService(
            TokenKeepingConnector(registration),
            {"scope": AGS_SCOPES, "lineitems": context.lineitems_url, "lineitem": line_item.url},
        )
    complete = sync.score_maximum > 0 and sync.score_given >= sync.score_maximum
    grade = (
        Grade()
        .set_score_given(sync.score_given)
        .set_score_maximum(max(sync.score_maximum, 1))
        .set_timestamp(sync.scored_at.isoformat())
        .set_activity_progress("Completed" if complete else "InProgress")
        .set_grading_progress("FullyGraded")
        .set_user_id(sync.lti_user.sub)
    )
    answer = service.put_grade(grade)
    return f"Accepted ({answer['body'] or 'no content'})"[:500] if answer else "Accepted"


def send_due_scores(now: datetime | None = None) -> int:
    """The sweep (scheduled each minute): send every row whose retry time has come and
    every row a dead worker left claimed. Returns how many it tried."""
    now = now or timezone.now()
    ids = list(
        ScoreSync.objects.due(now).order_by("next_attempt_at").values_list("pk", flat=True)[:500]
    )
    for pk in ids:
        send_score(sync_id=pk, now=now)
    return len(ids)
