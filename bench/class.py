"""A whole class at once: N learners over real HTTP press Reveal, then Run, together.

    .venv/bin/python bench/class.py N [--pg] [--fault redis|pg [--down SECONDS]]
        [--runs-each K] [--browser-runs]

Starts Parsnip exactly as `make run` does (bench/served.py: gunicorn + the django-q2
worker, DEBUG off) on a throw-away SQLite database -- or, with --pg, on PostgreSQL with
Redis as the broker, the scale-out deployment. Logs N learners in, then, each phase
released at one instant (a barrier) from N threads:

- open:   every learner opens the seed lesson;
- reveal: every learner types a prediction for the seed's first snippet and presses
          Reveal (one sandbox run serves them all);
- run:    every learner presses Run on an edited version (N sandbox runs); with
          --runs-each K, K times in turn, each on a new edit of their own (N x K runs);
- submit: every learner presses Test it on the seed's code exercise (N gradings, each
          every test of the exercise in one sandbox run).

With --browser-runs, a `browser` phase follows the run phase: every learner's browser
reports the same K runs of their code as run in the browser (static/js/browser-run.js: no
request to run, then one POST of the runs' records, code, input, output, status, to
tutor:browser_runs_record, a batch of at most 10; a learner who clicks K times within its 3
s sends one). The output is what the server's run of that code printed (the parity test
holds them equal). The server's CPU seconds over each phase (everything `make serve`
started: the web server, the worker and the sandboxes, counted by a cpuacct cgroup the
benchmark moves them into), per learner, are printed for both, with the served processes' idle CPU over the phase's
wall time beside them and the ratio of the two; and every run is checked recorded. Compare the two as
the issue asks: what Runs cost the server when it runs them, and when it only keeps them.

With --trail, every learner also edits as trail.js records it (tutor/trail/): an `edit`
phase before each of run and submit sends one batch of edits each (the few seconds of
typing before the click), and the run and the submission carry the last edits, as the
editor sends them. Compare its figures with a run without it.

With --fault, the class runs on a PostgreSQL cluster and a Redis of the benchmark's own
(tests/services.py: never the machine's shared servers), and in the run phase, once the
first three results are back, Redis is shut down (nothing saved) and started again
--down seconds later (default 3), or PostgreSQL is restarted as `pg_ctl restart -m fast`
does (down for --down seconds, default 0). It then says what the class saw: HTTP errors,
"busy, try again" answers (the learner clicks again, as the page asks), the slowest click,
and each run's output checked against the learner's own code.

Each click is followed as the page follows it (htmx headers; a panel that waits is
polled through its own `hx-get`) until its output is final, and timed from the click to
that final answer. Prints per phase done/N, p50, p95, max and HTTP errors, then the rows
afterwards (predictions, runs, any left unfinished), and the floor measured in the same
run: N x one sandbox run / cores, the least time N runs can take on this machine (and
the same for gradings).
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import atexit
import contextlib
import json
import os
import re
import statistics
import threading
import time

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from harness import machine_cpu_seconds, p95
from bench.served import Site
from django.db import connections

SEED = "/learn/local-models/optimising-speed-and-memory/"
FIRST_SNIPPET = "backend-latency"
EXERCISE = "write-kv-cache-vram"
PASSWORD = "bench-class-password-1"
POLL = re.compile(r'hx-get="([^"]+)"\s+data-poll')
# gunicorn's threaded worker can close an idle keep-alive connection at the moment a request
# is sent on it (a reset: benoitc/gunicorn#1698). A browser sends such a request again on a
# new connection; so does this client, for GETs only (never a POST twice), and counts it.
AGAIN = Retry(total=1, connect=1, read=1, status=0, other=0,
              allowed_methods=frozenset({"GET"}), raise_on_status=False)
retried = 0
retried_lock = threading.Lock()
busy = 0  # "busy, try again" answers (503) during a fault: the click or poll sent again
BUSY_AGAIN_SECONDS = {"click": 5, "poll": 2}  # Retry-After; the page's poll asks again after 2 s


def count_busy() -> None:
    global busy
    with retried_lock:
        busy += 1


posted_again = 0


def count_post_again(learner) -> None:
    global posted_again
    learner.posts_again += 1
    with retried_lock:
        posted_again += 1


class Learner:
    def __init__(self, base: str, username: str) -> None:
        self.base = base
        self.username = username
        self.http = requests.Session()
        self.polls = 0  # long polls the last click needed before its answer was final
        self.posts_again = 0  # POSTs sent again after a reset of an idle connection
        self.recorded = 0  # runs made in the browser the server said it kept (--browser-runs)
        self.http.mount("http://", HTTPAdapter(max_retries=AGAIN))

    def get(self, url: str, **options) -> requests.Response:
        global retried
        response = self.http.get(url, **options)
        if response.raw.retries is not None and response.raw.retries.history:
            with retried_lock:
                retried += 1
        return response

    def log_in(self) -> None:
        self.get(self.base + "/accounts/login/", timeout=30)
        response = self.http.post(
            self.base + "/accounts/login/",
            data={"username": self.username, "password": PASSWORD,
                  "csrfmiddlewaretoken": self.http.cookies["csrftoken"]},
            timeout=120,  # a class at once waits for n password hashes (about 0.4 s each)
        )
        if "sessionid" not in self.http.cookies:
            raise RuntimeError(f"{self.username} could not log in: {response.status_code}")

    def open_lesson(self) -> None:
        response = self.get(self.base + SEED, timeout=60)
        response.raise_for_status()

    def click(self, path: str, data: dict[str, str]) -> None:
        """POST as htmx does, then follow the panel's polling until the answer is final.
        A "busy, try again" (503) is clicked again after its Retry-After, as a learner
        would; a poll answered so asks again after 2 s, as the page does."""
        headers = {"HX-Request": "true", "X-CSRFToken": self.http.cookies["csrftoken"],
                   "Referer": self.base + SEED}
        for _ in range(5):
            try:
                response = self.http.post(self.base + path, data=data, headers=headers,
                                          timeout=60)
            except requests.ConnectionError as error:
                # An idle keep-alive connection the server closed as the POST was sent (no
                # answer at all): a browser sends it again on a new connection; so do we, once.
                if "aborted" not in str(error) or self.posts_again:
                    raise
                count_post_again(self)
                response = self.http.post(self.base + path, data=data, headers=headers,
                                          timeout=60)
            if response.status_code != 503:
                break
            count_busy()
            time.sleep(BUSY_AGAIN_SECONDS["click"])
        response.raise_for_status()
        polls = 0
        while match := POLL.search(response.text):
            polls += 1
            if polls > 200:
                raise RuntimeError("still waiting after 200 polls")
            url = self.base + match.group(1).replace("&amp;", "&")
            response = self.get(url, headers={"HX-Request": "true"}, timeout=60)
            while response.status_code == 503:
                count_busy()
                time.sleep(BUSY_AGAIN_SECONDS["poll"])
                response = self.get(url, headers={"HX-Request": "true"}, timeout=60)
            response.raise_for_status()
        self.polls = polls


def where_it_went(name: str, purpose: str, since, learners: list[Learner]) -> None:
    """Where a phase's clicks spent their time, from the Run rows the phase made: waiting in
    the queue (stored -> a worker took it), in the worker (taken -> result saved), and the
    rest of the click (the request around it: logins, the row, the pool, rendering, waking)."""
    from tutor.models import Run

    rows = Run.objects.filter(purpose=purpose, created_at__gte=since,
                              started_at__isnull=False, finished_at__isnull=False)
    queued = sorted((r.started_at - r.created_at).total_seconds() * 1000 for r in rows)
    working = sorted((r.finished_at - r.started_at).total_seconds() * 1000 for r in rows)
    polled = sum(1 for learner in learners if learner.polls)
    if queued:
        print(f"{'':8} in queue p50 {statistics.median(queued):5.0f} p95 {p95(queued):5.0f} ms;"
              f" in worker p50 {statistics.median(working):5.0f} p95 {p95(working):5.0f} ms"
              f" ({len(queued)} runs); clicks that long-polled {polled}")


def at_once(learners: list[Learner], action) -> tuple[list[float], list[str]]:
    """Release `action(learner)` from one thread per learner at one instant; seconds taken
    by each that succeeded, and the errors of the others."""
    barrier = threading.Barrier(len(learners))
    times: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def one(learner: Learner) -> None:
        barrier.wait()
        started = time.perf_counter()
        try:
            action(learner)
        except Exception as exc:  # an HTTP error or a reset is what the benchmark counts
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
            return
        with lock:
            times.append(time.perf_counter() - started)

    threads = [threading.Thread(target=one, args=(learner,)) for learner in learners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times, errors


def report(name: str, n: int, times: list[float], errors: list[str]) -> None:
    if times:
        ms = sorted(t * 1000 for t in times)
        figures = (f"p50 {statistics.median(ms):7.0f} ms   p95 {p95(ms):7.0f} ms   "
                   f"max {ms[-1]:7.0f} ms")
    else:
        figures = "no click finished"
    print(f"{name:<8} done {len(times):>3}/{n:<3}  {figures}   HTTP errors {len(errors)}")
    for error in sorted(set(errors))[:5]:
        print(f"           {errors.count(error)} x {error}")


def running_processes() -> dict[int, tuple[int, str, list[str]]]:
    """Every process now: pid -> (its parent, its command line, the fields of its
    /proc/<pid>/stat after "pid (comm) ")."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # it ended while we looked
        fields = stat[stat.rindex(")") + 2:].split()
        found[int(entry)] = (int(fields[1]), command, fields)
    return found


