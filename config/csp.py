"""Where browsers report what the Content-Security-Policy refused (settings.SECURE_CSP's
`report-uri`). A refusal happens in a learner's browser, often only now and then (an inline
style some script set, a swap): the report, with the first characters of what was refused
(`'report-sample'`), is how the server hears of it. Each goes to the log, one line."""

import json
import logging

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

logger = logging.getLogger("parsnip.csp")

MAX_REPORT_BYTES = 8_000  # a report is a few hundred bytes; more is not a browser's report
FIELDS = ("document-uri", "violated-directive", "blocked-uri", "source-file", "line-number", "script-sample")


def said(value) -> str:
    return str(value)[:200].replace("\n", " ") if value is not None else "-"


@csrf_exempt  # the browser sends it on its own, with no token
@require_POST
def csp_report(request: HttpRequest) -> HttpResponse:
    if len(request.body) > MAX_REPORT_BYTES:
        return HttpResponse(status=413)
    try:
        report = json.loads(request.body)["csp-report"]
    except (ValueError, KeyError, TypeError):
        return HttpResponseBadRequest("Not a CSP report.")
    if not isinstance(report, dict):
        return HttpResponseBadRequest("Not a CSP report.")
    logger.warning(
        "CSP refused: %s", " ".join(f"{field}={said(report.get(field))}" for field in FIELDS)
    )
    return HttpResponse(status=204)
