"""How long Parsnip keeps each kind of record about a person that is not their work.

Their answers (predictions, attempts, submissions, runs, progress) are kept while the account
is: they are the learner's record and their classes' statistics (erase an account for them to
go: docs/operations.md). What says where and when a person was is kept only as long as a
teacher needs it; editing trails have their own limit (TRAIL_RETENTION_DAYS, tutor's purge).
"""

from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone


def purge(now=None) -> dict[str, int]:
    """Deletes (or blanks) what is older than its setting; returns how many rows of each."""
    now = now or timezone.now()
    days = settings.RETENTION_DAYS
    done: dict[str, int] = {}

    def older(name: str):
        return now - timedelta(days=days[name])

    LessonActivity = apps.get_model("tutor", "LessonActivity")
    RaisedHand = apps.get_model("tutor", "RaisedHand")
    ClosedBookSeat = apps.get_model("tutor", "ClosedBookSeat")
    done["presence"] = (
        LessonActivity.objects.filter(acted_at__lt=older("presence")).delete()[0]
        + RaisedHand.objects.filter(raised_at__lt=older("presence")).delete()[0]
    )
    done["addresses"] = ClosedBookSeat.objects.filter(
        seated_at__lt=older("addresses")
    ).exclude(address=None, last_refused="").update(address=None, last_refused="")
    if apps.is_installed("axes"):
        done["logins"] = sum(
            apps.get_model(label).objects.filter(attempt_time__lt=older("logins")).delete()[0]
            for label in ("axes.AccessAttempt", "axes.AccessLog", "axes.AccessFailureLog")
        )
    done["sessions"] = Session.objects.filter(expire_date__lt=now).delete()[0]
    return done
