from django.db import migrations

NAME = "Submit quiz attempts whose time is over"


def schedule_time_over(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME,
        defaults={"func": "tutor.tasks.submit_quiz_attempts_over_time", "schedule_type": "I", "minutes": 1},
    )


def unschedule_time_over(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tutor", "0029_quizzes"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule_time_over, unschedule_time_over)]
