"""How long the seed lesson page takes on the server, against a trivial Django view:
for a reader who is not logged in, and for a logged-in learner (their state rendered).

    .venv/bin/python bench/pages.py [--iterations N]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3),
imports the sample course from content/, then times both pages through Django's test
Client in the same process and prints the medians and their ratio. The ratio is what
to compare between machines and commits; the milliseconds depend on the machine.
"""

import argparse

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
        trivial_ms = harness.median_ms(client, "/trivial/", args.iterations, warmup=20)
        lesson_ms = harness.median_ms(client, SEED_URL, args.iterations, warmup=20)
        learner = Client()
        learner.force_login(User.objects.create_user("bench-learner"))
        learner_ms = harness.median_ms(learner, SEED_URL, args.iterations, warmup=20)

    print(f"trivial view                    median {trivial_ms:8.3f} ms")
    print(f"seed lesson page, not logged in median {lesson_ms:8.3f} ms   "
          f"{lesson_ms / trivial_ms:6.1f}x trivial")
    print(f"seed lesson page, a learner     median {learner_ms:8.3f} ms   "
          f"{learner_ms / trivial_ms:6.1f}x trivial  ({args.iterations} requests each)")


if __name__ == "__main__":
    main()
