from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OperationsConfig(AppConfig):
    """What a school's IT person runs Parsnip with: backups, health, a learner's data."""

    name = "operations"
    verbose_name = _("Operations")
    default_auto_field = "django.db.models.BigAutoField"
