"""A hint ladder's rungs a learner took: one row per learner, block and rung, so the
server alone decides how much of the ladder (hints, then the solution's pieces) a page shows."""

from django.conf import settings
from django.db import models
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from course.models import Block


class HintUseQuerySet(models.QuerySet):
    def highest(self, user, blocks) -> dict[int, int]:
        """The highest rung the user took on each of `blocks`, by block pk (one query)."""
        # order_by(): the model's ordering would group by each row's time too.
        rows = self.filter(user=user, block__in=blocks).order_by().values("block_id").annotate(top=Max("rung"))
        return {row["block_id"]: row["top"] for row in rows}


class HintUse(models.Model):
    """A learner took one rung of a block's hint ladder (rungs count from 1: the hints,
    then the solution's pieces). A rung is taken once: a double click takes one."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="hint_uses",
        verbose_name=_("user"),
    )
    block = models.ForeignKey(
        Block, on_delete=models.PROTECT, related_name="hint_uses", verbose_name=_("block")
    )
    rung = models.PositiveIntegerField(verbose_name=_("rung"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    objects = HintUseQuerySet.as_manager()

    class Meta:
        app_label = "tutor"
        verbose_name = _("hint used")
        verbose_name_plural = _("hints used")
        ordering = ["at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "block", "rung"], name="one_use_per_rung")
        ]

    def __str__(self) -> str:
        return f"{self.user} on {self.block}: rung {self.rung}"
