"""Runs of print('hi') per second through tutor.sandbox.run, against spawning the same
bare interpreter the same way, sequentially and two at a time, measured in one run.

    .venv/bin/python bench/sandbox.py [--runs N] [--rounds N] [--strategy zygote|bwrap]

Rounds alternate bare and sandboxed runs so that both see the same machine load; the
best round of each is compared. The default strategy is the one run() uses.
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import concurrent.futures
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--strategy", choices=sandbox.STRATEGIES, default=None)
    args = parser.parse_args()
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
