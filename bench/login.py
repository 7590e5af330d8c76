"""How long logging in takes, and where it goes: a learner, a teacher, and a student whose
closed-book assignment is running, against a trivial view measured in the same run; then
the parts: the password hash checked by each hasher the settings list, the closed-book
lookup, and what django-axes adds.

    .venv/bin/python bench/login.py [--iterations N]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3), imports the
sample course, and posts the log-in form through Django's test Client (every middleware,
django-axes and the closed-book signal included), then follows the redirect as a browser
does. Prints medians with their spread (min-max), wall and this process's CPU time: the CPU
time moves far less on a busy machine.
"""

import argparse
import statistics

import harness  # first: it fixes sys.path (see bench/harness.py)

PASSWORD = "a-long-class-passphrase-42"


def timed(once, iterations: int, warmup: int = 1) -> tuple[list[float], list[float]]:
    return harness.wall_and_cpu_ms(once, iterations, warmup)


def line(name: str, timings: tuple[list[float], list[float]], base: tuple[float, float]) -> str:
    wall, cpu = timings
    return (
        f"{name:38} wall {statistics.median(wall):7.1f} ms ({min(wall):6.1f}-{max(wall):6.1f})"
        f" {statistics.median(wall) / base[0]:5.0f}x | CPU {statistics.median(cpu):6.1f} ms"
        f" ({min(cpu):6.1f}-{max(cpu):6.1f}) {statistics.median(cpu) / base[1]:5.0f}x trivial"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()

    with harness.throwaway_django():
        from datetime import timedelta

        from django.conf import settings
        from django.contrib.auth.hashers import get_hashers, identify_hasher
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.test import Client, override_settings
        from django.utils import timezone

        from course.models import Lesson
        from tests.factories import make_cohort
        from tutor.assignments import closed_book
        from tutor.assignments.models import Assignment

        call_command("import_content", str(harness.ROOT / "content"), verbosity=0)
        learner = User.objects.create_user("learner", password=PASSWORD)
        teacher = User.objects.create_user("teacher", password=PASSWORD, is_staff=True)
        student = User.objects.create_user("student", password=PASSWORD)
        make_cohort(teacher, students=[learner])
        exam = make_cohort(teacher, students=[student])
        now = timezone.now()
        Assignment.objects.create(
            cohort=exam,
            lesson=Lesson.objects.get(slug="optimising-speed-and-memory"),
            opens_at=now - timedelta(minutes=5),
            due_at=now + timedelta(days=1),
            closed_book=True,
        )
        stored = User.objects.get(username="learner").password
        print(f"stored hash: {identify_hasher(stored).algorithm} ({stored.split('$')[1]})")

        def log_in(username: str):
            def once():
                client = Client(REMOTE_ADDR="127.0.0.9")
                response = client.post(
                    "/accounts/login/", {"username": username, "password": PASSWORD}
                )
                assert response.status_code == 302, response.status_code
                assert client.get(response["Location"]).status_code == 200

            return once

        trivial_client = Client()

        def trivial():
            assert trivial_client.get("/trivial/").status_code == 200

        results = {"trivial view": timed(trivial, args.iterations * 20, warmup=20)}
        results["log in: a learner"] = timed(log_in("learner"), args.iterations)
        results["log in: a teacher"] = timed(log_in("teacher"), args.iterations)
        results["log in: closed-book student"] = timed(log_in("student"), args.iterations)

        user = User.objects.get(username="student")
        for hasher in get_hashers():
            try:
                encoded = hasher.encode(PASSWORD, hasher.salt())
            except ValueError:  # its library is not installed
                continue
            results[f"hash check: {hasher.algorithm}"] = timed(
                lambda h=hasher, e=encoded: h.verify(PASSWORD, e), args.iterations
            )

        def closed_book_lookup():
            client = Client()
            client.force_login(user)
            request = client.get("/trivial/").wsgi_request
            request.session.pop(closed_book.SESSION_KEY, None)
            closed_book.signed_in(None, request, user)

        results["closed-book lookup on log-in (+force_login)"] = timed(
            closed_book_lookup, args.iterations
        )
        results["force_login alone"] = timed(
            lambda: Client().force_login(user), args.iterations
        )
        backends = [b for b in settings.AUTHENTICATION_BACKENDS if "axes" not in b]
        middleware = [m for m in settings.MIDDLEWARE if "axes" not in m]
        with override_settings(AUTHENTICATION_BACKENDS=backends, MIDDLEWARE=middleware):
            results["log in: a learner, without axes"] = timed(
                log_in("learner"), args.iterations
            )

    base = tuple(statistics.median(t) for t in results["trivial view"])
    for name, timings in results.items():
        print(line(name, timings, base))
    print(f"({args.iterations} of each; the trivial view {args.iterations * 20})")


if __name__ == "__main__":
    main()
