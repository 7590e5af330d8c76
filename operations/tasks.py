"""The worker's heartbeat, scheduled every minute (migration 0002)."""

import socket

from django.conf import settings
from django.utils import timezone

from operations import retention
from operations.models import Heartbeat
from tutor import sandbox

PROBE = "print(6 * 7)"


def heartbeat() -> bool:
    """Runs a tiny program in the sandbox as a learner's run would, and notes the time and
    the outcome for this machine. Returns whether the sandbox gave the right output."""
    try:
        result = sandbox.run(PROBE, limits=sandbox.Limits(wall_seconds=10))
        ok = result.status == "ok" and result.stdout == "42\n"
        detail = "" if ok else f"{result.status}: {(result.stderr or result.stdout)[-400:]}"
    except Exception as error:  # noqa: BLE001 - any failure is what the health page reports
        ok, detail = False, f"{type(error).__name__}: {error}"[:500]
    Heartbeat.objects.update_or_create(
        host=getattr(settings, "HEARTBEAT_HOST", None) or socket.gethostname(),
        defaults={"beat_at": timezone.now(), "sandbox_ok": ok, "sandbox_detail": detail},
    )
    return ok


def purge_old_records() -> dict[str, int]:
    """Scheduled every day (migration 0003): records older than RETENTION_DAYS go."""
    return retention.purge()
