from django.db import migrations

NAME = "Delete editing trails older than TRAIL_RETENTION_DAYS"


def schedule_purge(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME,
        defaults={"func": "tutor.tasks.purge_old_trails", "schedule_type": "D"},
    )


def unschedule_purge(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tutor", "0022_trail"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule_purge, unschedule_purge)]
