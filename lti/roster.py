"""The LMS course's roster (LTI Names and Role Provisioning Services): members who never
launched get a Parsnip account and join the class, so the teacher's grid shows them; members
the LMS no longer lists leave the class (their work stays: it belongs to the learner)."""

from django.db import transaction
from django.utils import timezone
from lti_tool.models import LtiMembership, LtiUser
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from lti.grades import TimeoutSession
from lti.launch import LaunchRefused, account_for
from lti.models import ClassLink
from tutor.models import Membership
from tutor.queueing import enqueue_task_on_commit

SYNC_ROSTER = "lti.tasks.sync_roster"


def enqueue_sync(class_link_id: int) -> None:
    enqueue_task_on_commit(SYNC_ROSTER, class_link_id, task_name=f"lti-roster-{class_link_id}")


def fetch_member_data(context) -> list[dict]:
    """django-lti's NRPS read, with a timeout on each call (pylti1p3 sets none)."""
    if not context.memberships_url:
        return []
    service = NamesRolesProvisioningService(
        ServiceConnector(context.deployment.registration.to_registration(), requests_session=TimeoutSession()),
        {"context_memberships_url": context.memberships_url},
    )
    return list(service.get_members())


def sync_roster(*, class_link_id: int) -> dict[str, int]:
    """Read the roster and bring the class in line; returns how many joined and left."""
    link = ClassLink.objects.select_related("context__deployment__registration", "cohort").get(pk=class_link_id)
    context = link.context
    members = fetch_member_data(context)  # before the transaction: a network call
    joined = left = 0
    with transaction.atomic():
        context.update_memberships(members)  # django-lti: LtiUser and LtiMembership rows
        active = {m["user_id"] for m in members if m.get("status", "Active") == "Active"}
        learners = {
            m["user_id"] for m in members
            if any(role.endswith("#Learner") or role == "Learner" for role in m.get("roles", []))
        }
        for lti_user in LtiUser.objects.filter(registration=context.deployment.registration, sub__in=active & learners):
            try:
                user = account_for(lti_user)
            except LaunchRefused:
                continue  # a name clash the admin must look at; the rest of the roster still comes in
            _, created = Membership.objects.get_or_create(cohort=link.cohort, student=user)
            joined += created
        gone = LtiMembership.objects.filter(context=context).exclude(user__sub__in=active)
        gone.update(is_active=False)
        gone_users = [m.user.auth_user_id for m in gone.select_related("user") if m.user.auth_user_id]
        left, _ = Membership.objects.filter(cohort=link.cohort, student_id__in=gone_users).delete()
        ClassLink.objects.filter(pk=link.pk).update(roster_synced_at=timezone.now())
    return {"joined": joined, "left": left}
