"""What a teacher's pages cost on the server, against a trivial Django view measured in
the same run: the class overview of 500 students × 20 lessons, and the live view of a
class of 40 refreshed while a class works the seed lesson.

    .venv/bin/python bench/teacher.py [--iterations N] [--students N] [--lessons N] [--pg]
    .venv/bin/python bench/teacher.py overview|live ...   (one part only)
    .venv/bin/python bench/teacher.py live --assignment   (an assignment's live view)

The overview: a throw-away SQLite database in a temporary directory (never db.sqlite3)
holding one teacher, one class and a LessonProgress row for every student and lesson;
both pages are timed through Django's test Client in the same process, and the medians
and their ratio printed. The ratio is what to compare between machines and commits.

The live view (tutor.live): Parsnip served as `make run` serves it (bench/served.py), 30
learners driven through it by bench/class.py's phases (open, reveal, run, submit) over
real HTTP (twice over: --rounds), in a class of 40 with the seed lesson's live view open. While that load runs,
this process refreshes the live view again and again and times (a) its server time:
the view through Django's test Client in this process, on the served site's database,
beside the trivial view timed the same way, and (b) the round trip over HTTP to the
served site, as the teacher's browser polls it. It prints the figures measured quiet
(before the load) and under load, the live view's queries for a class of 3 and of 40,
and the load average. With --assignment, the live view timed is that of an assignment of
the seed lesson (the whole lesson, due tomorrow) set for each class: the same board with
where each student stands on it.

Each part runs in a process of its own (Django is set up once per process).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import harness  # first: it fixes sys.path (see bench/harness.py)


def build_class(students: int, lessons: int):
    """One teacher's class: every student has progress in every lesson, a mix of states."""
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from course.kinds.snippet import Snippet
    from course.models import Block, Course, Lesson
    from tutor.models import Cohort, LessonProgress, Membership
    from tutor.roles import TEACHERS_GROUP

    teacher = User.objects.create_user("teacher")
    teacher.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    course = Course.objects.create(slug="bench", title="Bench course")
    lesson_rows = Lesson.objects.bulk_create(
        Lesson(course=course, slug=f"lesson-{n}", title=f"Lesson {n}", position=n)
        for n in range(lessons)
    )
    blocks = Block.objects.bulk_create(
        Block(lesson=lesson, key="snippet", kind="snippet") for lesson in lesson_rows
    )
    Snippet.objects.bulk_create(Snippet(block=block, code="print(1)\n") for block in blocks)
    cohort = Cohort.objects.create(name="Bench class", teacher=teacher, join_code="BENCH123")
    users = User.objects.bulk_create(User(username=f"student{n:04}") for n in range(students))
    Membership.objects.bulk_create(Membership(cohort=cohort, student=user) for user in users)
    now = timezone.now()
    LessonProgress.objects.bulk_create(
        (
            LessonProgress(
                user=user, lesson=lesson, snippets_total=3, exercises_total=1,
                snippets_predicted=(i + j) % 4, exercises_solved=(i * j) % 2,
                items_total=4, items_done=(i + j) % 4 + (i * j) % 2,
                completed_at=now if (i + j) % 5 == 0 else None,
            )
            for i, user in enumerate(users)
            for j, lesson in enumerate(lesson_rows)
        ),
        batch_size=2000,
    )
    return teacher, cohort


def overview(args) -> None:
    with harness.throwaway_django():
        from django.db import connection
        from django.test import Client
        from django.urls import reverse

        teacher, cohort = build_class(args.students, args.lessons)
        client = Client()
        client.force_login(teacher)
        url = reverse("tutor:class_detail", args=[cohort.pk])
        queries = []
        with connection.execute_wrapper(lambda execute, sql, *rest: queries.append(sql) or execute(sql, *rest)):
            size = len(client.get(url).content)
        trivial_ms = harness.median_ms(client, "/trivial/", max(args.iterations, 100))
        class_ms = harness.median_ms(client, url, args.iterations)

    print(f"class overview: {args.students} students × {args.lessons} lessons, "
          f"{len(queries)} queries, {size / 1024:.0f} KiB of HTML")
    print(f"trivial view        median {trivial_ms:8.3f} ms")
    print(f"class overview      median {class_ms:8.3f} ms")
    print(f"ratio overview/trivial     {class_ms / trivial_ms:8.1f}x  ({args.iterations} requests)")


