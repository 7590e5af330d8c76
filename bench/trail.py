"""The trail's costs: storage per student-hour of editing, and a replay step's server time
against a trivial Django view, for a short session and an hour-long one.

    .venv/bin/python bench/trail.py [--iterations N]

In a throw-away SQLite database (never db.sqlite3), one simulated student edits a code
exercise for an hour, recorded exactly as trail.js sends it (tutor.trail.actions, one batch
every 4 seconds while typing): bursts of typing at about 200 characters a minute (typing on
at one place is one step, as trail.js merges it), a few deletions, a paste every 10
minutes, a run every 2 minutes, pauses to think. Prints the writes, the steps, the bytes
kept (the steps' text, the checkpoints, and the database file's growth), then times the
replay step page — its htmx region and the whole page — at the first, middle and last step
of the hour and of a 5-minute session, with the queries each makes.
"""

import argparse
import os
import random
import statistics
import time
from datetime import timedelta

import harness  # first: it fixes sys.path (see bench/harness.py)

WORDS = "total values result append range print len for in if return def while".split()


def simulate_hour(user, block, *, minutes: int, seed: int = 1) -> dict:
    from django.utils import timezone

    from tutor.trail import actions

    rng = random.Random(seed)
    text = block.code_exercise.starter
    now = timezone.now() - timedelta(minutes=minutes)
    end = now + timedelta(minutes=minutes)
    batches = steps = 0
    next_paste = now + timedelta(minutes=10)
    next_run = now + timedelta(minutes=2)
    while now < end:
        if rng.random() < 0.3:  # thinking: nothing sent
            now += timedelta(seconds=rng.randint(5, 40))
            continue
        edits = []
        for ms_ago in (3500, 2500, 1500, 500):  # one burst of typing, a step every second
            if rng.random() < 0.15 and len(text) > 20:
                pos = rng.randrange(len(text) - 5)
                delete = rng.randint(1, 5)
                edits.append([ms_ago, "e", pos, delete, ""])
                text = text[:pos] + text[pos + delete :]
            else:
                pos = rng.randrange(len(text) + 1)
                insert = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) + rng.choice(
                    " \n"
                )
                edits.append([ms_ago, "e", pos, 0, insert])
                text = text[:pos] + insert + text[pos:]
        if now >= next_paste:
            pasted = "\n".join(f"    line_{i} = compute({i})" for i in range(8)) + "\n"
            edits.append([0, "p", len(text), 0, pasted])
            text += pasted
            next_paste += timedelta(minutes=10)
        if len(text) > 3000:  # a learner's program stays short: they delete as they go
            edits.append([0, "e", 0, 1500, ""])
            text = text[1500:]
        actions.record_edits(
            user=user, block=block, edits=[tuple(e) for e in edits], code=text, now=now
        )
        batches += 1
        steps += len(edits)
        if now >= next_run:
            actions.record_moment(user=user, block=block, what=actions.RUN, code=text)
            batches += 1
            next_run += timedelta(minutes=2)
        now += timedelta(seconds=4)
    return {"batches": batches, "text": text}


def median_ms(client, url: str, iterations: int, headers: dict) -> float:
    for _ in range(5):
        assert client.get(url, headers=headers).status_code == 200
    timings = []
    for _ in range(iterations):
        started = time.perf_counter()
        response = client.get(url, headers=headers)
        timings.append(time.perf_counter() - started)
        assert response.status_code == 200
    return statistics.median(timings) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=60)
    args = parser.parse_args()
    with harness.throwaway_django():
        from django.conf import settings
        from django.db import connection
        from django.test import Client
        from django.urls import reverse

        from course.models import Block
        from tests.factories import make_cohort, make_lesson, make_teacher, make_user
        from tutor.trail import replay
        from tutor.trail.models import Trail, TrailChunk

        lesson = make_lesson()
        from course.kinds.code_exercise import CodeExercise

        block = Block.objects.create(lesson=lesson, kind="code_exercise", key="bench", position=1)
        CodeExercise.objects.create(
            block=block, starter="def total(values):\n    pass\n", solution="x"
        )
        teacher, student, short = make_teacher("tess"), make_user("hour"), make_user("short")
        cohort = make_cohort(teacher, students=[student, short])
        db_file = settings.DATABASES["default"]["NAME"]
        connection.cursor().execute("VACUUM")
        size_before = os.path.getsize(db_file)
        hour = simulate_hour(student, block, minutes=60)
        connection.cursor().execute("VACUUM")
        grown = os.path.getsize(db_file) - size_before
        trail = Trail.objects.get(user=student)
        chunks = TrailChunk.objects.filter(trail=trail)
        data = sum(len(c.data.encode()) for c in chunks)
        checkpoints = sum(len((c.checkpoint or "").encode()) for c in chunks)
        print("one student, one hour of editing (simulated, recorded as trail.js sends it)")
        print(
            f"  writes (batches and runs)      {hour['batches']} ({hour['batches'] / 3600:.2f} a second)"
        )
        print(f"  steps                          {trail.steps}, in {trail.chunks} chunks")
        print(f"  steps' text                    {data / 1024:7.1f} KB")
        print(f"  checkpoints                    {checkpoints / 1024:7.1f} KB")
        print(
            f"  database file grew by          {grown / 1024:7.1f} KB (rows, indexes and pages included)"
        )

        simulate_hour(short, block, minutes=5, seed=2)
        short_trail = Trail.objects.get(user=short)
        client = Client()
        client.force_login(teacher)
        trivial_ms = harness.median_ms(client, "/trivial/", max(args.iterations, 100))
        print(f"\ntrivial view                          median {trivial_ms:7.3f} ms")
        for name, who, shown in (("5 minutes", short, short_trail), ("1 hour", student, trail)):
            base = reverse("tutor:class_trail", args=[cohort.pk, who.pk, block.pk])
            for label, step in (("first", 1), ("middle", shown.steps // 2), ("last", shown.steps)):
                for part, headers in (("region", {"HX-Request": "true"}), ("page", {})):
                    url = f"{base}?step={step}"
                    queries = []
                    with connection.execute_wrapper(
                        lambda execute, sql, *rest, queries=queries: (
                            queries.append(sql) or execute(sql, *rest)
                        )
                    ):
                        client.get(url, headers=headers)
                    ms = median_ms(client, url, args.iterations, headers)
                    print(
                        f"{name:>9}, step {label:<6} {part:<6} ({step:>5} of {shown.steps:>5})  "
                        f"median {ms:7.3f} ms  {len(queries)} queries  {ms / trivial_ms:5.1f}x trivial"
                    )
        print(f"\nreplay.step_of seeks from a checkpoint every {replay.CHECKPOINT_EVERY} chunks")


if __name__ == "__main__":
    main()
