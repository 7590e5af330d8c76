"""Any change to content moves ContentVersion on, so cached renderings of it are left
behind. Connected in CourseConfig.ready() for every model of this app."""

from django.db import models

from course.models import ContentVersion


def content_changed(sender, **kwargs) -> None:
    if sender is not ContentVersion and not kwargs.get("raw"):
        ContentVersion.bump()


def connect() -> None:
    from django.apps import apps

    for model in apps.get_app_config("course").get_models():
        if model is ContentVersion:
            continue
        uid = f"content-version-{model._meta.label}"
        models.signals.post_save.connect(content_changed, sender=model, dispatch_uid=uid + "-save")
        models.signals.post_delete.connect(content_changed, sender=model, dispatch_uid=uid + "-delete")
        for field in model._meta.local_many_to_many:
            models.signals.m2m_changed.connect(
                content_changed, sender=field.remote_field.through, dispatch_uid=uid + field.name
            )
