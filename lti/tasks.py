"""The LMS side's background work, through django-q2 like the rest (tutor/queueing.py)."""

from lti import grades, roster


def send_score(sync_id: int) -> None:
    grades.send_score(sync_id=sync_id)


def send_due_scores() -> int:
    return grades.send_due_scores()


def sync_roster(class_link_id: int) -> None:
    roster.sync_roster(class_link_id=class_link_id)


def sync_all_rosters() -> int:
    return roster.sync_all_rosters()
