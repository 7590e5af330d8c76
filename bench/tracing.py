"""Tracing a program of about 1,000 steps against one plain sandbox run of the same program,
measured in one run: milliseconds per trace and per run, and their ratio (issue 14's target:
a trace costs at most 5x the plain run).

    .venv/bin/python bench/tracing.py [--runs N] [--rounds N] [--strategy zygote|bwrap]

Rounds alternate plain runs and traces so that both see the same machine load; the best
round of each is compared (as bench/grading.py does), and so is each round's trace with the
plain runs just before it (the median of those ratios: steadier when other jobs come and
go). The CPU figures are the whole machine's (/proc/stat) over the same rounds: with other
jobs running they are upper bounds. The time of a trace is all of trace(): the sandbox run,
and reading and checking the steps.
"""

import harness  # noqa: I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import os
import statistics
import time

from tutor import sandbox
from tutor.sandbox.tracing import trace

# A learner's program: a function called in a loop, a list, a dict, output at the end.
CODE = """\
def total(numbers):
    result = 0
    for n in numbers:
        result += n
    return result


prices = [3, 1, 4, 1, 5, 9, 2, 6]
counts = {"apples": 0, "pears": 0}
grand = 0
for day in range(40):
    grand += total(prices)
    counts["apples"] += 1
print(grand, counts)
"""
EXPECTED = "1240 {'apples': 40, 'pears': 0}\n"


def plain_once():
    result = sandbox.run(CODE)
    assert result.stdout == EXPECTED, result


def trace_once():
    traced = trace(CODE)
    assert traced.status == "complete" and traced.stdout == EXPECTED, traced.to_dict()
    return len(traced.steps)



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--strategy", choices=sandbox.STRATEGIES, default=None)
    args = parser.parse_args()
    if args.strategy:
        sandbox.configure(strategy=args.strategy)
    print(f"strategy: {sandbox._settings['strategy']}   load average: {os.getloadavg()[0]:.2f}")
    plain_once()  # start the fork server, and compile the harness
    steps = trace_once()
    time.sleep(0.5)
    plain, traced = [], []
    for _ in range(args.rounds):  # interleaved, so both see the same machine load
        plain.append(harness.per_op(plain_once, args.runs))
        traced.append(harness.per_op(trace_once, args.runs))
    p, t = min(plain), min(traced)
    paired = statistics.median(t_[0] / p_[0] for p_, t_ in zip(plain, traced, strict=True))
    print(f"  plain run:           {p[0]:6.1f} ms   (machine CPU {p[1]:5.1f} ms)")
    print(f"  trace, {steps:,} steps: {t[0]:6.1f} ms   (machine CPU {t[1]:5.1f} ms)")
    print(f"  ratio: {t[0] / p[0]:.2f} (CPU {t[1] / p[1]:.2f})   median of the rounds' ratios: "
          f"{paired:.2f}   load average after: {os.getloadavg()[0]:.2f}")  # fmt: skip
    sandbox.shutdown()


if __name__ == "__main__":
    main()
