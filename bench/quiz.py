"""A class of N taking a quiz at once over real HTTP: every learner starts the quiz of a
sample lesson at one instant, answers every question (the attempt page's one form, as
without JavaScript), then presses Submit at one instant.

    .venv/bin/python bench/quiz.py [N] [--lesson SLUG]

Parsnip is served as `make run` serves it (bench/served.py: gunicorn + the worker, DEBUG
off, a throw-away SQLite database). The quiz is the lesson's questions, set for a class of N
with a time limit, feedback after submitting. The variants of its questions that compute
their answer are computed once before (as `check_content` does): the figure is the quiz,
not the sandbox's first runs.

Prints p50/p95/max of each phase's click (from the POST to the page it leads to, the
redirect followed as a browser does), against the baseline measured in the same run: the
N learners opening the quiz's start page at one instant (a page of a few queries, the
same session, middleware and templates). Goal (issue 37): the submit click's p95 <= 0.5 s.
"""

import harness  # noqa: F401, I001  -- first: it fixes sys.path (see bench/harness.py)

import argparse
import importlib
import os
import re
from datetime import timedelta

from bench.served import Site

class_bench = importlib.import_module("bench.class")  # bench/class.py: learners, at once, report
Learner, at_once, report, create_learners = (
    class_bench.Learner, class_bench.at_once, class_bench.report, class_bench.create_learners,
)

LESSON = "choosing-hardware-for-local-models"
OPTION = re.compile(r'name="(q\d+-option)" value="([^"]+)"')
TYPED = re.compile(r'name="(q\d+-(?:number|blank-[^"]+))"')


def answers_of(html: str) -> dict[str, str]:
    """One answer per question of the attempt's form: its first option, or "1" typed."""
    data: dict[str, str] = {}
    for name, value in OPTION.findall(html):
        data.setdefault(name, value)
    for name in TYPED.findall(html):
        data[name] = "1"
    return data


def setup_quiz(n: int, slug: str, names: list[str]):
    from django.contrib.auth.models import User
    from django.utils import timezone

    from course.models import Block, Lesson
    from tests.factories import make_cohort, make_teacher
    from tutor.assignments.models import Assignment
    from tutor.practice.questions import QUESTION_KINDS, variants

    lesson = Lesson.objects.get(slug=slug)
    for block in Block.objects.filter(lesson=lesson, kind__in=QUESTION_KINDS).select_related("lesson__course"):
        if variants.computes(block.kind_spec.values_of(block)):
            variants.check_question(block)  # kept, as check_content keeps them
    cohort = make_cohort(make_teacher("bench-teacher"), students=list(User.objects.filter(username__in=names)))
    now = timezone.now()
    quiz = Assignment.objects.create(
        cohort=cohort, lesson=lesson, whole_lesson=True, quiz=True, time_limit=30, attempts_allowed=1,
        opens_at=now - timedelta(minutes=1), due_at=now + timedelta(days=1),
    )
    return quiz, Block.objects.filter(lesson=lesson, kind__in=QUESTION_KINDS).count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=30)
    parser.add_argument("--lesson", default=LESSON)
    args = parser.parse_args()
    with Site() as site:
        names = create_learners(args.n)
        quiz, questions = setup_quiz(args.n, args.lesson, names)
        learners = [Learner(site.url, name) for name in names]
        start_url = f"/quizzes/{quiz.pk}/"
        print(f"class of {args.n} on SQLite + ORM broker (make run), {os.cpu_count()} cores; "
              f"quiz of {questions} questions ({args.lesson}); load average before "
              + " ".join(f"{x:.2f}" for x in os.getloadavg()))
        times, errors = at_once(learners, Learner.log_in)
        report("log in", args.n, times, errors)
        if errors:
            raise SystemExit("log-in failed")

        def open_start(learner) -> None:
            learner.get(site.url + start_url, timeout=60).raise_for_status()

        base_times, errors = at_once(learners, open_start)
        report("baseline", args.n, base_times, errors)  # the start page, all at once

        pages: dict[str, str] = {}

        def post(learner, path: str, data: dict) -> str:
            headers = {"Referer": site.url + start_url}
            data = data | {"csrfmiddlewaretoken": learner.http.cookies["csrftoken"]}
            response = learner.http.post(site.url + path, data=data, headers=headers, timeout=60)
            response.raise_for_status()
            return response

        def start(learner) -> None:
            response = post(learner, f"/quizzes/{quiz.pk}/start/", {})
            pages[learner.username] = response.url + "|" + response.text

        times, errors = at_once(learners, start)
        report("start", args.n, times, errors)

        def answer(learner) -> None:
            url, html = pages[learner.username].split("|", 1)
            path = url.removeprefix(site.url)
            post(learner, path + "save/", answers_of(html))
            pages[learner.username] = path

        times, errors = at_once(learners, answer)
        report("answer", args.n, times, errors)

        def submit(learner) -> None:
            response = post(learner, pages[learner.username] + "submit/", {})
            if "Score:" not in response.text:
                raise RuntimeError("the results page did not show a score")

        times, errors = at_once(learners, submit)
        report("submit", args.n, times, errors)
        from statistics import median

        from harness import p95

        from tutor.quizzes.models import QuizAttempt

        submitted = QuizAttempt.objects.filter(assignment=quiz, submitted_at__isnull=False).count()
        if times and base_times:
            print(f"submit p95 / baseline p95: {p95(sorted(times)) / p95(sorted(base_times)):.1f}x; "
                  f"p50 {median(times) / median(base_times):.1f}x")
        print(f"attempts submitted {submitted}/{args.n}; load average after "
              + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
