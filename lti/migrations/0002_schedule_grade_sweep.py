from django.db import migrations

NAME = "Send grades to LMSs that are due (retries, and sends a dead worker left)"


def schedule_sweep(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME, defaults={"func": "lti.tasks.send_due_scores", "schedule_type": "I", "minutes": 1}
    )


def unschedule_sweep(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("lti", "0001_initial"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule_sweep, unschedule_sweep)]
