"""/metrics/ gives Prometheus the run queue's depth and how long learners wait, to a scraper
with the token only."""

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import make_run
from tutor.models import Run

pytestmark = pytest.mark.django_db

TOKEN = "scrape-me-0123456789"


@pytest.fixture
def token(settings):
    settings.METRICS_TOKEN = TOKEN
    return {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}


def samples(response) -> dict[tuple, float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.content.decode())
        for s in family.samples
    }


def test_queue_depth_and_waits(client, token):
    now = timezone.now()
    for _ in range(3):
        make_run(status=Run.Status.QUEUED)
    make_run(status=Run.Status.RUNNING, started_at=now)
    for wait in (1, 2, 3, 4, 10):
        make_run(status=Run.Status.OK, created_at=now - timedelta(seconds=60),
                 started_at=now - timedelta(seconds=60 - wait / 2),
                 finished_at=now - timedelta(seconds=60 - wait))
    make_run(status=Run.Status.OK, created_at=now - timedelta(hours=1),
             finished_at=now - timedelta(minutes=59))  # outside the window

    response = client.get("/metrics/", **token)

    assert response.status_code == 200
    got = samples(response)
    assert got[("parsnip_runs", (("status", "queued"),))] == 3
    assert got[("parsnip_runs", (("status", "running"),))] == 1
    assert got[("parsnip_runs_finished_recent", (("status", "ok"),))] == 5
    assert got[("parsnip_run_latency_seconds", (("quantile", "0.5"),))] == pytest.approx(3)
    assert got[("parsnip_run_latency_seconds", (("quantile", "1"),))] == pytest.approx(10)
    assert got[("parsnip_run_queue_seconds", (("quantile", "1"),))] == pytest.approx(5)


def test_metrics_need_the_token(client, token):
    assert client.get("/metrics/").status_code == 401
    assert client.get("/metrics/", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401


def test_metrics_are_off_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics/").status_code == 404
