"""How long a class overview of 500 students × 20 lessons takes on the server, against a
trivial Django view.

    .venv/bin/python bench/teacher.py [--iterations N] [--students N] [--lessons N]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3) holding one
teacher, one class and a LessonProgress row for every student and lesson, then times both
pages through Django's test Client in the same process and prints the medians and their
ratio. The ratio is what to compare between machines and commits.
"""

import argparse

import harness  # first: it fixes sys.path (see bench/harness.py)


def build_class(students: int, lessons: int):
    """One teacher's class: every student has progress in every lesson, a mix of states."""
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from course.models import Block, Course, Lesson, Snippet
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--lessons", type=int, default=20)
    args = parser.parse_args()

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


if __name__ == "__main__":
    main()
