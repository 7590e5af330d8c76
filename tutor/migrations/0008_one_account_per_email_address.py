"""One account per e-mail address, whatever its case (empty addresses aside), so a
password reset mails one account. Django's User has no such constraint and is not this
app's model: the unique index is added here in SQL that SQLite and PostgreSQL both read.
"""

from django.db import migrations

INDEX = "tutor_one_account_per_email"


def clear_repeated_addresses(apps, schema_editor):
    """An address already on several accounts stays on the oldest and is cleared from the
    others (their owners can add it back to one of them, or reset through the oldest)."""
    User = apps.get_model("auth", "User")
    seen: dict[str, int] = {}
    cleared = []
    for pk, username, email in (
        User.objects.exclude(email="").order_by("date_joined", "pk").values_list("pk", "username", "email")
    ):
        key = email.lower()
        if key in seen:
            cleared.append(pk)
            print(f"\n  {username}: e-mail {email} is also on an older account; cleared here")
        else:
            seen[key] = pk
    User.objects.filter(pk__in=cleared).update(email="")


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("tutor", "0007_ordering_help_is_kept_when_starting_again"),
    ]

    operations = [
        migrations.RunPython(clear_repeated_addresses, migrations.RunPython.noop),
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX {INDEX} ON auth_user (lower(email)) WHERE email <> ''",
            f"DROP INDEX {INDEX}",
        ),
    ]
