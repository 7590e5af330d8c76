"""How long the seed lesson page takes on the server, against a trivial Django view:
for a reader who is not logged in, and for a logged-in learner (their state rendered).

    .venv/bin/python bench/pages.py [--iterations N]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3),
imports the sample course from content/, then times both pages through Django's test
Client in the same process and prints the medians and their ratio, of the wall time and
of this process's CPU time. The ratio is what to compare between machines and commits;
the milliseconds depend on the machine. On a busy machine trust the CPU ratio: a request
of 30 ms of CPU shares the cores with the other jobs for its whole length while the
trivial view's fits in one time slice, so the wall ratio grows with the load average
(printed before and after).
"""

import argparse
import os
import statistics

import harness  # first: it fixes sys.path (see bench/harness.py)

SEED_URL = "/learn/local-models/optimising-speed-and-memory/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()

    with harness.throwaway_django():
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.test import Client

        call_command("import_content", str(harness.ROOT / "content"), verbosity=0)
        client = Client()
        learner = Client()
        learner.force_login(User.objects.create_user("bench-learner"))
        print(f"load average at start: {os.getloadavg()}")
        found = {}
        for name, browser, url in (("trivial view", client, "/trivial/"),
                                   ("seed lesson page, not logged in", client, SEED_URL),
                                   ("seed lesson page, a learner", learner, SEED_URL)):
            def get(browser=browser, url=url):
                assert browser.get(url).status_code == 200

            wall, cpu = harness.wall_and_cpu_ms(get, args.iterations, warmup=20)
            found[name] = statistics.median(wall), statistics.median(cpu)
        print(f"load average at end:   {os.getloadavg()}")

    trivial_wall, trivial_cpu = found["trivial view"]
    for name, (wall, cpu) in found.items():
        print(f"{name:<32} median wall {wall:8.3f} ms {wall / trivial_wall:6.1f}x   "
              f"CPU {cpu:8.3f} ms {cpu / trivial_cpu:6.1f}x trivial")
    print(f"({args.iterations} requests each)")


if __name__ == "__main__":
    main()
