"""What the worker's writes cost per run on PostgreSQL: every commit waiting for its WAL flush
(as before), against Run records committed without waiting (`synchronous_commit = off`
for the transactions that write a Run record and nothing else: tutor.actions.runs.
run_record_only), called in turn in the same run.

    DATABASE_URL=postgres:///parsnip_perf .venv/bin/python bench/worker_writes.py [--runs 60] [--rounds 5]

The database must be a throw-away one: it is migrated, the sample course imported, and
learners, runs and submissions added. The sandbox is replaced by a result made ahead
(one real grading of the exercise's solution, kept), so what is timed is the worker's own
work per run: the claim, the result saved, the verdicts and progress, and the reads
between them -- `tutor.actions.runs.execute_run`, one run after another as one worker
process does. Two kinds of run: a learner's Run (its writes are Run records only) and a
submission's grading (the claim, the verdict with the learner's progress, the run's
result). Prints per round and kind the median wall and this process's CPU milliseconds
per run in each mode, and the time per run spent in COMMIT (where a commit waits for
its flush): the part of the wall time the mode changes. (PostgreSQL's own count of WAL
flushes, pg_stat_wal, is the whole cluster's: useless beside another job's database.)
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import os
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="runs of each kind per mode and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("Set DATABASE_URL to a throw-away PostgreSQL database (postgres:///parsnip_perf).")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DEBUG"] = "0"  # no query log in the figures (harness's default is DEBUG on)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection

    from course.kinds.code_exercise import CodeExercise
    from course.kinds.snippet import Snippet
    from tutor import queueing, run_notices
    from tutor.actions import runs
    from tutor.practice.code_exercise import actions as exercise_actions
    from tutor.sandbox.grading import grade

    call_command("migrate", verbosity=0, interactive=False)
    call_command("import_content", str(harness.ROOT / "content"), verbosity=0)
    queueing.enqueue_run_on_commit = lambda run_id: None  # no broker: this process is the worker
    run_notices.announce = lambda run_id: None  # and nobody is waiting
    exercise = CodeExercise.objects.select_related("block__lesson__course").order_by("pk").first()
    snippet = Snippet.objects.select_related("block__lesson__course").order_by("pk").first()
    tests = exercise_actions.tests_of(exercise)
    limits = exercise_actions.grading_limits(exercise)
    made_ahead = grade(exercise.solution, tests, limits=limits,
                       per_test_seconds=exercise_actions.PER_TEST_SECONDS)
    exercise_actions.grade = lambda *args, **kwargs: made_ahead
    printed = runs.sandbox.Result(status="ok", exit_code=0, stdout="1\n", stderr="",
                                  duration_ms=5, truncated=False)
    runs.sandbox.run = lambda *args, **kwargs: printed
    learners = iter(User.objects.create_user(f"bench-worker-{os.getpid()}-{n}")
                    for n in range(10**6))

    committing: list[float] = []
    commit = connection.commit

    def timed_commit():
        started = time.perf_counter()
        commit()
        committing.append((time.perf_counter() - started) * 1000)

    connection.commit = timed_commit

    def queued(kind: str) -> list[int]:
        made = []
        for _ in range(args.runs):
            user = next(learners)
            if kind == "run":
                made.append(runs.queue_run(code="print(1)\n", user=user, snippet=snippet).pk)
            else:
                made.append(exercise_actions.submit_code(user=user, exercise=exercise,
                                                         code=exercise.solution).run_id)
        return made

    def timed(ids: list[int]) -> tuple[float, float, float]:
        wall, cpu = [], []
        committing.clear()
        for run_id in ids:
            w, c = harness.wall_and_cpu_ms(lambda run_id=run_id: runs.execute_run(run_id=run_id), 1,
                                           warmup=0)
            wall += w
            cpu += c
        return statistics.median(wall), statistics.median(cpu), sum(committing) / len(ids)

    modes = {"every commit flushed (before)": True, "Run records not waited for": False}
    found: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    print(f"load average at start: {os.getloadavg()}")
    for round_ in range(args.rounds):
        for kind in ("run", "grading"):
            for mode, wait in (modes.items() if round_ % 2 == 0 else reversed(modes.items())):
                ids = queued(kind)
                runs.RUN_RECORDS_WAIT_FOR_FLUSH = wait
                wall, cpu, syncs = timed(ids)
                found.setdefault((kind, mode), []).append((wall, cpu, syncs))
                print(f"round {round_ + 1} {kind:<8} {mode:<30} wall {wall:6.2f} ms  cpu {cpu:6.2f} ms"
                      f"  in COMMIT {syncs:5.2f} ms")
    print(f"load average at end: {os.getloadavg()}")
    print(f"\nmedian per run over {args.rounds} rounds of {args.runs} (low-high of the rounds' medians):")
    for (kind, mode), rows in found.items():
        walls, cpus, syncs = zip(*rows, strict=True)
        print(f"{kind:<8} {mode:<30} wall {statistics.median(walls):6.2f} ms "
              f"({min(walls):.2f}-{max(walls):.2f})  cpu {statistics.median(cpus):6.2f} ms "
              f"({min(cpus):.2f}-{max(cpus):.2f})  in COMMIT {statistics.median(syncs):.2f} ms "
              f"({min(syncs):.2f}-{max(syncs):.2f})")


if __name__ == "__main__":
    main()
