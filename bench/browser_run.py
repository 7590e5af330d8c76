"""Run in the learner's browser against Run on the server, on Parsnip served as `make run`
serves it (gunicorn, WhiteNoise's compressed static files, the worker; bench/served.py).

For each repetition, in a fresh browser profile (nothing cached):
- first load: the bytes fetched to load Python (the interpreter, the standard library, the
  worker and the modules beside it; compressed as served) and the time from the first Run's
  click to "Python is ready", unthrottled and on a throttled connection (CDP network
  emulation: THROTTLE below);
- warm runs: click -> output on the page, for each snippet of the seed lesson, in the
  browser and on the server, in turn (so both see the same machine), ROUNDS times; p50/p95;
- second visit: a new page in the same browser profile (its HTTP cache kept, as when the
  learner comes back to the lesson another day): the requests for Python's files that
  reached the server (gunicorn's access log) and the body bytes the browser received for
  them (goal: none, every file from the cache), and the time from the first Run's click to
  "Python is ready";
- with --on-disk, also a profile kept on disk as a learner's own browser keeps it: Python
  loaded once, the browser closed and started again, the lesson opened and Run clicked:
  the same two figures (the disk cache, and whatever code cache Chromium keeps there).

    .venv/bin/python bench/browser_run.py [--repeat 3] [--rounds 10] [--on-disk]

Goal (issue 41): a warm browser run's click -> output p95 <= 100 ms.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

from bench.harness import p95
from bench.served import Site

SEED = "/learn/local-models/optimising-speed-and-memory/"
PASSWORD = "bench-password-1"
# A school's shared connection: 10 Mbit/s down, 5 up, 40 ms.
THROTTLE = {"offline": False, "latency": 40, "downloadThroughput": 10e6 / 8, "uploadThroughput": 5e6 / 8}
LOADING_MS = 600_000
CHROMIUM = {"executable_path": "/usr/bin/chromium", "headless": True, "args": ["--no-sandbox", "--disable-gpu"]}

# Click Run and wait in the page until the output panel is replaced by a final answer; the
# time is the page's own (performance.now()), so the driver's round trips are not in it.
CLICK_TO_OUTPUT = """async ([key, where]) => {
  const form = document.querySelector(`#snippet-${key}-practice form.run-form`);
  if (where === "server") form.dataset.toServer = "1";
  const old = document.getElementById(`snippet-${key}-output`);
  const started = performance.now();
  form.querySelector(".run-button").click();
  return await new Promise((resolve) => {
    const check = () => {
      const now = document.getElementById(`snippet-${key}-output`);
      const where_ = now && now.querySelector(".ran-where");
      if (now !== old && where_) { resolve([performance.now() - started, where_.textContent]); return true; }
      return false;
    };
    if (check()) return;
    const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
    observer.observe(document.body, { childList: true, subtree: true });
  });
}"""


def prepare() -> tuple[str, list[str]]:
    """A learner who has revealed every snippet of the seed lesson; the snippets' keys."""
    from django.contrib.auth import get_user_model

    from course.kinds.snippet import Snippet
    from tutor.practice.snippet.models import Prediction

    username = f"bench-{os.getpid()}"
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    snippets = list(
        Snippet.objects.filter(block__lesson__slug=SEED.rstrip("/").rsplit("/", 1)[1])
        .select_related("block").order_by("block__position")
    )
    for snippet in snippets:
        Prediction.objects.create(user=user, snippet=snippet, snippet_version=snippet.version,
                                  text="x", verdict=Prediction.Verdict.WRONG, is_first=True)  # fmt: skip
    return username, [snippet.block.key for snippet in snippets]


def log_in(page, url: str, username: str) -> None:
    page.goto(url + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda u: "/accounts/login/" not in u)


PYTHON_FILES = ("/vendor/pyodide-", "python-worker", "python.json")