# The live view under load ----------------------------------------------------------------


def timed_ms(get, url: str) -> float:
    start = time.perf_counter()
    response = get(url)
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return elapsed


def figures(name: str, ms: list[float]) -> str:
    if not ms:
        return f"{name:<34} no samples"
    return (f"{name:<34} median {statistics.median(ms):7.1f} ms   p95 {harness.p95(ms):7.1f} ms   "
            f"max {max(ms):7.1f} ms   ({len(ms)} requests)")


def live_class(learner_names: list[str], size: int):
    """The teacher (same password as the learners) and a class of `size`: the learners
    the load drives, then idle students up to `size`; and a class of 3 to count queries."""
    from django.contrib.auth.models import Group, User

    from tutor.models import Cohort, Membership
    from tutor.roles import TEACHERS_GROUP

    password = User.objects.get(username=learner_names[0]).password
    teacher = User.objects.create(username="bench-teacher", password=password)
    teacher.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    idle = User.objects.bulk_create(
        User(username=f"idle{n:03d}", password=password) for n in range(size - len(learner_names))
    )
    members = list(User.objects.filter(username__in=learner_names)) + idle
    cohort = Cohort.objects.create(name="Live class", teacher=teacher, join_code="LIVE4040")
    Membership.objects.bulk_create(Membership(cohort=cohort, student=user) for user in members)
    small = Cohort.objects.create(name="Small class", teacher=teacher, join_code="LIVE0003")
    Membership.objects.bulk_create(Membership(cohort=small, student=user) for user in members[:3])
    return teacher, cohort, small


def assignment_of(cohort, lesson):
    from datetime import timedelta

    from django.utils import timezone

    from tutor.assignments.models import Assignment

    now = timezone.now()
    return Assignment.objects.create(
        cohort=cohort, lesson=lesson, opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )


def count_queries(client, url: str) -> int:
    from django.db import connection

    queries = []
    with connection.execute_wrapper(lambda execute, sql, *rest: queries.append(sql) or execute(sql, *rest)):
        assert client.get(url, headers={"HX-Request": "true"}).status_code == 200
    return len(queries)


