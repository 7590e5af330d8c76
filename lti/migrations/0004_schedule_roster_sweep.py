from django.db import migrations

NAME = "Read the roster of every class linked from an LMS course (NRPS), every 6 hours"
EVERY_MINUTES = 6 * 60


def schedule_sweep(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME,
        defaults={
            "func": "lti.tasks.sync_all_rosters",
            "schedule_type": "I",
            "minutes": EVERY_MINUTES,
        },
    )


def unschedule_sweep(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("lti", "0003_roster_read_outcome"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule_sweep, unschedule_sweep)]
