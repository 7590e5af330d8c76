"""The three kinds of people: students (everyone), teachers (a group), admins (staff)."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

TEACHERS_GROUP = "Teachers"


def is_teacher(user: AbstractBaseUser | AnonymousUser) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name=TEACHERS_GROUP).exists()
