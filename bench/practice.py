"""Predict-then-reveal and Run, as a learner sees them: press the button, wait for the output.

Choice: Playwright driving the system Chromium against Parsnip served exactly as `make run`
serves it (bench/served.py: gunicorn and the django-q2 worker, DEBUG off) on a throw-away
SQLite database (the embedded default: SQLite + django-q2's ORM broker), so the figures
include the browser, htmx, the view's wait for the worker's notice, the queue and the
worker. Timed from the click to the output being
shown in the page (measured in the page: click event to the frame after the output enters the
DOM). Three cases, on the seed lesson's first snippet:

- reveal, first learner: no cached output, so the snippet runs in the sandbox;
- reveal, cached: the output of this version of the code is already known;
- run: the learner presses Run in the editor.

The baseline is `tutor.sandbox.run` alone on the same code, measured in this same run; each
figure is also printed as a ratio to it.

    .venv/bin/python bench/practice.py [--runs 15]
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import os
import statistics
import time

from harness import p95
from bench.served import Site
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tutor import sandbox

BASE_DIR = harness.ROOT

SEED = "/learn/local-models/optimising-speed-and-memory/"
SNIPPET = "#snippet-backend-latency"
USERNAME, PASSWORD = "bench-learner", "bench-password-123"


def measure_sandbox(code: str, runs: int) -> list[float]:
    for _ in range(3):
        sandbox.run(code)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        assert sandbox.run(code).status == "ok"
        times.append((time.perf_counter() - started) * 1000)
    return times


# Timed inside the page, from the click event to the frame after the output enters the DOM, so
# Playwright's own pre-click checks (scrolling, waiting for a stable element) do not count.
WATCH = """(selector) => {
  const times = (window.__bench = {});
  document.addEventListener("click", () => { times.click = performance.now(); }, { capture: true, once: true });
  const observer = new MutationObserver(() => {
    if (document.querySelector(selector)) {
      observer.disconnect();
      requestAnimationFrame(() => { times.shown = performance.now(); });
    }
  });
  observer.observe(document.body, { childList: true, subtree: true });
}"""


def timed(page, button, selector: str) -> float:
    page.evaluate(WATCH, selector)
    button.click()
    page.wait_for_function("() => window.__bench.shown !== undefined")
    return page.evaluate("() => window.__bench.shown - window.__bench.click")


def measure_page(base_url: str, runs: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    from tutor.models import Run
    from tutor.practice.snippet.models import Prediction

    results: dict[str, list[float]] = {"reveal, first learner": [], "reveal, cached": [], "run": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(base_url=base_url)
        page.set_default_timeout(30_000)
        page.goto("/accounts/login/")
        page.get_by_label("Username").fill(USERNAME)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url("**/")

        practice = page.locator(f"{SNIPPET}-practice")
        for n in range(runs + 2):  # the first two warm up the server, worker and browser
            for case, forget_output in (("reveal, first learner", True), ("reveal, cached", False)):
                Prediction.objects.all().delete()
                if forget_output:
                    Run.objects.filter(purpose=Run.Purpose.REVEAL).delete()
                page.goto(SEED)
                button = practice.get_by_role("button", name="I said it out loud")
                elapsed = timed(page, button, f"{SNIPPET}-answer .real-output")
                if n >= 2:
                    results[case].append(elapsed)
            run_button = practice.get_by_role("button", name="Run", exact=True)
            elapsed = timed(page, run_button, f"{SNIPPET}-output .run-stdout")
            if n >= 2:
                results["run"].append(elapsed)
        browser.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # ORM next to Playwright's loop
    with Site(env={"RUNS_PER_MINUTE": "10000", "PREDICTIONS_PER_MINUTE": "10000"}) as site:
        from django.contrib.auth.models import User

        from course.kinds.snippet import Snippet

        User.objects.create_user(USERNAME, password=PASSWORD)
        code = Snippet.objects.get(block__key=SNIPPET.removeprefix("#snippet-")).code
        results = measure_page(site.url, args.runs)

    baseline = measure_sandbox(code, args.runs)
    base = statistics.median(baseline)
    print(f"Seed lesson, first snippet; {args.runs} rounds; Playwright against Parsnip served as "
          "`make run` serves it (gunicorn + qcluster, SQLite).")
    print(f"{'sandbox run alone:':<26}median {base:7.1f} ms   p95 {p95(baseline):7.1f} ms")
    for name, times in results.items():
        median = statistics.median(times)
        print(
            f"{name + ':':<26}median {median:7.1f} ms   p95 {p95(times):7.1f} ms   "
            f"ratio to sandbox alone {median / base:5.2f}x"
        )


if __name__ == "__main__":
    main()
