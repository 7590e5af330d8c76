"""What a reveal costs now that a snippet's output is made ahead, against a trivial view
measured in the same run, and against the first reveal of a version whose output is not
known yet (the run queued, executed in the sandbox, and its result read back).

    .venv/bin/python bench/reveal.py [--iterations N]

Builds a throw-away SQLite database in a temporary directory (never db.sqlite3), imports the
sample course, and posts predictions on the seed lesson's first snippet through Django's
test Client (htmx requests, as the page sends them), each by a new learner. The worker is
played in this process: `execute_run` called on the queued run, as qcluster would. Prints
medians with their spread (min-max), wall and this process's CPU time.
"""

import argparse
import statistics

import harness  # first: it fixes sys.path (see bench/harness.py)

HX = {"HTTP_HX_REQUEST": "true"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()

    with harness.throwaway_django():
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.test import Client
        from django.urls import reverse

        from course.kinds.snippet import Snippet
        from tutor import queueing
        from tutor.actions.runs import execute_run
        from tutor.models import Run
        from tutor.practice.snippet.models import Prediction

        queued: list[int] = []
        queueing.enqueue_run = queued.append  # the worker is played below
        call_command("import_content", str(harness.ROOT / "content"), verbosity=0)
        snippet = Snippet.objects.get(block__key="backend-latency")
        url = reverse("tutor:prediction_create", args=[snippet.pk])
        # One client, whose handler (the middleware, WhiteNoise's list of files) is built
        # once, as a served process's is; each reveal is by a new learner, logged in ahead
        # (a session of their own), so that only the click is timed.
        client = Client()
        client.get("/trivial/")

        def logged_in(n: int) -> str:
            learner = Client()  # a client whose handler is never built: it only logs in
            learner.force_login(User.objects.create_user(f"learner-{n}"))
            return learner.cookies[settings.SESSION_COOKIE_NAME].value

        sessions = iter([logged_in(n) for n in range(args.iterations * 2 + 10)])  # and the warm-ups

        def reveal():
            client.cookies[settings.SESSION_COOKIE_NAME] = next(sessions)
            response = client.post(url, {"text": "a guess", "mode": "typed"}, **HX)
            assert response.status_code == 200
            for run_id in list(queued):  # the worker, when a run was queued; then the poll
                queued.remove(run_id)
                execute_run(run_id=run_id)
                prediction = Prediction.objects.filter(user=response.wsgi_request.user).get()
                detail = reverse("tutor:prediction_detail", args=[prediction.pk])
                response = client.get(detail, **HX)
                assert response.status_code == 200, response.status_code
            assert b"vllm on CPU" in response.content  # the real output, shown
            return response

        def first_reveal_of_a_new_version():
            Run.objects.filter(purpose=Run.Purpose.REVEAL).delete()
            reveal()

        timed = harness.wall_and_cpu_ms

        trivial_client = Client()
        results = {
            "trivial view": timed(
                lambda: trivial_client.get("/trivial/"), args.iterations * 20, warmup=20
            )
        }
        # The import queued the reveal run; the worker makes it (made ahead).
        for run_id in list(queued):
            queued.remove(run_id)
            execute_run(run_id=run_id)
        results["reveal, output made ahead"] = timed(reveal, args.iterations)
        results["first reveal, output to run"] = timed(
            first_reveal_of_a_new_version, args.iterations
        )

    base = [statistics.median(t) for t in results["trivial view"]]
    for name, (wall, cpu) in results.items():
        print(
            f"{name:28} wall {statistics.median(wall):7.1f} ms ({min(wall):6.1f}-{max(wall):6.1f})"
            f" {statistics.median(wall) / base[0]:5.0f}x | CPU {statistics.median(cpu):6.1f} ms"
            f" ({min(cpu):6.1f}-{max(cpu):6.1f}) {statistics.median(cpu) / base[1]:5.0f}x trivial"
        )
    print(
        f"({args.iterations} reveals of each, each by a new learner; the trivial view "
        f"{args.iterations * 20}; the CPU of the sandbox's own process is not this process's)"
    )


if __name__ == "__main__":
    main()
