from django.db import migrations

NAME = "Delete records older than RETENTION_DAYS"


def schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name=NAME,
        defaults={"func": "operations.tasks.purge_old_records", "schedule_type": "D"},
    )


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("operations", "0002_schedule_heartbeat")]

    operations = [migrations.RunPython(schedule, unschedule)]
