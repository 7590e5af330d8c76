"""Take the screenshots in this folder (and README's): `.venv/bin/python docs/screenshots/take.py`.

A throw-away SQLite database gets the sample content, the demo accounts and a small class
with some work done; `runserver` serves it and Chromium (through Playwright) photographs the
seed lesson, a class grid and the lesson admin at desktop (1280 px) and phone (390 px) width.
Nothing runs learner code: the reveal shown is stored as a finished run.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
WIDTHS = {"desktop": (1280, 1500), "phone": (390, 844)}
SEED = "/learn/local-models/optimising-speed-and-memory/"
UNION_BOX = """part => {
    let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const element of [part, ...part.querySelectorAll("*")]) {
        const r = element.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        [left, top] = [Math.min(left, r.left), Math.min(top, r.top)];
        [right, bottom] = [Math.max(right, r.right), Math.max(bottom, r.bottom)];
    }
    return {x: left + scrollX, y: top + scrollY, width: right - left, height: bottom - top};
}"""
# Shots of one part of a page rather than of the first screen.
PARTS = {
    "lesson-ordering": "#exercise-kv-cache-vram-order",
    "class-grid-table": "section:has(#class-grid)",
}

WORK = Path(tempfile.mkdtemp(prefix="parsnip-screenshots-"))
os.environ["DATABASE_URL"] = f"sqlite:///{WORK / 'db.sqlite3'}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
sys.path.insert(0, str(ROOT))


def prepare_database() -> dict:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.utils import timezone

    from course.kinds.snippet import Snippet
    from course.models import Lesson
    from tutor.actions.classes import create_class, join_class
    from tutor.models import LessonProgress, Run
    from tutor.practice.snippet.models import Prediction

    call_command("migrate", verbosity=0)
    call_command("import_content", str(ROOT / "content"), verbosity=0)
    call_command("seed_demo", verbosity=0)
    student = User.objects.get(username="student")
    student.first_name = "Sam Okafor"
    student.save()

    # The student has predicted the lesson's first snippet (one line short) and revealed it.
    first = Snippet.objects.get(block__key="backend-latency")
    Run.objects.create(
        snippet=first, purpose=Run.Purpose.REVEAL, code=first.code, status=Run.Status.OK,
        stdout=first.expected_output, exit_code=0, duration_ms=41,
        started_at=timezone.now(), finished_at=timezone.now(),
    )
    Prediction.objects.create(
        user=student, snippet=first, snippet_version=first.version, is_first=True,
        text=first.expected_output.lstrip("\n").replace("3.00s", "3.0s"),
        verdict=Prediction.Verdict.WRONG,
    )

    # A class of eight with progress spread over the three lessons.
    teacher = User.objects.get(username="teacher")
    cohort = create_class(teacher=teacher, name="Tuesday group")
    names = ["Ada Lovelace", "Bo Chen", "Chidi Eze", "Dana Kim", "Eli Novak", "Fay Iqbal", "Gus Ortiz"]
    learners = [student]
    for n, name in enumerate(names):
        user = User.objects.create_user(f"learner{n + 1}", password="x", first_name=name)
        learners.append(user)
    for user in learners:
        join_class(student=user, code=cohort.join_code)
    # Progress rows as the site derives them, with a spread a real class would have.
    start = timezone.now() - timedelta(days=3)
    for lesson_number, lesson in enumerate(Lesson.objects.in_order()):
        snippets = Snippet.objects.filter(block__lesson=lesson).count()
        exercises = lesson.blocks.filter(kind="ordering").count()
        for n, user in enumerate(learners):
            done = (len(learners) - n + 2 - 3 * lesson_number) % (snippets + exercises + 2)
            if user == student and lesson.slug == "optimising-speed-and-memory":
                done = 1
            if done == 0 or done > snippets + exercises + 1:
                continue  # not started
            done = min(done, snippets + exercises)
            finished = done == snippets + exercises
            LessonProgress.objects.create(
                user=user, lesson=lesson, snippets_total=snippets, exercises_total=exercises,
                snippets_predicted=min(done, snippets), exercises_solved=max(0, done - snippets),
                predictions_right=min(done, snippets) // 2, runs=n,
                items_total=snippets + exercises, items_done=done,
                counts={
                    "snippet": {"total": snippets, "done": min(done, snippets),
                                "right": min(done, snippets) // 2, "runs": n},
                    "ordering": {"total": exercises, "done": max(0, done - snippets)},
                },
                started_at=start, updated_at=start + timedelta(hours=n),
                completed_at=start + timedelta(hours=5 * n + lesson_number) if finished else None,
            )
    return {"cohort": cohort.pk, "lesson": Lesson.objects.get(slug="optimising-speed-and-memory").pk}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()


def photograph(base: str, ids: dict) -> None:
    from playwright.sync_api import sync_playwright

    shots = [
        ("lesson", "student", "parsnip-student", SEED),
        ("lesson-ordering", "student", "parsnip-student", SEED + "#exercise-kv-cache-vram-order"),
        ("class-grid", "teacher", "parsnip-teacher", f"/classes/{ids['cohort']}/"),
        ("class-grid-table", "teacher", "parsnip-teacher", f"/classes/{ids['cohort']}/"),
        ("lesson-admin", "admin", "parsnip-admin", f"/admin/course/lesson/{ids['lesson']}/change/"),
    ]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=["--no-sandbox"]
        )
        for width_name, (width, height) in WIDTHS.items():
            touch = width_name == "phone"
            context = browser.new_context(
                viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch,
                color_scheme="light",
            )
            page = context.new_page()
            who = None
            for name, username, password, path in shots:
                if who != username:
                    context.clear_cookies()
                    log_in(page, base, username, password)
                    who = username
                page.goto(base + path)
                page.wait_for_load_state("networkidle")
                element = PARTS.get(name)
                if element:
                    # A viewport as tall as the page, then a clip: Chromium's own shot of an
                    # element beyond the screen drops the touch emulation (hover and pointer).
                    tall = page.evaluate("document.documentElement.scrollHeight")
                    page.set_viewport_size({"width": width, "height": tall})
                    # The part and everything in it (the exercise is wider than its section).
                    box = page.locator(element).evaluate(UNION_BOX)
                    page.screenshot(path=OUT / f"{name}-{width}.png", clip=box)
                    page.set_viewport_size({"width": width, "height": height})
                else:
                    page.screenshot(path=OUT / f"{name}-{width}.png")
            context.close()
        browser.close()
    shutil.copy(OUT / "lesson-1280.png", ROOT / "docs" / "screenshot.png")


def main() -> None:
    ids = prepare_database()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        photograph(base, ids)
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"Screenshots written to {OUT.relative_to(ROOT)}/ and docs/screenshot.png")


if __name__ == "__main__":
    main()
