from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand
from django.db import transaction

from tutor.roles import TEACHERS_GROUP

DEMO_ACCOUNTS = [
    # username, password, role
    ("student", "parsnip-student", "student"),
    ("teacher", "parsnip-teacher", "teacher"),
    ("admin", "parsnip-admin", "admin"),
]


class Command(BaseCommand):
    help = "Create (or reset) the demo student, teacher and admin accounts and print them."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        teachers, _ = Group.objects.get_or_create(name=TEACHERS_GROUP)
        for username, password, role in DEMO_ACCOUNTS:
            user, _ = User.objects.get_or_create(username=username)
            user.set_password(password)
            user.email = f"{username}@example.com"
            user.is_staff = user.is_superuser = role == "admin"
            user.save()
            if role == "teacher":
                user.groups.add(teachers)
        self.stdout.write("Demo accounts (username / password):")
        for username, password, role in DEMO_ACCOUNTS:
            self.stdout.write(f"  {role:<8} {username} / {password}")
