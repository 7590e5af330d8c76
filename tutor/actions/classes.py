"""Classes: a teacher creates one, students join it with its code, leave it, or are removed;
a second teacher can teach it too (a co-teacher)."""

import re
import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from tutor.models import Cohort, Membership

# No 0/O/Q, 1/I/L, 2/Z, 5/S or 8/B: a code read aloud or copied from a board has one reading.
JOIN_CODE_ALPHABET = "ACDEFGHJKMNPRTUVWXY34679"
JOIN_CODE_LENGTH = 8
_CODE_ATTEMPTS = 10


class ClassRefused(Exception):
    """The class change cannot be made; the message says why, in the user's words."""


def normalise_join_code(code: str) -> str:
    """What a student typed, as stored: upper case, without spaces or dashes."""
    return re.sub(r"[\s\-]", "", code).upper()


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def create_class(*, teacher: AbstractBaseUser, name: str, time_zone: str = "UTC") -> Cohort:
    """A new class taught by `teacher`, with a join code no other class has."""
    name = name.strip()
    if not name:
        raise ClassRefused(gettext("Give the class a name."))
    for _ in range(_CODE_ATTEMPTS):
        code = new_join_code()
        if Cohort.objects.filter(join_code=code).exists():
            continue
        try:
            with transaction.atomic():
                return Cohort.objects.create(
                    name=name, teacher=teacher, join_code=code, time_zone=time_zone
                )
        except IntegrityError:  # another class took the code between the check and the insert
            continue
    raise ClassRefused(gettext("Parsnip could not find a free join code. Please try again."))


def join_class(*, student: AbstractBaseUser, code: str) -> Cohort:
    """Make `student` a member of the class whose join code is `code`."""
    code = normalise_join_code(code)
    cohort = Cohort.objects.select_related("teacher").filter(join_code=code).first() if code else None
    if cohort is None:
        raise ClassRefused(
            gettext("No class has that code. Check it with your teacher: it is 8 letters and digits.")
        )
    if cohort.is_taught_by(student):
        raise ClassRefused(
            gettext("You teach “%(class)s”: students join it, not its teacher.") % {"class": cohort.name}
        )
    try:
        with transaction.atomic():
            Membership.objects.create(cohort=cohort, student=student)
    except IntegrityError:
        raise ClassRefused(
            gettext("You are already in “%(class)s”.") % {"class": cohort.name}
        ) from None
    return cohort


@transaction.atomic
def remove_student(*, cohort: Cohort, student: AbstractBaseUser) -> None:
    """The teacher takes `student` out of the class; their own work stays theirs."""
    deleted, _ = Membership.objects.filter(cohort=cohort, student=student).delete()
    if not deleted:
        raise ClassRefused(
            gettext("%(student)s is not in “%(class)s”.")
            % {"student": student.get_username(), "class": cohort.name}
        )


@transaction.atomic
def leave_class(*, cohort: Cohort, student: AbstractBaseUser) -> None:
    """The student leaves; their teacher no longer sees their work."""
    deleted, _ = Membership.objects.filter(cohort=cohort, student=student).delete()
    if not deleted:
        raise ClassRefused(gettext("You are not in that class."))


def add_co_teacher(*, cohort: Cohort, teacher: AbstractBaseUser) -> bool:
    """`teacher` teaches the class too (its pages, as its teacher sees them). Returns whether
    they were added (False: they teach it already)."""
    if cohort.is_taught_by(teacher):
        return False
    cohort.co_teachers.add(teacher)  # adding twice at once is one row: the add skips existing ones
    return True
