"""What the Content-Security-Policy refuses in a browser is reported to the server and
logged (config/csp.py): an intermittent refusal (issue 39) is heard of, with its sample."""

import json
import logging

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

REPORT = {
    "csp-report": {
        "document-uri": "http://testserver/learn/c/l/",
        "violated-directive": "style-src-attr",
        "effective-directive": "style-src-attr",
        "blocked-uri": "inline",
        "source-file": "http://testserver/static/vendor/htmx.min.js",
        "line-number": 1,
        "script-sample": "height: 80px",
    }
}


def test_the_policy_asks_for_reports_with_a_sample(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "report-uri /csp-report/" in policy
    assert "style-src 'self' 'report-sample'" in policy
    assert "unsafe-inline" not in policy


def test_a_report_is_logged_in_one_line_with_what_was_refused(client, caplog):
    with caplog.at_level(logging.WARNING, logger="parsnip.csp"):
        response = client.post(
            reverse("csp_report"), json.dumps(REPORT), content_type="application/csp-report"
        )
    assert response.status_code == 204
    [record] = [r for r in caplog.records if r.name == "parsnip.csp"]
    line = record.getMessage()
    assert "document-uri=http://testserver/learn/c/l/" in line
    assert "violated-directive=style-src-attr" in line and "script-sample=height: 80px" in line


@pytest.mark.parametrize(
    "body", ["", "not json", "[]", '{"other": 1}', '{"csp-report": "x"}', '{"csp-report": null}']
)
def test_what_is_not_a_report_is_refused_and_not_logged(client, caplog, body):
    with caplog.at_level(logging.WARNING, logger="parsnip.csp"):
        response = client.post(reverse("csp_report"), body, content_type="application/csp-report")
    assert response.status_code == 400
    assert not [r for r in caplog.records if r.name == "parsnip.csp"]


def test_a_huge_report_or_a_get_is_refused(client):
    huge = {"csp-report": {"script-sample": "x" * 20_000}}
    response = client.post(reverse("csp_report"), json.dumps(huge), content_type="application/json")
    assert response.status_code == 413
    assert client.get(reverse("csp_report")).status_code == 405
