"""/metrics/ for Prometheus: the run queue's depth and how long learners wait for runs.

Read from the database at each scrape, so every web process answers for the whole site
(no per-process counters to add up). Off unless METRICS_TOKEN is set; a scraper sends it
as `Authorization: Bearer <token>`.
"""

import hmac
import statistics
from datetime import timedelta

from django.conf import settings
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from tutor.models import Run

WINDOW = timedelta(minutes=5)


class RunCollector:
    def collect(self):
        now = timezone.now()
        by_status = dict(
            Run.objects.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING])
            .values_list("status").annotate(n=Count("pk")).values_list("status", "n")
        )
        waiting = GaugeMetricFamily("parsnip_runs", "Runs not yet final, by status",
                                    labels=["status"])
        for status in (Run.Status.QUEUED, Run.Status.RUNNING):
            waiting.add_metric([status], by_status.get(status, 0))
        yield waiting

        recent = list(
            Run.objects.filter(created_at__gte=now - WINDOW, finished_at__isnull=False)
            .values_list("created_at", "started_at", "finished_at", "status")
        )
        finished = GaugeMetricFamily(
            "parsnip_runs_finished_recent", "Runs finished in the last 5 minutes, by status",
            labels=["status"],
        )
        counts: dict[str, int] = {}
        for *_, status in recent:
            counts[status] = counts.get(status, 0) + 1
        for status, n in sorted(counts.items()):
            finished.add_metric([status], n)
        yield finished

        latency = GaugeMetricFamily(
            "parsnip_run_latency_seconds",
            "From the click to the run's result, over runs finished in the last 5 minutes",
            labels=["quantile"],
        )
        in_queue = GaugeMetricFamily(
            "parsnip_run_queue_seconds",
            "From the click to a worker starting the run, last 5 minutes",
            labels=["quantile"],
        )
        for family, spans in (
            (latency, [(f - c).total_seconds() for c, _, f, _ in recent]),
            (in_queue, [(s - c).total_seconds() for c, s, _, _ in recent if s]),
        ):
            for quantile, value in quantiles(spans).items():
                family.add_metric([quantile], value)
            yield family


def quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    if len(values) == 1:
        return {"0.5": values[0], "0.95": values[0], "1": values[0]}
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    return {"0.5": cuts[9], "0.95": cuts[18], "1": max(values)}


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404("Metrics are off (set METRICS_TOKEN).")
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), token.encode()):
        return HttpResponse("A bearer token is needed.\n", status=401,
                            content_type="text/plain", headers={"WWW-Authenticate": "Bearer"})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RunCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