def live(args) -> None:
    import importlib
    import signal
    import threading

    from bench.served import Site

    # A job started in the background (`&`) ignores SIGINT, and so would the server it
    # starts: Site's Ctrl-C would not stop it. Its children get the default back from this.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    load = importlib.import_module("bench.class")  # "class" is a keyword: no plain import
    with Site(pg=args.pg) as site:
        from django.test import Client
        from django.test.utils import override_settings
        from django.urls import include, path, reverse

        from course.kinds.code_exercise import CodeExercise
        from course.kinds.snippet import Snippet
        from course.models import Lesson
        from tutor.live.models import LessonActivity

        harness.urlpatterns = [path("trivial/", harness.trivial), path("", include("config.urls"))]
        names = load.create_learners(args.learners)
        teacher, cohort, small = live_class(names, args.class_size)
        lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
        url = reverse("tutor:live_view", args=[cohort.pk, lesson.pk])
        small_url = reverse("tutor:live_view", args=[small.pk, lesson.pk])
        if args.assignment:
            url, small_url = (
                f"{address}?assignment={assignment_of(group, lesson).pk}"
                for address, group in ((url, cohort), (small_url, small))
            )

        learners = [load.Learner(site.url, name) for name in names]
        _, errors = load.at_once(learners, load.Learner.log_in)
        if errors:
            raise SystemExit(f"log-in failed for {len(errors)}: {errors[:3]}")
        browser = load.Learner(site.url, teacher.username)  # the teacher's browser
        browser.log_in()

        def over_http(path: str):
            return browser.http.get(site.url + path, headers={"HX-Request": "true"}, timeout=60)

        snippet = Snippet.objects.get(block__key=load.FIRST_SNIPPET)
        exercise = CodeExercise.objects.get(block__key=load.EXERCISE)
        def reveal(learner) -> None:
            learner.click(f"/snippets/{snippet.pk}/predict/", {"text": "the timings", "mode": "typed"})

        def run(learner) -> None:
            code = snippet.code + f"\nprint('{learner.username}')\n"
            learner.click(f"/snippets/{snippet.pk}/runs/", {"code": code})

        def submit(learner) -> None:
            code = exercise.solution + f"\n# {learner.username}\n"
            learner.click(f"/code-exercises/{exercise.pk}/submit/", {"code": code})

        phases = [("open", load.Learner.open_lesson), ("reveal", reveal), ("run", run), ("submit", submit)]

        with override_settings(ROOT_URLCONF="harness", DEBUG=False):
            client = Client()
            client.force_login(teacher)
            hx = {"HX-Request": "true"}

            def sample(into: dict[str, list[float]]) -> None:
                into["trivial"].append(timed_ms(client.get, "/trivial/"))
                into["live"].append(timed_ms(lambda u: client.get(u, headers=hx), url))
                into["http"].append(timed_ms(over_http, url))

            quiet = {"trivial": [], "live": [], "http": []}
            for _ in range(5):
                sample({"trivial": [], "live": [], "http": []})  # warm
            for _ in range(args.iterations):
                sample(quiet)
            queries = (count_queries(client, small_url), count_queries(client, url))

            loaded = {"trivial": [], "live": [], "http": []}
            done = threading.Event()

            def drive() -> None:
                try:
                    for _ in range(args.rounds):
                        for name, action in phases:
                            load.report(name, len(learners), *load.at_once(learners, action))
                finally:
                    done.set()

            driver = threading.Thread(target=drive)
            driver.start()
            while not done.is_set():
                sample(loaded)
                time.sleep(0.05)
            driver.join()
            load_average = os.getloadavg()

        active = LessonActivity.objects.filter(lesson=lesson).count()
    where = "PostgreSQL + Redis" if args.pg else "SQLite + ORM broker (make run)"
    scope = "an assignment's " if args.assignment else ""
    print(f"{scope}live view: class of {args.class_size}, {args.learners} learners working the seed lesson "
          f"on {where}; {active} activity rows; {os.cpu_count()} cores")
    print(f"queries per refresh: class of 3 {queries[0]}, class of {args.class_size} {queries[1]}")
    print("quiet (before the load)")
    print("  " + figures("trivial view (server)", quiet["trivial"]))
    print("  " + figures("live view (server)", quiet["live"]))
    print("  " + figures("live view (HTTP round trip)", quiet["http"]))
    print("under load (while the class works)")
    print("  " + figures("trivial view (server)", loaded["trivial"]))
    print("  " + figures("live view (server)", loaded["live"]))
    print("  " + figures("live view (HTTP round trip)", loaded["http"]))
    if loaded["trivial"] and loaded["live"]:
        ratio = statistics.median(loaded["live"]) / statistics.median(loaded["trivial"])
        print(f"ratio live/trivial under load  {ratio:6.1f}x")
    print(f"load average at the end: {load_average[0]:.2f} {load_average[1]:.2f} {load_average[2]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", choices=["overview", "live"], help="one part only")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--lessons", type=int, default=20)
    parser.add_argument("--class-size", type=int, default=40, help="live view: students in the class")
    parser.add_argument("--learners", type=int, default=30, help="live view: learners working at once")
    parser.add_argument("--rounds", type=int, default=2, help="live view: times the class works the phases")
    parser.add_argument("--pg", action="store_true", help="live view: PostgreSQL + Redis")
    parser.add_argument("--assignment", action="store_true",
                        help="live view: an assignment's (the seed lesson, set for the class)")
    args = parser.parse_args()
    if args.part == "overview":
        overview(args)
    elif args.part == "live":
        live(args)
    else:
        for part in ("overview", "live"):
            print(f"-- {part}", flush=True)
            subprocess.run([sys.executable, __file__, part, *sys.argv[1:]], check=True, env=os.environ)


if __name__ == "__main__":
    main()
