"""Grading a 10-test submission (5 I/O cases, 5 checks) against one plain sandbox run of the
same code, measured in one run: milliseconds per grading and per run, and their ratio.

    .venv/bin/python bench/grading.py [--runs N] [--rounds N] [--strategy zygote|bwrap]

Rounds alternate plain runs and gradings so that both see the same machine load; the best
round of each is compared (as bench/sandbox.py does). The CPU figures are the whole
machine's (/proc/stat) over the same rounds: with other jobs running they are upper bounds.
The ratio still grows with the load (a grading hands over between processes at least once
per test, and each hand-over waits for a core): compare figures taken at similar load
averages, which it prints before and after. docs/grading.md has the figures.
"""

import harness  # noqa: I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import os
import time

from tutor import sandbox
from tutor.sandbox.grading import Test, grade

CODE = """\
def square(x):
    return x * x

if __name__ == "__main__":
    print(square(int(input())))
"""
TESTS = [Test(f"squares {n}", stdin=f"{n}\n", stdout=f"{n * n}\n") for n in range(5)] + [
    Test(f"square({n}) is {n * n}", check=f"assert square({n}) == {n * n}") for n in range(5)
]


def plain_once():
    result = sandbox.run(CODE, stdin="7\n")
    assert result.stdout == "49\n", result


def grade_once():
    grading = grade(CODE, TESTS)
    assert grading.passed, grading



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--strategy", choices=sandbox.STRATEGIES, default=None)
    args = parser.parse_args()
    if args.strategy:
        sandbox.configure(strategy=args.strategy)
    print(f"strategy: {sandbox._settings['strategy']}   load average: {os.getloadavg()[0]:.2f}")
    plain_once()  # start the fork server, and compile the harness
    grade_once()
    time.sleep(0.5)
    plain, graded = [], []
    for _ in range(args.rounds):  # interleaved, so both see the same machine load
        plain.append(harness.per_op(plain_once, args.runs))
        graded.append(harness.per_op(grade_once, args.runs))
    p, g = min(plain), min(graded)
    print(f"  plain run:        {p[0]:6.1f} ms   (machine CPU {p[1]:5.1f} ms)")
    print(f"  10-test grading:  {g[0]:6.1f} ms   (machine CPU {g[1]:5.1f} ms)")
    print(f"  ratio: {g[0] / p[0]:.2f} (CPU {g[1] / p[1]:.2f})   load average after: "
          f"{os.getloadavg()[0]:.2f}")  # fmt: skip
    sandbox.shutdown()


if __name__ == "__main__":
    main()
