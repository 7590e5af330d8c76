"""Every request logs one line with its id, status and time; the id goes back on the
response and rides along with the tasks the request queues, into the worker's log lines."""

import json
import logging

import pytest
from django.urls import reverse
from django_q.signals import post_execute_in_worker, pre_enqueue, pre_execute

from operations.request_log import TASK_KEY
from tests.factories import make_prediction, make_snippet, make_user

pytestmark = pytest.mark.django_db


def json_lines(caplog, logger: str) -> list[dict]:
    from pythonjsonlogger.json import JsonFormatter

    formatter = JsonFormatter(["asctime", "levelname", "name", "message", "request_id"])
    return [json.loads(formatter.format(r)) for r in caplog.records if r.name == logger]


def test_a_request_logs_one_json_line_with_its_id(client, caplog):
    caplog.set_level(logging.INFO, logger="parsnip.requests")
    response = client.get("/")
    [line] = json_lines(caplog, "parsnip.requests")
    assert line["request_id"] == response["X-Request-ID"] and len(line["request_id"]) == 32
    assert (line["method"], line["path"], line["status"]) == ("GET", "/", 200)
    assert line["duration_ms"] >= 0 and line["user_id"] is None


def test_a_proxys_request_id_is_kept_and_a_hostile_one_is_not(client):
    assert client.get("/", HTTP_X_REQUEST_ID="lb-1234abcd")["X-Request-ID"] == "lb-1234abcd"
    made = client.get("/", HTTP_X_REQUEST_ID="<script>\n")["X-Request-ID"]
    assert made != "<script>\n" and len(made) == 32


# The run is queued when the click's own transaction commits, inside the request: real commits.
@pytest.mark.django_db(transaction=True)
def test_a_run_queued_by_a_click_carries_the_clicks_id_into_the_worker(client, caplog, settings):
    """The learner presses Run; the task the worker receives carries the click's request id,
    and the worker's log line for it says the same id."""
    settings.RUN_WAIT_SECONDS = 0  # no worker here: answer at once
    learner = make_user()
    snippet = make_snippet()
    make_prediction(learner, snippet)  # revealed: the code is the learner's to run
    client.force_login(learner)
    queued = []

    def keep(sender, task, **kwargs):
        queued.append(dict(task))

    pre_enqueue.connect(keep, dispatch_uid="test-keep")
    try:
        response = client.post(
            reverse("tutor:run_create", args=[snippet.pk]),
            {"code": 'print("hi")\r\n'}, HTTP_HX_REQUEST="true",
        )
    finally:
        pre_enqueue.disconnect(dispatch_uid="test-keep")
    assert queued, response.status_code
    assert queued[-1][TASK_KEY] == response["X-Request-ID"]

    # What the worker does with that task: its log line carries the click's id.
    caplog.set_level(logging.INFO, logger="parsnip.tasks")
    task = {**queued[-1], "success": True}
    pre_execute.send(sender="django_q", func=None, task=task)
    post_execute_in_worker.send(sender="django_q", func=None, task=task)
    [line] = json_lines(caplog, "parsnip.tasks")
    assert line["request_id"] == response["X-Request-ID"]
    assert line["success"] is True and line["func"] == "tutor.tasks.execute_run"
