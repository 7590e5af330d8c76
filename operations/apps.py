from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OperationsConfig(AppConfig):
    """What a school's IT person runs Parsnip with: backups, health, a learner's data."""

    name = "operations"
    verbose_name = _("Operations")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django_q.signals import post_execute_in_worker, pre_enqueue, pre_execute

        from operations import request_log

        pre_enqueue.connect(request_log.task_enqueued, dispatch_uid="parsnip-request-id")
        pre_execute.connect(request_log.task_starting, dispatch_uid="parsnip-request-id")
        post_execute_in_worker.connect(request_log.task_finished, dispatch_uid="parsnip-request-id")
