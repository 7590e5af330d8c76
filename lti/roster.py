"""The LMS course's roster (LTI Names and Role Provisioning Services): members who never
launched get a Parsnip account and join the class, so the teacher's grid shows them; members
the LMS no longer lists leave the class (their work stays: it belongs to the learner). The
course's other instructors teach the class (co-teachers) until the LMS drops them; the
teacher whose launch made the class keeps it.

Read when the teacher asks and by a sweep every few hours (`sync_all_rosters`). Each class
link records how its last read went: when, who joined and left, or what the LMS answered
when it failed. A failed read changes nothing in the class."""

import logging

from django.db import models, transaction
from django.utils import timezone
from lti_tool.models import LtiMembership, LtiUser
from pylti1p3.names_roles import NamesRolesProvisioningService

from lti import roles
from lti.claims import text
from lti.grades import describe_failure
from lti.http import TokenKeepingConnector
from lti.launch import LaunchRefused, account_for, hand_over_if_demoted, take_course_role
from lti.models import ClassLink
from tutor.models import Membership
from tutor.queueing import enqueue_task_on_commit

log = logging.getLogger(__name__)

SYNC_ROSTER = "lti.tasks.sync_roster"


def enqueue_sync(class_link_id: int) -> None:
    enqueue_task_on_commit(SYNC_ROSTER, class_link_id, task_name=f"lti-roster-{class_link_id}")


def fetch_member_data(context) -> list[dict]:
    """django-lti's NRPS read, with a timeout on each call (pylti1p3 sets none) and the
    LMS's access token kept (lti/http.py); each entry normalised (`member_entry`)."""
    if not context.memberships_url:
        return []
    service = NamesRolesProvisioningService(
        TokenKeepingConnector(context.deployment.registration.to_registration()),
        {"context_memberships_url": context.memberships_url},
    )
    entries = [member_entry(m) for m in service.get_members()]
    return [entry for entry in entries if entry is not None]


def member_entry(member) -> dict | None:
    """A roster entry as Parsnip reads it, normalised once where it enters, or None when it
    names nobody (no user id) or its roles are not a list: NRPS's `status` is optional
    (absent means Active), names are shown (control characters out, to their columns'
    lengths), e-mail and picture are not kept (Parsnip uses neither)."""
    if not isinstance(member, dict):
        return None
    user_id, member_roles = member.get("user_id"), member.get("roles")
    if not isinstance(user_id, str) or not user_id or len(user_id) > 255:
        return None
    if not isinstance(member_roles, list) or not all(isinstance(r, str) for r in member_roles):
        return None
    status = member.get("status", "Active")
    entry = {
        "user_id": user_id,
        "roles": [r.strip() for r in member_roles],
        "status": status if status in ("Active", "Inactive", "Deleted") else "Active",
    }
    for key in ("name", "given_name", "family_name"):
        if isinstance(member.get(key), str):
            entry[key] = text(member[key], 150)
    return entry


def readable() -> "models.QuerySet[ClassLink]":
    """The class links whose LMS course offers Parsnip its roster (a memberships URL)."""
    return ClassLink.objects.filter(context__memberships_url__gt="")


def sync_all_rosters() -> int:
    """The sweep (scheduled every few hours): queue a roster read for every class linked
    from an LMS course that offers its roster. Returns how many it queued."""
    ids = list(readable().order_by("pk").values_list("pk", flat=True))
    for pk in ids:
        enqueue_sync(pk)
    return len(ids)


def sync_roster(*, class_link_id: int) -> dict[str, int] | None:
    """Read the roster and bring the class in line; returns how many joined and left, or
    None when the read failed (recorded on the link, for the teacher; nothing changed)."""
    link = (
        ClassLink.objects.select_related("context__deployment__registration", "cohort")
        .filter(pk=class_link_id)
        .first()
    )
    if link is None:
        return None  # the LMS course was unlinked since the read was queued
    context = link.context
    try:
        # Before the transaction, every page of it: a network call, and a read that fails
        # half-way must change nothing.
        members = fetch_member_data(context)
    except Exception as error:  # noqa: BLE001 -- whatever the LMS did, the teacher sees it
        ClassLink.objects.filter(pk=link.pk).update(
            roster_failed_at=timezone.now(), roster_error=describe_failure(error)
        )
        log.warning("LTI roster of class link %s not read: %s", link.pk, error)
        return None
    joined = left = 0
    with transaction.atomic():
        context.update_memberships(members)  # django-lti: LtiUser and LtiMembership rows
        listed = {m["user_id"]: m["roles"] for m in members if m["status"] == "Active"}
        for sub, member_roles in listed.items():  # django-lti's flags, read as launches read them
            LtiMembership.objects.filter(context=context, user__sub=sub).update(
                **roles.membership_flags(member_roles)
            )
        registration = context.deployment.registration
        for lti_user in LtiUser.objects.filter(registration=registration, sub__in=listed):
            member_roles = listed[lti_user.sub]
            if not (roles.teaches(member_roles) or roles.has_a_seat(member_roles)):
                if lti_user.auth_user_id:  # a mentor, say: teaches nothing, takes no seat
                    link.cohort.co_teachers.remove(lti_user.auth_user_id)
                continue
            try:
                user = account_for(lti_user)
            except LaunchRefused:
                continue  # a name clash the admin must look at; the rest of the roster still comes in
            joined += take_course_role(link.cohort, user, member_roles)
        hand_over_if_demoted(link)
        active = set(listed)
        gone = LtiMembership.objects.filter(context=context).exclude(user__sub__in=active)
        gone.update(is_active=False)
        gone_users = [
            m.user.auth_user_id for m in gone.select_related("user") if m.user.auth_user_id
        ]
        left, _ = Membership.objects.filter(cohort=link.cohort, student_id__in=gone_users).delete()
        link.cohort.co_teachers.remove(*gone_users)
        ClassLink.objects.filter(pk=link.pk).update(
            roster_synced_at=timezone.now(),
            roster_joined=joined,
            roster_left=left,
            roster_failed_at=None,
            roster_error="",
        )
    return {"joined": joined, "left": left}
