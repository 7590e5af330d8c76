from django.db import migrations

NAME = "Mark runs whose worker died as failed"


def schedule_sweep(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME,
        defaults={"func": "tutor.tasks.fail_stale_runs", "schedule_type": "I", "minutes": 1},
    )


def unschedule_sweep(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tutor", "0004_alter_orderingattempt_verdict"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule_sweep, unschedule_sweep)]
