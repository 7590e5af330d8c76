"""How long one step of a step-through takes on the server, against a trivial Django view.

    .venv/bin/python bench/stepping.py [--iterations N]

Traces a program of about 600 steps (lists, a dict, a function, aliasing) with the
real tracer (tutor.sandbox.tracing, in the sandbox), keeps it as a learner's stepping in a
throw-away SQLite database (never db.sqlite3), then times the step page — its htmx region
and the whole page — at the first, middle and last step through Django's test Client in
the same process, and prints the medians, the queries per step and the ratio to the
trivial view. The issue's target: one step renders in ≤ 20 ms with a fixed number of
queries.
"""

import argparse

import harness  # first: it fixes sys.path (see bench/harness.py)

PROGRAM = """def total(values):
    result = 0
    for value in values:
        result += value
    return result


items = []
copy = items
counts = {}
for n in range(120):
    items.append(n)
    counts[n % 7] = counts.get(n % 7, 0) + 1
print(total(items), len(copy), counts)
"""


def median_ms(client, url: str, iterations: int, headers: dict) -> float:
    """harness.median_ms, with request headers (the htmx region is asked for with one)."""
    import statistics
    import time

    for _ in range(5):
        assert client.get(url, headers=headers).status_code == 200
    timings = []
    for _ in range(iterations):
        start = time.perf_counter()
        response = client.get(url, headers=headers)
        timings.append(time.perf_counter() - start)
        assert response.status_code == 200
    return statistics.median(timings) * 1000


def build(code: str):
    from django.contrib.auth.models import User

    from tutor.models import Run
    from tutor.practice.stepping.models import Stepping, Trace
    from tutor.sandbox import tracing

    data = tracing.trace(code).to_dict()
    run = Run.objects.create(code=code, purpose=Run.Purpose.TRACE, status=Run.Status.OK)
    trace = Trace(code=code, run=run)
    trace.keep(data)
    trace.save()
    learner = User.objects.create_user("learner")
    stepping = Stepping.objects.create(user=learner, trace=trace, origin=Stepping.Origin.OWN)
    return learner, stepping, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50)
    args = parser.parse_args()

    with harness.throwaway_django():
        import json

        from django.db import connection
        from django.test import Client
        from django.urls import reverse

        learner, stepping, data = build(PROGRAM)
        total = len(data["steps"])
        client = Client()
        client.force_login(learner)
        trivial_ms = harness.median_ms(client, "/trivial/", max(args.iterations, 100))
        rows = []
        for where, number in (("first", 1), ("middle", total // 2), ("last", total)):
            url = reverse("tutor:step_detail", args=[stepping.pk, number])
            for label, headers in (("region", {"HX-Request": "true"}), ("page", {})):
                queries = []

                def count(execute, sql, *rest, queries=queries):
                    queries.append(sql)
                    return execute(sql, *rest)

                with connection.execute_wrapper(count):
                    response = client.get(url, headers=headers)
                assert response.status_code == 200, response.status_code
                ms = median_ms(client, url, args.iterations, headers)
                rows.append(
                    (f"{where} ({number}) {label}", ms, len(queries), len(response.content))
                )

    print(
        f"trace: {total} steps, {len(json.dumps(data)) / 1024:.0f} KiB of JSON ({data['status']})"
    )
    print(f"trivial view                 median {trivial_ms:7.3f} ms")
    for label, ms, queries, size in rows:
        print(
            f"step {label:<22} median {ms:7.3f} ms  {queries} queries  "
            f"{size / 1024:5.1f} KiB  {ms / trivial_ms:5.1f}x trivial"
        )


if __name__ == "__main__":
    main()