def started_by(server: int, pid: int, processes: dict) -> bool:
    """Whether `pid` is `server` or one of its descendants."""
    while pid > 1 and pid in processes:
        if pid == server:
            return True
        pid = processes[pid][0]
    return False


def web_peak_memory_mb(server: int) -> float:
    """The largest peak memory (VmHWM: the most resident at any moment, log-ins included)
    of the web processes: the gunicorn processes that `make serve` (pid `server`) started."""
    processes, peaks = running_processes(), [0.0]
    for pid, (_, command, _) in processes.items():
        if "gunicorn" not in command or not started_by(server, pid, processes):
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                peaks += [int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:")]
        except OSError:
            continue  # it ended while we looked
    return max(peaks)


def cpu_seconds_by_part(server: int) -> dict[str, float]:
    """CPU time so far of each part of the machine: the web server and the worker (the
    processes `make serve`, pid `server`, started, by their command line), PostgreSQL,
    Redis, this benchmark's own client threads, and the rest of the machine (/proc/stat's
    total less those: sandboxes that have ended, other programs). Compared before and
    after a phase, it says where that phase's CPU went."""
    tick = os.sysconf("SC_CLK_TCK")
    processes = running_processes()
    parts = dict.fromkeys(("web", "worker", "postgres", "redis", "client"), 0.0)
    for pid, (_, command, fields) in processes.items():
        used = sum(int(v) for v in fields[11:15]) / tick  # utime stime cutime cstime
        if pid == os.getpid():
            part = "client"
        elif started_by(server, pid, processes):  # live ones each, ended ones in their parent's
            part = "web" if "gunicorn" in command else "worker"
        elif command.startswith("postgres"):
            part = "postgres"
        elif command.startswith("redis-server"):
            part = "redis"
        else:
            continue
        parts[part] += used
    parts["other"] = machine_cpu_seconds() - sum(parts.values())
    return parts


def report_cpu(before: dict[str, float], after: dict[str, float], wall: float) -> None:
    """One line: the phase's CPU seconds by part, against what the machine's cores had."""
    spent = {part: after[part] - before[part] for part in after}
    cores = os.cpu_count() or 1
    shares = ", ".join(f"{part} {spent[part]:.2f}" for part in spent)
    print(f"{'':8} cpu s: {shares}; all {sum(spent.values()):.2f} of {cores * wall:.2f} "
          f"({cores} cores x {wall:.2f} s)")


IDLE_SECONDS = 5
CPUACCT = "/sys/fs/cgroup/cpuacct"


class ServedCpu:
    """CPU seconds so far of everything `make serve` (pid `server`) started: the web server,
    the worker and the sandboxes, counted by a cgroup v1 cpuacct group of their own. /proc
    alone cannot: the sandbox's fork server ignores SIGCHLD, so a run's processes are reaped
    by the kernel and their time is in no live process's counters once they end. Where no
    such group can be made, the /proc figures of the web server and the worker, without the
    ended runs (`whole` says which)."""

    def __init__(self, server: int) -> None:
        self.server = server
        self.dir = f"{CPUACCT}/parsnip-bench-{os.getpid()}"
        try:
            os.mkdir(self.dir)
            self.whole = True
        except OSError:
            self.whole = False
        atexit.register(self.close)  # the group goes even if the benchmark stops half-way
        self.gather()

    def gather(self) -> None:
        """Move every process of the served tree into the group (their children are born in it)."""
        if not self.whole:
            return
        for pid in served_pids(self.server):
            with contextlib.suppress(OSError), open(f"{self.dir}/cgroup.procs", "w") as f:
                f.write(str(pid))  # fails for one that has ended since: nothing to count

    def seconds(self) -> float:
        if not self.whole:
            parts = cpu_seconds_by_part(self.server)
            return parts["web"] + parts["worker"]
        self.gather()
        with open(f"{self.dir}/cpuacct.usage") as f:
            return int(f.read()) / 1e9

    def close(self) -> None:
        if not self.whole or not os.path.isdir(self.dir):
            return
        with open(f"{self.dir}/cgroup.procs") as f:
            left = f.read().split()
        for pid in left:  # back where they came from, so the group can go
            with contextlib.suppress(OSError), open(f"{CPUACCT}/cgroup.procs", "w") as f:
                f.write(pid)
        with contextlib.suppress(OSError):
            os.rmdir(self.dir)


def served_pids(server: int) -> list[int]:
    """`server` and every process under it."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    tree, grown = {server}, True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return sorted(tree)


def idle_cpu(served: ServedCpu, *, seconds: float) -> float:
    """CPU seconds a second the served processes take with no learner clicking (the worker
    asks its broker for tasks, gunicorn's workers beat): a phase's floor, for its wall time."""
    before = served.seconds()
    time.sleep(seconds)
    return (served.seconds() - before) / seconds


def create_learners(n: int) -> list[str]:
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    hashed = make_password(PASSWORD)  # hashed once: n accounts need not cost n hashes
    names = [f"learner{i:03d}" for i in range(n)]
    User.objects.bulk_create([User(username=name, password=hashed) for name in names])
    return names


def sandbox_floor(n: int, code: str) -> tuple[float, float]:
    """One sandbox run of the class's code (median of 15) and the floor for n of them."""
    from tutor import sandbox

    for _ in range(3):
        sandbox.run(code)
    times = []
    for _ in range(15):
        started = time.perf_counter()
        sandbox.run(code)
        times.append(time.perf_counter() - started)
    one = statistics.median(times)
    return one, n * one / (os.cpu_count() or 1)


def grading_floor_of(n: int, exercise) -> tuple[float, float]:
    """One grading of the exercise's solution (median of 9) and the floor for n of them."""
    from tutor.practice.code_exercise.actions import PER_TEST_SECONDS, grading_limits, tests_of
    from tutor.sandbox.grading import grade

    tests, limits = tests_of(exercise), grading_limits(exercise)
    grade(exercise.solution, tests, limits=limits, per_test_seconds=PER_TEST_SECONDS)
    times = []
    for _ in range(9):
        started = time.perf_counter()
        grade(exercise.solution, tests, limits=limits, per_test_seconds=PER_TEST_SECONDS)
        times.append(time.perf_counter() - started)
    one = statistics.median(times)
    return one, n * one / (os.cpu_count() or 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="learners in the class")
    parser.add_argument("--pg", action="store_true", help="PostgreSQL + Redis (scale-out)")
    parser.add_argument("--trail", action="store_true", help="editing recorded as trail.js does")
    parser.add_argument("--fault", choices=["redis", "pg"],
                        help="restart private Redis or PostgreSQL during the run phase")
    parser.add_argument("--down", type=float, help="seconds the server stays down "
                        "(default: 3 for redis, 0 for pg, a plain restart)")
    parser.add_argument("--runs-each", type=int, default=1, metavar="K",
                        help="Runs each learner presses in the run phase, in turn (default 1)")
    parser.add_argument("--browser-runs", action="store_true",
                        help="then the same runs made in the browser, only their records sent")
    args = parser.parse_args()

    with contextlib.ExitStack() as stack:
        if args.fault:
            servers = private_servers(stack)
            site = Site()
            servers["postgres"].createdb(site.name)
            site.extra_env.update(DATABASE_URL=servers["postgres"].database_url(site.name),
                                  REDIS_URL=servers["redis"].url)
            down = args.down if args.down is not None else (3.0 if args.fault == "redis" else 0.0)
            fault = Fault(args.fault, servers, down)
        else:
            site, fault = Site(pg=args.pg), None
        stack.enter_context(site)
        class_through(site, args, fault)


def compare_browser_runs(n: int, takes: int, learners: list[Learner], spent_in: dict,
                         idle: float, *, pg: bool, whole: bool) -> None:
    """What the server spent on the class's runs made on it and made in the browser, per
    learner, and that every browser run was kept as the learner's, with what it printed."""
    from tutor.models import Run

    kept = Run.objects.filter(purpose=Run.Purpose.RUN, in_browser=True).select_related("user")
    wrong = [r for r in kept if r.status != Run.Status.OK or "in the browser" not in r.code
             or not r.stdout.endswith(f"{r.user.username} changed it\n")]
    said = sum(learner.recorded for learner in learners)
    print(f"browser  runs kept {kept.count()} (expected {n * takes}), answered as recorded {said}, "
          f"{kept.count() - len(wrong)} with the learner's own code and output")
    # PostgreSQL and Redis are the server's too when they are the deployment's (--pg, --fault);
    # with SQLite (in the served processes) those on the machine are other people's.
    databases = {name: spent_in[name]["postgres"] + spent_in[name]["redis"] if pg else 0.0
                 for name in ("run", "browser")}
    server, browser = (spent_in[name]["served"] + databases[name] for name in ("run", "browser"))
    floor = {name: idle * spent_in[name]["wall"] for name in ("run", "browser")}
    print(f"idle     served processes {idle:.3f} CPU s a second with nobody clicking (over "
          f"{IDLE_SECONDS} s): {floor['run']:.2f} s of the run phase, {floor['browser']:.2f} s of "
          f"the browser phase")
    counted = ("web server, worker and sandboxes (cpuacct cgroup)" if whole else
               "web server and worker from /proc, WITHOUT the sandboxes' runs (no cgroup)")
    print(f"cpu      server's CPU per learner for {takes} Run(s) each ({counted}"
          f"{', PostgreSQL, Redis' if pg else ''}): on the server {server / n * 1000:.0f} ms, "
          f"in the browser {browser / n * 1000:.0f} ms; server / browser "
          f"{server / browser if browser > 0 else float('inf'):.1f}x")


def private_servers(stack: contextlib.ExitStack) -> dict:
    """A PostgreSQL cluster (durable, as a real one: fsync on) and a Redis of our own."""
    from tests.services import PrivatePostgres, PrivateRedis

    return {"postgres": stack.enter_context(PrivatePostgres(durable=True)),
            "redis": stack.enter_context(PrivateRedis())}


class Fault:
    """Restarts a private server once the phase's first three results are back."""

    def __init__(self, kind: str, servers: dict, down: float) -> None:
        self.kind, self.servers, self.down = kind, servers, down
        self.thread: threading.Thread | None = None
        self.said = ""

    def arm(self, purpose: str, since) -> None:
        def watch() -> None:
            from django.db import close_old_connections

            from tutor.models import Run

            while True:
                close_old_connections()
                done = Run.objects.filter(purpose=purpose, created_at__gte=since).final().count()
                if done >= 3:
                    break
                time.sleep(0.05)
            from django.db import connections

            connections.close_all()  # this thread's: the restart ends them anyway
            started = time.perf_counter()
            if self.kind == "redis":
                self.servers["redis"].stop()
                time.sleep(self.down)
                self.servers["redis"].start()
            else:
                self.servers["postgres"].restart(down_for=self.down)
            self.said = (f"fault    {self.kind} {'shut down, nothing saved' if self.kind == 'redis' else 'restarted (fast)'}"
                         f" after {done} results; back after {time.perf_counter() - started:.1f} s")

        self.thread = threading.Thread(target=watch, daemon=True)
        self.thread.start()

    def report(self) -> None:
        if self.thread is not None:
            self.thread.join(120)
        print(self.said or "fault    never injected (fewer than three results came back)")


def class_through(site: Site, args, fault: "Fault | None") -> None:
    n = args.n
    from django.utils import timezone

    from course.kinds.snippet import Snippet
    from tutor.models import Run
    from tutor.practice.snippet.models import Prediction

    snippet = Snippet.objects.get(block__key=FIRST_SNIPPET)
    learners = [Learner(site.url, name) for name in create_learners(n)]
    where = ("PostgreSQL + Redis of its own" if fault else
             "PostgreSQL + Redis" if args.pg else "SQLite + ORM broker (make run)")
    print(f"class of {n} on {where}, {os.cpu_count()} cores, server as `make run` starts it"
          + (", editing recorded (--trail)" if args.trail else ""))
    login_times, errors = at_once(learners, Learner.log_in)
    report("log in", n, login_times, errors)
    if errors:
        raise SystemExit(f"log-in failed for {len(errors)}: {errors[:3]}")

    def reveal(learner: Learner) -> None:
        learner.click(f"/snippets/{snippet.pk}/predict/",
                      {"text": "I think it prints the timings", "mode": "typed"})

    def typed(before: str, added: str, *, sent: bool) -> dict[str, str]:
        """The edits trail.js sends for typing `added` at the end, a second a step: a
        batch's fields, or those a run or submission carries."""
        quarter = max(1, len(added) // 4)
        pieces = [added[i : i + quarter] for i in range(0, len(added), quarter)]
        edits, text = [], before
        for n, piece in enumerate(pieces):
            edits.append([1000 * (len(pieces) - 1 - n), "e", len(text), 0, piece])
            text += piece
        if sent:
            return {"edits": json.dumps(edits), "code": text, "base": before}
        return {"trail_edits": json.dumps(edits), "trail_base": before, "trail_has_base": "1"}

    def edit_snippet(learner: Learner) -> None:
        data = typed(snippet.code, f"# {learner.username} typing\n", sent=True)
        headers = {"X-CSRFToken": learner.http.cookies["csrftoken"], "Referer": site.url + SEED}
        learner.http.post(f"{site.url}/trail/{snippet.block_id}/record/", data=data, headers=headers,
                          timeout=60).raise_for_status()

    takes = args.runs_each

    def edit(learner: Learner, take: int, where: str = "") -> str:
        """What the learner adds to the snippet for their take-th Run (a new version each)."""
        mark = f"# take {take + 1}{where}\n" if take or where else ""
        return f'\n{mark}print("{learner.username} changed it")\n'

    def run(learner: Learner) -> None:
        for take in range(takes):  # one click after the other's output, as a learner does
            added = edit(learner, take)
            carried = typed(snippet.code, added, sent=False) if args.trail else {}
            learner.click(f"/snippets/{snippet.pk}/runs/", {"code": snippet.code + added, **carried})

    from django.urls import reverse

    record_url = site.url + reverse("tutor:browser_runs_record", args=[snippet.pk])
    printed: dict[tuple[str, int], Run] = {}  # (learner, take): the server's run of that code

    def ran_in_browser(learner: Learner) -> None:
        """The learner's K runs made in their browser: nothing asked of the server but their
        records, sent as static/js/browser-run.js sends them (a batch of at most 10)."""
        runs = []
        for take in range(takes):
            same = printed[learner.username, take]  # what Python printed for that program
            runs.append({"code": snippet.code + edit(learner, take, " in the browser"),
                         "stdin": "", "stdout": same.stdout, "stderr": same.stderr,
                         "status": same.status, "exit_code": same.exit_code,
                         "duration_ms": same.duration_ms or 0, "truncated": same.truncated})
        for start in range(0, len(runs), 10):
            response = learner.http.post(
                record_url, timeout=60, headers={"Referer": site.url + SEED},
                data={"csrfmiddlewaretoken": learner.http.cookies["csrftoken"],
                      "runs": json.dumps(runs[start : start + 10])},
            )
            response.raise_for_status()
            learner.recorded += len(response.json()["recorded"])

    from course.kinds.code_exercise import CodeExercise

    exercise = CodeExercise.objects.get(block__key=EXERCISE)

    def edit_exercise(learner: Learner) -> None:
        data = typed(exercise.starter, f"# {learner.username} typing\n", sent=True)
        headers = {"X-CSRFToken": learner.http.cookies["csrftoken"], "Referer": site.url + SEED}
        learner.http.post(f"{site.url}/trail/{exercise.block_id}/record/", data=data, headers=headers,
                          timeout=60).raise_for_status()

    def submit(learner: Learner) -> None:
        code = exercise.solution + f'\n# {learner.username}\n'
        carried = typed(exercise.starter, f"\n# {learner.username}\n", sent=False) if args.trail else {}
        learner.click(f"/code-exercises/{exercise.pk}/submit/", {"code": code, **carried})

    server = site.server.pid

    spent_in: dict[str, dict[str, float]] = {}  # phase: CPU seconds by part
    served = ServedCpu(server)

    def phase(name: str, action) -> None:
        before, whole, started = cpu_seconds_by_part(server), served.seconds(), time.perf_counter()
        report(name, n, *at_once(learners, action))
        after, wall = cpu_seconds_by_part(server), time.perf_counter() - started
        whole = served.seconds() - whole
        report_cpu(before, after, wall)
        spent_in[name] = {part: after[part] - before[part] for part in after} | {
            "wall": wall, "served": whole}

    phase("open", Learner.open_lesson)
    edits = {"run": edit_snippet, "submit": edit_exercise}  # --trail: the typing before each
    started_at = {}
    for name, action, purpose in (("reveal", reveal, Run.Purpose.REVEAL),
                                  ("run", run, Run.Purpose.RUN),
                                  ("submit", submit, Run.Purpose.GRADE)):
        if args.trail and name in edits:
            phase("edit", edits[name])
        since = timezone.now()
        started_at[name] = since
        if fault and name == "run":
            fault.arm(purpose, since)
        phase(name, action)
        if fault and name == "run":
            fault.report()
            connections.close_all()  # this process's connections may have died with it
        where_it_went(name, purpose, since, learners)
        if name == "run" and args.browser_runs:
            by_code = {row.code: row for row in Run.objects.filter(
                purpose=purpose, in_browser=False, created_at__gte=since)}
            printed.update({(learner.username, take): by_code[snippet.code + edit(learner, take)]
                            for learner in learners for take in range(takes)})
            idle = idle_cpu(served, seconds=IDLE_SECONDS)
            phase("browser", ran_in_browser)

    deadline = time.monotonic() + 30
    while Run.objects.pending().exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    wrong = [r for r in Run.objects.filter(purpose=Run.Purpose.RUN, user__isnull=False,
                                           in_browser=False)
             .select_related("user") if r.status != Run.Status.OK
             or not r.stdout.endswith(f"{r.user.username} changed it\n")]
    print(
        f"rows     predictions {Prediction.objects.count()} (expected {n}), "
        # Every snippet's output is made when the course is imported (reveal_ahead): the
        # class's reveals queue none.
        f"reveal runs queued by the class {Run.objects.filter(purpose=Run.Purpose.REVEAL,
        created_at__gte=started_at['reveal']).count()} (expected 0), "
        f"runs {Run.objects.filter(purpose=Run.Purpose.RUN, in_browser=False).count()} "
        f"(expected {n * takes}), "
        f"gradings {Run.objects.filter(purpose=Run.Purpose.GRADE).count()} (expected {n}), "
        f"unfinished {Run.objects.pending().count()}, "
        f"failed {Run.objects.filter(status=Run.Status.FAILED).count()}"
    )
    print(f"retried  {retried} GET(s) and {posted_again} POST(s) sent again on a new connection "
          "after a reset")
    print(f"right    {n * takes - len(wrong)} of {n * takes} runs ok with the learner's own output"
          + (f"; not: {[(r.pk, r.status, r.stderr[:60]) for r in wrong[:3]]}" if wrong else ""))
    print(f"memory   the largest web process's peak {web_peak_memory_mb(server):.0f} MB (log-ins included)")
    if fault:
        print(f"busy     {busy} 'busy, try again' answers, each sent again after its wait")
    if args.trail:
        from tutor.trail.models import Trail, TrailChunk

        print(f"trail    trails {Trail.objects.count()} (expected {2 * n}), "
              f"writes {TrailChunk.objects.count()} (expected {4 * n}: a batch and a moment each)")
    if args.browser_runs:
        compare_browser_runs(n, takes, learners, spent_in, idle, pg=bool(args.pg or fault),
                             whole=served.whole)
    served.close()
    one, floor = sandbox_floor(n, snippet.code)
    one_grading, grading_floor = grading_floor_of(n, exercise)
    print(f"floor    one sandbox run {one * 1000:.1f} ms; {n} runs / {os.cpu_count()} cores = "
          f"{floor * 1000:.0f} ms")
    print(f"floor    one grading {one_grading * 1000:.1f} ms; {n} gradings / {os.cpu_count()} cores = "
          f"{grading_floor * 1000:.0f} ms")


if __name__ == "__main__":
    main()
