"""What a load balancer or a monitor asks: is every part that a class needs up?

django-health-check runs each check at once and answers 200 when all pass, 500 (with the
failing part named) otherwise; `?format=json` or `Accept: application/json` for machines.
"""

import asyncio
import dataclasses
import datetime
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.generic import View
from health_check.base import HealthCheck
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView

from operations.models import Heartbeat

# A worker beats every minute; three missed beats and it is down.
HEARTBEAT_STALE_AFTER = datetime.timedelta(minutes=3)


class GivesConnectionsBack:
    """The checks run in the event loop's worker threads, which outlive the request: a
    connection one of them opened would be kept from the pool for good."""

    def run(self) -> None:
        try:
            self.check()
        finally:
            connections.close_all()  # this thread's only


@dataclasses.dataclass
class Worker(GivesConnectionsBack, HealthCheck):
    """A worker (manage.py qcluster) beat within the last three minutes."""

    def check(self) -> None:
        latest = Heartbeat.objects.order_by("-beat_at").first()
        if latest is None:
            raise ServiceUnavailable("No worker has ever run (start manage.py qcluster).")
        if timezone.now() - latest.beat_at > HEARTBEAT_STALE_AFTER:
            raise ServiceUnavailable(
                f"No worker seen since {latest.beat_at:%Y-%m-%d %H:%M} UTC ({latest.host})."
            )


@dataclasses.dataclass
class Sandbox(GivesConnectionsBack, HealthCheck):
    """The newest worker's last sandbox run gave the right output."""

    def check(self) -> None:
        latest = Heartbeat.objects.order_by("-beat_at").first()
        if latest is None:
            raise ServiceUnavailable("The sandbox has not run yet (no worker).")
        if not latest.sandbox_ok:
            raise ServiceUnavailable(f"The sandbox failed on {latest.host}: {latest.sandbox_detail}")


def checks() -> list:
    found = [
        "health_check.checks.Database",  # on a connection it closes again
        "health_check.checks.Cache",
        (Worker, {}),
        (Sandbox, {}),
    ]
    if settings.REDIS_URL:
        from redis.asyncio import Redis

        url = settings.REDIS_URL
        found.append(("health_check.contrib.redis.Redis",
                      {"client_factory": lambda: Redis.from_url(url, socket_timeout=3)}))
    return found


# The page's names for the parts (the JSON keeps the library's own, which monitors read).
PART_NAMES = {
    "Database": _("Database"),
    "Cache": _("Cache"),
    "Redis": _("Redis (the queue on the scale-out path)"),
    "Worker": _("Worker (manage.py qcluster)"),
    "Sandbox": _("Sandbox"),
}


def part_name(check) -> str:
    name = type(check).__name__
    return str(PART_NAMES.get(name, name))


class ParsnipHealthView(HealthCheckView):
    """The health page: database, cache, Redis (when the scale-out path uses it), a worker
    alive and its sandbox able to run."""

    def get_checks(self):
        self.checks = checks()
        return super().get_checks()

    # A plain (sync) view: under WSGI Django would call the library's async one through
    # async_to_sync, which fails in a thread that already runs an event loop (a test's
    # browser driver does); the checks run on an event loop of their own, in a thread of
    # their own, and the view is the same to every caller.
    @method_decorator(transaction.non_atomic_requests)
    def dispatch(self, request, *args, **kwargs):
        response = View.dispatch(self, request, *args, **kwargs)
        patch_vary_headers(response, ["Accept"])
        add_never_cache_headers(response)
        return response

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["parts"] = [
            {"name": part_name(result.check), "error": result.error, "took": result.time_taken}
            for result in self.results
        ]
        return context

    def get(self, request, *args, **kwargs):
        checked = HealthCheckView.get(self, request, *args, **kwargs)  # a coroutine
        with ThreadPoolExecutor(max_workers=1) as thread:
            return thread.submit(asyncio.run, checked).result()
