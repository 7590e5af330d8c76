"""How long the seed lesson's admin page takes: open it, save it unchanged, save it with
one error; against a trivial Django view measured in the same run.

    .venv/bin/python bench/admin.py [--iterations N] [--profile open|save|error]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3), imports
the sample course from content/, then drives the admin as a browser would (WebTest: the
form read from the page and sent back with every field as shown). Prints each median, its
spread (min-max) and its ratio to the trivial view. With --profile, prints the top of a
cProfile of that request instead (cumulative time).
"""

import argparse
import cProfile
import pstats
import statistics
import time

import harness  # first: it fixes sys.path (see bench/harness.py)

SEED = "optimising-speed-and-memory"
BROKEN = "blocks-2-snippet-0-code"  # a snippet's code, emptied: one error, deep in the page


timed = harness.wall_and_cpu_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--profile", choices=["open", "save", "error"])
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--lines", type=int, default=45)
    args = parser.parse_args()

    with harness.throwaway_django():
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.test import Client
        from django.urls import reverse
        from django_webtest import DjangoTestApp, WebTestMixin

        from course.models import Lesson

        call_command("import_content", str(harness.ROOT / "content"), verbosity=0)
        User.objects.create_superuser("bench-admin", "a@example.com", "x")
        url = reverse("admin:course_lesson_change", args=[Lesson.objects.get(slug=SEED).pk])

        mixin = WebTestMixin()
        mixin._patch_settings()
        page = DjangoTestApp().get(url, user="bench-admin")
        form = page.forms["lesson_form"]
        fields: dict[str, list[str]] = {}
        for name, value in form.submit_fields("_save"):
            # A browser sends a textarea's line breaks as CRLF.
            fields.setdefault(name, []).append(value.replace("\n", "\r\n"))
        broken = {**fields, BROKEN: [""]}
        client = Client()
        client.force_login(User.objects.get(username="bench-admin"))

        def trivial():
            assert client.get("/trivial/").status_code == 200

        def open_page():
            assert client.get(url).status_code == 200

        def save():
            assert client.post(url, fields).status_code == 302

        def save_with_error():
            response = client.post(url, broken)
            assert response.status_code == 200 and b"errornote" in response.content

        requests = {"open": open_page, "save": save, "error": save_with_error}
        if args.profile:
            requests[args.profile]()
            profile = cProfile.Profile(time.process_time)
            profile.runcall(requests[args.profile])
            pstats.Stats(profile).sort_stats(args.sort).print_stats(args.lines)
            return

        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        queries = {}
        for name, once in requests.items():
            with CaptureQueriesContext(connection) as captured:
                once()
            queries[name] = len(captured)
        print("queries: " + ", ".join(f"{name} {n}" for name, n in queries.items()))

        results = {"trivial view": timed(trivial, args.iterations * 20, warmup=20)}
        results["open the seed lesson"] = timed(open_page, args.iterations)
        results["save it unchanged"] = timed(save, args.iterations)
        results["save it with an error"] = timed(save_with_error, args.iterations)
        mixin._unpatch_settings()

    base_wall, base_cpu = (statistics.median(t) for t in results["trivial view"])
    for name, (wall, cpu) in results.items():
        print(
            f"{name:22} wall median {statistics.median(wall):7.1f} ms "
            f"({min(wall):6.1f}-{max(wall):6.1f}) {statistics.median(wall) / base_wall:5.0f}x"
            f" | CPU median {statistics.median(cpu):7.1f} ms "
            f"({min(cpu):6.1f}-{max(cpu):6.1f}) {statistics.median(cpu) / base_cpu:5.0f}x trivial"
        )
    print(f"({args.iterations} requests each; the trivial view {args.iterations * 20})")

if __name__ == "__main__":
    main()
