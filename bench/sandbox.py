"""Runs of print('hi') per second through tutor.sandbox.run, against spawning the same
bare interpreter the same way, sequentially and two at a time, measured in one run.

    .venv/bin/python bench/sandbox.py [--runs N] [--rounds N] [--strategy zygote|bwrap]
    .venv/bin/python bench/sandbox.py --phases [--runs N]

Rounds alternate bare and sandboxed runs so that both see the same machine load; the
best round of each is compared. The default strategy is the one run() uses.

`--phases` (the zygote strategy): where one run's time goes, seen from the worker, run
after run, against one bare spawn measured in turn with each: handing the pipes to the
fork server until the run's pidfd comes back (the fork server forks C1, which unshares
its namespaces, mounts /tmp, /dev/shm, devpts and /proc's place, and forks C2), the
cgroup (its limits, its OOM count), sending limits and code, the run itself (C2 drops
privileges and forks C3, which runs the code) until its output is read, and C1's report.
Medians of wall milliseconds, and this process's CPU per run.
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import concurrent.futures
import os
import statistics
import subprocess
import time

from tutor import sandbox

CODE = "print('hi')"


def bare_once():
    result = subprocess.run(
        [sandbox.INTERPRETER, "-I", "-S", "-c", CODE], capture_output=True, stdin=subprocess.DEVNULL
    )
    assert result.stdout == b"hi\n"


def sandbox_once():
    result = sandbox.run(CODE)
    assert result.stdout == "hi\n", result


def rate(once, runs, threads):
    started = time.perf_counter()
    if threads == 1:
        for _ in range(runs):
            once()
    else:
        with concurrent.futures.ThreadPoolExecutor(threads) as executor:
            list(executor.map(lambda _: once(), range(runs)))
    return runs / (time.perf_counter() - started)


def phases(runs: int) -> None:
    """Times each step of ZygoteProcess.execute, run after run (see the module's text)."""
    from tutor.sandbox import zygote

    spent: dict[str, list[float]] = {}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent.setdefault(name, []).append((time.perf_counter() - started) * 1000)

        return wrapper

    steps = (
        ("fork server: C1, namespaces, mounts, C2 (until the pidfd)", zygote.ZygoteProcess, "_receive_pidfd"),
        ("cgroup: limits, OOM count", zygote.ZygoteProcess, "_run_cgroup"),
        ("limits and code sent", zygote.ZygoteProcess, "_deliver"),
        ("C2 drops privileges, C3 runs the code, output read", zygote, "pump"),
        ("C1's report", zygote.ZygoteProcess, "_receive_end"),
        ("ZygoteProcess.execute in all", zygote.ZygoteProcess, "execute"),
    )
    for name, owner, attribute in steps:
        setattr(owner, attribute, timed(name, getattr(owner, attribute)))
    sandbox_once()  # the fork server is up
    spent.clear()
    whole, bare, cpu = [], [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        sandbox_once()
        whole.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        started = time.perf_counter()
        bare_once()
        bare.append((time.perf_counter() - started) * 1000)
    print(f"load average at the end: {os.getloadavg()}")
    print(f"{runs} runs of print('hi'), each followed by one bare spawn; medians:")
    for name, _, _ in steps:
        print(f"  {name:<58} {statistics.median(spent[name]):7.3f} ms")
    print(f"  {'sandbox.run in all':<58} {statistics.median(whole):7.3f} ms"
          f"   (this process's CPU {statistics.median(cpu):.3f} ms)")
    print(f"  {'bare python -I -S spawned':<58} {statistics.median(bare):7.3f} ms")
    # What bounds runs per second on a busy machine: the whole machine's CPU per run (the
    # sandbox's processes and the kernel's work for them), in blocks one after the other.
    for _ in range(2):
        boxed_cpu = harness.per_op(sandbox_once, runs)[1]
        bare_cpu = harness.per_op(bare_once, runs)[1]
        print(f"  machine CPU per run: sandbox {boxed_cpu:6.2f} ms   bare {bare_cpu:6.2f} ms"
              f"   (other jobs' CPU included: upper bounds)")
    sandbox.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--strategy", choices=sandbox.STRATEGIES, default=None)
    parser.add_argument("--phases", action="store_true", help="where one run's time goes")
    args = parser.parse_args()
    if args.phases:
        phases(args.runs)
        return
    if args.strategy:
        sandbox.configure(strategy=args.strategy)
    print(f"strategy: {sandbox._settings['strategy']}")
    sandbox_once()  # start the pool or the fork server
    time.sleep(0.5)
    for threads in (1, 2):
        if threads == 2:
            with concurrent.futures.ThreadPoolExecutor(2) as executor:  # a second one
                list(executor.map(lambda _: sandbox_once(), range(4)))
        bare, boxed = [], []
        for _ in range(args.rounds):  # interleaved, so both see the same machine load
            bare.append(rate(bare_once, args.runs, threads))
            boxed.append(rate(sandbox_once, args.runs, threads))
        b, s = max(bare), max(boxed)
        label = "sequential" if threads == 1 else f"{threads} at a time"
        print(f"{label:>12}: bare {b:7.1f} runs/s   sandbox {s:7.1f} runs/s   ratio {s / b:.2f}")
    sandbox.shutdown()


if __name__ == "__main__":
    main()
