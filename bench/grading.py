"""Grading a 10-test submission (5 I/O cases, 5 checks) against one plain sandbox run of the
same code, measured in one run: milliseconds per grading and per run, and their ratio.

    .venv/bin/python bench/grading.py [--runs N] [--rounds N] [--strategy zygote|bwrap]

Plain runs and gradings are called in turn, one each, and compared by their medians over
all calls: on this shared VM the machine's speed drifts by a third within seconds (a plain
run took 7.5 ms in one block of calls and 11.2 ms in the next), more than the difference
measured, so only calls made side by side are compared. Each round's ratio is printed too:
their spread is the figure's noise. The CPU figures are the whole machine's (/proc/stat)
over separate blocks of calls (best block of each): with other jobs running they are
upper bounds. The ratio grows with the load (a grading hands over between processes at
least once per test, and each hand-over waits for a core): compare figures taken at
similar load averages, which it prints before and after. docs/grading.md has the figures.
"""

import harness  # noqa: I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import os
import statistics
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
    parser.add_argument("--runs", type=int, default=100, help="pairs of calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--strategy", choices=sandbox.STRATEGIES, default=None)
    args = parser.parse_args()
    if args.strategy:
        sandbox.configure(strategy=args.strategy)
    print(f"strategy: {sandbox._settings['strategy']}   load average: {os.getloadavg()[0]:.2f}")
    plain_once()  # start the fork server, and have it load the harness
    grade_once()
    time.sleep(0.5)
    plain, graded, ratios = [], [], []
    for _ in range(args.rounds):
        p, g = harness.paired(plain_once, grade_once, args.runs)
        plain += p
        graded += g
        ratios.append(statistics.median(g) / statistics.median(p))
    cpu_plain = min(harness.per_op(plain_once, args.runs)[1] for _ in range(2))
    cpu_graded = min(harness.per_op(grade_once, args.runs)[1] for _ in range(2))
    p, g = statistics.median(plain), statistics.median(graded)
    print(f"  plain run:        {p:6.1f} ms median   (machine CPU {cpu_plain:5.1f} ms)")
    print(f"  10-test grading:  {g:6.1f} ms median   (machine CPU {cpu_graded:5.1f} ms)")
    print(f"  ratio: {g / p:.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}; "
          f"CPU {cpu_graded / cpu_plain:.2f})   load average after: {os.getloadavg()[0]:.2f}")  # fmt: skip
    sandbox.shutdown()


if __name__ == "__main__":
    main()
