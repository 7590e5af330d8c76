"""The three kinds of people: students (everyone), teachers (a group), admins (staff); and
what a taught class is, for every teacher's page (tutor.views, assignments, live, clusters);
and whether a request's student is in any class at all (`note_classes`)."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from tutor.models import Cohort
from tutor.time_zones import use_class_zone

TEACHERS_GROUP = "Teachers"


def is_teacher(user: AbstractBaseUser | AnonymousUser) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name=TEACHERS_GROUP).exists()


def note_classes(request: HttpRequest, *, in_class: bool) -> None:
    """Tell the rest of this request whether its user is a student of any class (the
    lesson page learns it from the hand's query): a learner in no class has no
    assignments, and the page then asks for none (`in_no_class`)."""
    request.parsnip_in_no_class = not in_class


def in_no_class(request: HttpRequest | None) -> bool:
    """Whether this request's user is known to be in no class (`note_classes`); not known
    counts as in one."""
    return getattr(request, "parsnip_in_no_class", False)


def require_teacher(request: HttpRequest) -> None:
    if not is_teacher(request.user):
        raise PermissionDenied("Only teachers review classes.")


def taught_class(request: HttpRequest, pk: int) -> Cohort:
    """The class `pk`, if the user teaches it (or is an admin): 403 for non-teachers, else 404.
    The page's times are then in the class's zone, unless the browser said its own."""
    require_teacher(request)
    cohort = get_object_or_404(Cohort.objects.visible_to(request.user).select_related("teacher"), pk=pk)
    use_class_zone(cohort.time_zone)
    return cohort


def class_students(cohort: Cohort):
    return User.objects.filter(memberships__cohort=cohort).order_by("username")
