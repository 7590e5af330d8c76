"""Every task the product needs on a timer is scheduled by a migration, on every database."""

from importlib import import_module

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django_q.models import Schedule

SCHEDULED = [
    # app, migration, the function in it that schedules, the task, (type, minutes)
    (
        "tutor",
        "0005_schedule_stale_run_sweep",
        "schedule_sweep",
        "tutor.tasks.fail_stale_runs",
        (Schedule.MINUTES, 1),
    ),
    (
        "tutor",
        "0023_schedule_trail_purge",
        "schedule_purge",
        "tutor.tasks.purge_old_trails",
        (Schedule.DAILY, None),
    ),
    (
        "tutor",
        "0030_schedule_quiz_time_over",
        "schedule_time_over",
        "tutor.tasks.submit_quiz_attempts_over_time",
        (Schedule.MINUTES, 1),
    ),
    (
        "lti",
        "0002_schedule_grade_sweep",
        "schedule_sweep",
        "lti.tasks.send_due_scores",
        (Schedule.MINUTES, 1),
    ),
    (
        "lti",
        "0004_schedule_roster_sweep",
        "schedule_sweep",
        "lti.tasks.sync_all_rosters",
        (Schedule.MINUTES, 360),
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("app", "migration", "schedule", "func", "every"), SCHEDULED, ids=lambda v: str(v)
)
def test_a_migration_schedules_the_task(app, migration, schedule, func, every):
    assert MigrationRecorder(connection).migration_qs.filter(app=app, name=migration).exists()
    # A transactional test run before this one (in whatever order, on whichever xdist worker)
    # has emptied every table, the migration's row too: it is made again here exactly as the
    # migration makes it, twice, to show that applying it again never makes a second row.
    module = import_module(f"{app}.migrations.{migration}")
    getattr(module, schedule)(apps, None)
    getattr(module, schedule)(apps, None)
    scheduled = Schedule.objects.get(func=func)
    if every[0] == Schedule.DAILY:
        assert scheduled.schedule_type == Schedule.DAILY
    else:
        assert (scheduled.schedule_type, scheduled.minutes) == every
