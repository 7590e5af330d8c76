"""Queue overhead: enqueue -> final result for a trivial run, against the sandbox alone.

Starts real `manage.py qcluster` processes (embedded default: SQLite + ORM broker; and
Redis as the broker) and a client process that calls `queue_run` and waits for the row to
be final, exactly like the web side. The baseline, `tutor.sandbox.run` alone, is measured
in this same run. Target: median queue overhead under 30 ms on the embedded default.

    .venv/bin/python bench/queue.py [--runs 60]
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import os
import statistics
import time

from harness import p95
from tests.worker_cluster import WorkerCluster
from tutor import sandbox

CODE = "print('hi')"


def measure_cluster(runs: int, **kwargs) -> list[float]:
    with WorkerCluster(**kwargs) as cluster:
        for _ in range(5):  # warm up: worker processes start, sandbox pools fill
            cluster.run(CODE)
        totals = []
        for _ in range(runs):
            result = cluster.run(CODE)
            assert result["status"] == "ok", result
            totals.append(result["total_ms"])
            time.sleep(0.02)  # a learner's pace, not a burst: lets the pool refill
        return totals


def measure_sandbox(runs: int) -> list[float]:
    for _ in range(5):
        sandbox.run(CODE)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        assert sandbox.run(CODE).status == "ok"
        times.append((time.perf_counter() - started) * 1000)
        time.sleep(0.02)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"))
    args = parser.parse_args()

    baseline = measure_sandbox(args.runs)
    base_median = statistics.median(baseline)
    print(f"{'sandbox alone:':<32}median {base_median:6.1f} ms   p95 {p95(baseline):6.1f} ms")
    results = {"embedded (SQLite + ORM broker)": measure_cluster(args.runs)}
    try:
        results["Redis broker (SQLite db)"] = measure_cluster(args.runs, redis_url=args.redis_url)
    except Exception as exc:  # report, don't hide: the figure is missing, say why
        print(f"Redis broker: not measured ({exc})")
    for name, totals in results.items():
        median = statistics.median(totals)
        print(
            f"{name + ':':<32}median {median:6.1f} ms   p95 {p95(totals):6.1f} ms   "
            f"queue overhead (median) {median - base_median:6.1f} ms   "
            f"ratio to sandbox alone {median / base_median:5.2f}x"
        )


if __name__ == "__main__":
    main()
