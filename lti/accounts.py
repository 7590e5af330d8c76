"""A learner who had a Parsnip account before their LMS sent them links it, once: their LMS
identity then signs them into that account, with its work."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext
from lti_tool.models import LtiUser

from lti.models import ScoreSync
from tutor.models import Cohort, LessonProgress, Membership

LMS_USERNAME_PREFIX = "lms-"


class LinkRefused(Exception):
    """The link is not made; the message says why."""


def is_made_by_lms(user: User) -> bool:
    return user.username.startswith(LMS_USERNAME_PREFIX) and not user.has_usable_password()


@transaction.atomic
def link_account(*, lms_account: User, existing: User) -> None:
    """Move the LMS identity (and the classes it joined through the LMS) onto `existing`.
    Refused when the LMS-made account already holds work: nothing is ever left behind."""
    if not is_made_by_lms(lms_account):
        raise LinkRefused(gettext("This account is already a Parsnip account of its own."))
    if existing.pk == lms_account.pk or is_made_by_lms(existing):
        raise LinkRefused(gettext("Sign in with the Parsnip account you had before."))
    identities = LtiUser.objects.select_for_update().filter(auth_user=lms_account)
    registrations = set(identities.values_list("registration_id", flat=True))
    if LtiUser.objects.filter(auth_user=existing, registration_id__in=registrations).exists():
        raise LinkRefused(
            gettext("That Parsnip account is already linked to an account of this LMS.")
        )
    if LessonProgress.objects.filter(user=lms_account).exists():
        raise LinkRefused(
            gettext(
                "You have already worked in Parsnip from your LMS, so this account cannot be linked: "
                "ask your teacher, who can see your work in both."
            )
        )
    identities.update(auth_user=existing)
    for membership in Membership.objects.filter(student=lms_account):
        Membership.objects.get_or_create(cohort_id=membership.cohort_id, student=existing)
    Membership.objects.filter(student=lms_account).delete()
    Cohort.objects.filter(teacher=lms_account).update(teacher=existing)
    for cohort in Cohort.objects.filter(co_teachers=lms_account):
        cohort.co_teachers.remove(lms_account)
        if cohort.teacher_id != existing.pk:
            cohort.co_teachers.add(existing)
    ScoreSync.objects.filter(user=lms_account).update(user=existing)
    existing.groups.add(*lms_account.groups.all())
    lms_account.is_active = False
    lms_account.save(update_fields=["is_active"])
