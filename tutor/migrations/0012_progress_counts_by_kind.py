from django.db import migrations, models


def fill_counts(apps, schema_editor):
    """Rows counted before practice kinds were registered: their columns become the new
    totals and per-kind counts (the next recount gives the same numbers)."""
    LessonProgress = apps.get_model("tutor", "LessonProgress")
    for row in LessonProgress.objects.all().iterator():
        row.items_total = row.snippets_total + row.exercises_total
        row.items_done = row.snippets_predicted + row.exercises_solved
        row.counts = {
            "snippet": {
                "total": row.snippets_total, "done": row.snippets_predicted,
                "right": row.predictions_right, "runs": row.runs,
            },
            "ordering": {"total": row.exercises_total, "done": row.exercises_solved},
        }
        row.save(update_fields=["items_total", "items_done", "counts"])


class Migration(migrations.Migration):
    dependencies = [("tutor", "0011_version_predictions")]

    operations = [
        migrations.AddField(
            model_name="lessonprogress", name="items_total",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="lessonprogress", name="items_done",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="lessonprogress", name="counts",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(fill_counts, migrations.RunPython.noop),
    ]
