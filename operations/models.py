from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Heartbeat(models.Model):
    """A worker machine's last sign of life: every minute a worker of that machine runs a
    tiny program in the sandbox and notes when and how it went (the health page reads it)."""

    host = models.CharField(_("worker machine"), max_length=255, unique=True)
    beat_at = models.DateTimeField(_("last seen"), default=timezone.now)
    sandbox_ok = models.BooleanField(_("sandbox ran"), default=False)
    sandbox_detail = models.CharField(_("what the sandbox said"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("worker heartbeat")
        verbose_name_plural = _("worker heartbeats")

    def __str__(self) -> str:
        return self.host