def python_files(page, details: list | None = None) -> dict[str, int]:
    """Filled as the page loads Python: each file's URL and the bytes it took over the
    network (body as sent, compressed, and headers). `details`, if given, gets each file's
    name, status, body and header bytes."""
    fetched = {}

    def finished(request):
        if any(part in request.url for part in PYTHON_FILES):
            sizes = request.sizes()
            body, headers = max(0, sizes["responseBodySize"]), max(0, sizes["responseHeadersSize"])
            fetched[request.url] = body + headers
            if details is not None:
                response = request.response()
                details.append((request.url.rsplit("/", 1)[1].split("?")[0],
                                response.status if response else None, body, headers))

    page.on("requestfinished", finished)
    return fetched


def click_until_ready(page, key: str) -> float:
    """ms from the first Run's click to "Python is ready" on the page."""
    status = page.locator(f"#snippet-{key}-practice .browser-python-status")
    started = time.perf_counter()
    page.locator(f"#snippet-{key}-practice .run-button").click()
    status.filter(has_text="Python is ready").wait_for()
    return (time.perf_counter() - started) * 1000


def first_load(browser, url: str, username: str, keys: list[str], *, throttle: bool):
    """(bytes, ms) from the first Run's click to Python ready; the page, ready for warm runs."""
    context = browser.new_context(base_url=url)
    page = context.new_page()
    page.set_default_timeout(LOADING_MS)
    log_in(page, url, username)
    page.goto(SEED)
    fetched = python_files(page)
    cdp = context.new_cdp_session(page)
    if throttle:
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", THROTTLE)
    ms = click_until_ready(page, keys[0])
    if throttle:
        cdp.send("Network.emulateNetworkConditions", {**THROTTLE, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    return sum(fetched.values()), ms, len(fetched), context, page


def second_visit(context, keys: list[str], access_log: Path) -> tuple[int, int, float, list]:
    """A new page of the lesson in the same profile, after the first page is closed:
    (requests for Python's files that reached the server, body bytes received for them, ms
    from the first Run's click to Python ready, each file's name, status, body and header
    bytes as the browser reports them; a file from the cache has a body of 0 bytes)."""
    page = context.new_page()
    page.set_default_timeout(LOADING_MS)
    page.goto(SEED)
    logged = len(access_log.read_text().splitlines())
    details = []
    python_files(page, details)
    ms = click_until_ready(page, keys[0])
    page.wait_for_load_state("networkidle")  # every file's requestfinished has been seen
    page.close()
    return asked_of_server(access_log, logged), sum(body for _, _, body, _ in details), ms, details


def asked_of_server(access_log: Path, logged: int) -> int:
    """Requests for Python's files the server answered since its log had `logged` lines."""
    asked = [line.split('"')[1] for line in access_log.read_text().splitlines()[logged:]]
    return sum(1 for request in asked if any(part in request for part in PYTHON_FILES))


def after_restart(playwright, url: str, username: str, keys: list[str], access_log: Path):
    """A profile on disk: Python loaded once, the browser closed and started again, the
    lesson opened: (requests for Python's files that reached the server, ms to ready)."""
    with tempfile.TemporaryDirectory(prefix="parsnip-profile-") as profile:
        for _ in ("first", "after the restart"):
            context = playwright.chromium.launch_persistent_context(profile, base_url=url, **CHROMIUM)
            page = context.new_page()
            page.set_default_timeout(LOADING_MS)
            log_in(page, url, username)  # whether or not the session cookie outlived the browser
            page.goto(SEED)
            logged = len(access_log.read_text().splitlines())
            ms = click_until_ready(page, keys[0])
            page.wait_for_load_state("networkidle")
            context.close()
    return asked_of_server(access_log, logged), ms


def warm_runs(page, keys: list[str], rounds: int) -> tuple[list[float], list[float]]:
    browser_ms, server_ms = [], []
    for _ in range(rounds):
        for key in keys:
            ms, where = page.evaluate(CLICK_TO_OUTPUT, [key, "browser"])
            assert where == "Ran in your browser", (key, where)
            browser_ms.append(ms)
            ms, where = page.evaluate(CLICK_TO_OUTPUT, [key, "server"])
            assert where == "Ran on the server", (key, where)
            server_ms.append(ms)
    return browser_ms, server_ms


def spread(values: list[float], digits: int = 0) -> str:
    return (f"median {statistics.median(values):.{digits}f}, min {min(values):.{digits}f}, "
            f"max {max(values):.{digits}f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--on-disk", action="store_true",
                        help="also a second visit after the browser restarts, profile on disk")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    logs = Path(tempfile.mkdtemp(prefix="parsnip-access-"))
    access_log = logs / "access.log"  # each request gunicorn answered: what reached the server
    env = {"RUNS_PER_MINUTE": "100000", "BROWSER_RUNS_PER_MINUTE": "100000", "RUN_IN_BROWSER": "1",
           "ACCESS_LOG": str(access_log)}  # fmt: skip
    loads_before = os.getloadavg()
    with Site(env=env) as site:
        username, keys = prepare()  # before the driver's event loop starts in this thread
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(**CHROMIUM)
        rows, restarted = [], []
        for repetition in range(args.repeat):
            size, fast_ms, files, context, page = first_load(browser, site.url, username, keys, throttle=False)
            browser_ms, server_ms = warm_runs(page, keys, args.rounds)
            page.close()  # the learner leaves; the profile and its cache stay
            reached, again_size, again_ms, again_files = second_visit(context, keys, access_log)
            print("second visit's files (name, status, body bytes, header bytes):", again_files)
            context.close()
            slow_size, slow_ms, _, context, _ = first_load(browser, site.url, username, keys, throttle=True)
            context.close()
            rows.append((size, fast_ms, slow_ms, p95(browser_ms), statistics.median(browser_ms),
                         p95(server_ms), statistics.median(server_ms), again_size, again_ms,
                         reached))  # fmt: skip
            print(f"run {repetition + 1}: first load {size / 1e6:.2f} MB in {files} files, "
                  f"{fast_ms:.0f} ms unthrottled, {slow_ms:.0f} ms throttled ({slow_size / 1e6:.2f} MB); "
                  f"warm click -> output over {len(browser_ms)} runs of {len(keys)} snippets: "
                  f"browser p50 {rows[-1][4]:.0f} ms p95 {rows[-1][3]:.0f} ms, "
                  f"server p50 {rows[-1][6]:.0f} ms p95 {rows[-1][5]:.0f} ms; second visit "
                  f"{reached} of {len(again_files)} files asked of the server, {again_size} body bytes received, ready in "
                  f"{again_ms:.0f} ms", flush=True)
            if args.on_disk:
                restarted.append(after_restart(playwright, site.url, username, keys, access_log))
                print(f"run {repetition + 1}: after the browser restarts (profile on disk) "
                      f"{restarted[-1][0]} of Python's files asked of the server, ready in "
                      f"{restarted[-1][1]:.0f} ms", flush=True)
        browser.close()
        playwright.stop()
    shutil.rmtree(logs)
    column = lambda n: [row[n] for row in rows]  # noqa: E731
    print(f"\nover {args.repeat} runs (spread: median, min, max)")
    print(f"first load bytes (MB):            {spread([b / 1e6 for b in column(0)], 2)}")
    print(f"first load, unthrottled (ms):     {spread(column(1))}")
    print(f"first load, 10 Mbit/s 40 ms (ms): {spread(column(2))}")
    print(f"second visit, files from server:  {spread(column(9))}   goal 0 (all from the cache)")
    print(f"second visit, body bytes received: {spread(column(7))}")
    print(f"second visit, to ready (ms):      {spread(column(8))}")
    if restarted:
        print(f"after a restart, from server:     {spread([r[0] for r in restarted])}")
        print(f"after a restart, to ready (ms):   {spread([r[1] for r in restarted])}")
    print(f"warm browser run p95 (ms):        {spread(column(3))}   goal <= 100")
    print(f"warm server run p95 (ms):         {spread(column(5))}")
    ratio = [server / browser for browser, server in zip(column(3), column(5), strict=True)]
    print(f"server p95 / browser p95:         {spread(ratio, 1)}")
    print(f"load average before {loads_before[0]:.2f} {loads_before[1]:.2f}, after "
          f"{os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1 and 5 min) on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
