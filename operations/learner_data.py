"""A learner's data on request: everything Parsnip keeps of one person, as a readable
archive, and erasing it (docs/operations.md, "A learner's data").

What is theirs is found from the models, not listed here: every row that points at the
account, and every row that would go with those (an editing trail's chunks), so a kind of
record added later is exported without a change here.
"""

import io
import zipfile
from collections import defaultdict

from django.apps import apps
from django.contrib.admin.utils import NestedObjects
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core import serializers
from django.db import models, router, transaction
from django.utils import timezone

# What an erasure deletes outright: what the learner typed on the way (editing trails,
# drafts), where and when they were (live presence, raised hands, closed-book seats with
# their address), and the LMS's copy of who they are. Their answers stay, on an account
# with no name, so a class's statistics and item analysis stay honest.
ERASED = [
    "tutor.Trail",
    "tutor.CodeDraft",
    "tutor.ExerciseDraft",
    "tutor.LessonActivity",
    "tutor.RaisedHand",
    "tutor.ClosedBookSeat",
    "lti_tool.LtiUser",
]


def rows_of(user) -> dict[type[models.Model], list[models.Model]]:
    """Every row Parsnip keeps of `user`, by model (the account itself included)."""
    using = router.db_for_write(type(user))
    collector = NestedObjects(using=using)  # every row, none left to a fast delete
    collector.collect([user])
    found: dict[type[models.Model], dict] = defaultdict(dict)
    for model, instances in collector.data.items():
        for instance in instances:
            found[model][instance.pk] = instance
    # Rows that point at the account but would outlive it (SET_NULL): theirs all the same.
    for relation in type(user)._meta.related_objects:
        if relation.on_delete is models.CASCADE or not relation.field.concrete:
            continue
        for instance in relation.related_model._base_manager.using(using).filter(
            **{relation.field.name: user}
        ):
            found[type(instance)][instance.pk] = instance
    return {model: sorted(rows.values(), key=lambda r: r.pk) for model, rows in found.items()}


def archive(user) -> bytes:
    """A zip of every row of `user`'s: one JSON file per kind of record, and a README."""
    buffer = io.BytesIO()
    rows = rows_of(user)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        listing = []
        for model, instances in sorted(rows.items(), key=lambda item: item[0]._meta.label):
            fields = [f.name for f in model._meta.concrete_fields if f.name != "password"]
            name = f"{model._meta.label_lower}.json"
            archive.writestr(
                name, serializers.serialize("json", instances, fields=fields, indent=2)
            )
            listing.append(f"{name}: {len(instances)} × {model._meta.verbose_name_plural}")
        archive.writestr("README.txt", _readme(user, listing))
    return buffer.getvalue()


def _readme(user, listing: list[str]) -> str:
    return (
        f"Everything Parsnip keeps of the account {user.get_username()!r}, "
        f"exported {timezone.now():%Y-%m-%d %H:%M} UTC.\n"
        "Each file holds one kind of record as JSON (Django's serialisation: model, pk, fields).\n"
        "The password is not included (only a one-way hash is kept).\n\n"
        + "\n".join(listing)
        + "\n"
    )


def erase(user) -> dict[str, int]:
    """Erases `user`'s personal data: the account keeps no name, e-mail, password or
    sessions, and what they typed on the way is deleted (ERASED); their answers stay,
    anonymous, for their classes' statistics. Returns how many rows of each kind went."""
    deleted: dict[str, int] = {}
    with transaction.atomic():
        for label in ERASED:
            try:
                model = apps.get_model(label)
            except LookupError:  # an app left out of INSTALLED_APPS (lti)
                continue
            field = next(
                f for f in model._meta.concrete_fields
                if f.is_relation and f.related_model is get_user_model()
            )
            count, _ = model._base_manager.filter(**{field.name: user}).delete()
            if count:
                deleted[label] = count
        deleted["sessions"] = _end_sessions(user)
        if apps.is_installed("axes"):
            for label in ("axes.AccessAttempt", "axes.AccessLog", "axes.AccessFailureLog"):
                apps.get_model(label).objects.filter(username=user.get_username()).delete()
        user.username = f"erased-{user.pk}"
        user.first_name = user.last_name = user.email = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
    return deleted


def _end_sessions(user) -> int:
    """Signs the account out everywhere (the database's sessions)."""
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get("_auth_user_id")) == str(user.pk)
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)

