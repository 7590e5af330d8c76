"""One JSON log line per request and per background task, joined by a request id.

The id comes from the proxy's X-Request-ID when it sends a sane one (or is made here), is
sent back on the response, rides along with every task the request enqueues (django-q2's
pre_enqueue signal adds it to the task), and is set again in the worker before the task
runs: a learner's click and the run it queued share one id in the logs.
"""

import logging
import re
import time
import uuid
from contextvars import ContextVar

request_id: ContextVar[str] = ContextVar("request_id", default="")
TASK_KEY = "parsnip_request_id"
SANE_ID = re.compile(r"^[A-Za-z0-9._-]{8,128}$")

requests_log = logging.getLogger("parsnip.requests")
tasks_log = logging.getLogger("parsnip.tasks")


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every log record (empty outside a request or task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


def request_log_middleware(get_response):
    def middleware(request):
        given = request.headers.get("X-Request-ID", "")
        token = request_id.set(given if SANE_ID.match(given) else uuid.uuid4().hex)
        started = time.perf_counter()
        response = get_response(request)
        response["X-Request-ID"] = request_id.get()
        user = getattr(request, "user", None)
        requests_log.info(
            "%s %s %s", request.method, request.path, response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                "user_id": user.pk if user is not None and user.is_authenticated else None,
                "htmx": request.headers.get("HX-Request") == "true",
            },
        )
        request_id.reset(token)
        return response

    return middleware


def task_enqueued(sender, task, **kwargs) -> None:
    if current := request_id.get():
        task[TASK_KEY] = current


def task_starting(sender, task, **kwargs) -> None:
    request_id.set(task.get(TASK_KEY) or f"task-{task.get('id', '')}")
    task["_parsnip_started"] = time.perf_counter()


def task_finished(sender, task, **kwargs) -> None:
    started = task.pop("_parsnip_started", None)
    tasks_log.info(
        "%s %s", task.get("func"), "ok" if task.get("success") else "failed",
        extra={
            "task": task.get("name"),
            "func": str(task.get("func")),
            "task_args": [a for a in task.get("args", ()) if isinstance(a, int | str)],
            "success": bool(task.get("success")),
            "duration_ms": round((time.perf_counter() - started) * 1000, 1) if started else None,
        },
    )
    request_id.set("")
