from django.db import migrations

TEACHERS = "Teachers"


def create_teachers_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=TEACHERS)


def remove_teachers_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=TEACHERS).delete()


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create_teachers_group, remove_teachers_group)]
