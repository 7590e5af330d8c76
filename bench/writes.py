"""How long each learner click holds SQLite's write lock, against the smallest write.

    .venv/bin/python bench/writes.py [--learners 30]

On the embedded default every write transaction is BEGIN IMMEDIATE: from BEGIN to COMMIT
no other request can write, so a class's clicks queue behind the longest of them. This
times, in one process on a throw-away SQLite database with the sample course, every write
transaction that each kind of click opens (through the test client, as the page sends it),
and prints per kind the total time the lock is held per click (median and max over the
learners) against a baseline measured in the same run: a transaction that updates one row.
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import statistics
import time

SEED = "/learn/local-models/optimising-speed-and-memory/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    args = parser.parse_args()

    with harness.throwaway_django():
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.db import connection, transaction
        from django.test import Client

        from course.kinds.ordering import OrderingExercise
        from course.kinds.snippet import Snippet
        from course.models import ContentVersion
        from tutor import queueing

        call_command("import_content", str(harness.ROOT / "content"), verbosity=0)
        queueing.enqueue_run = lambda run_id: None  # no worker: only the click's own writes
        settings.RUN_WAIT_SECONDS = 0  # and nobody waits for one
        held: list[float] = []
        began: list[float] = []
        start = connection._start_transaction_under_autocommit
        commit = connection.commit

        def timed_start():
            began.append(time.perf_counter())
            start()

        def timed_commit():
            commit()
            if began:
                held.append(time.perf_counter() - began.pop())

        connection._start_transaction_under_autocommit = timed_start
        connection.commit = timed_commit
        connection.ensure_connection()

        def measure(action) -> list[float]:
            per_click = []
            for _ in range(args.learners):
                held.clear()
                action()
                per_click.append(sum(held) * 1000)
            return per_click

        def smallest_write():
            with transaction.atomic():
                ContentVersion.objects.filter(pk=1).update(number=1)

        snippet = Snippet.objects.get(block__key="backend-latency")
        exercise = OrderingExercise.objects.filter(block__lesson__slug=SEED.split("/")[-2]).first()
        users = iter(User.objects.create_user(f"learner{i}") for i in range(10 * args.learners))
        hx = {"HTTP_HX_REQUEST": "true"}

        def client() -> Client:
            browser = Client()
            browser.force_login(next(users))
            browser.get(SEED)
            return browser

        def reveal():
            client().post(f"/snippets/{snippet.pk}/predict/", {"text": "x", "mode": "typed"}, **hx)

        revealed = []

        def reveal_then_keep():
            browser = client()
            browser.post(f"/snippets/{snippet.pk}/predict/", {"text": "x", "mode": "aloud"}, **hx)
            revealed.append(browser)

        for _ in range(2 * args.learners):
            reveal_then_keep()
        ready = iter(revealed)

        def run():
            next(ready).post(f"/snippets/{snippet.pk}/runs/", {"code": "print(1)\n"}, **hx)

        def draft():
            next(ready).post(f"/snippets/{snippet.pk}/draft/", {"code": "print(2)\n"}, **hx)

        def ordering_check():
            browser = client()
            browser.get(f"/exercises/{exercise.pk}/", **hx)
            browser.post(f"/exercises/{exercise.pk}/check/", **hx)

        baseline = measure(smallest_write)
        base = statistics.median(baseline)
        print(f"write lock held per click, {args.learners} learners each "
              f"(baseline: one-row update transaction, median {base:.3f} ms)")
        for name, action in (("reveal", reveal), ("run", run), ("draft", draft),
                             ("ordering check", ordering_check)):
            times = measure(action)
            print(f"{name:<16} median {statistics.median(times):7.3f} ms   max {max(times):7.3f} ms"
                  f"   ratio to baseline {statistics.median(times) / base:6.1f}x")


if __name__ == "__main__":
    main()
