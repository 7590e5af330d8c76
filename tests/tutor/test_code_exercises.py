"""Write code: a learner submits code, the worker grades it by the exercise's tests in the
sandbox, and the panel says what each test found; progress, drafts and refusals."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from course.kinds.code_exercise import CodeExercise
from course.models import Block
from tests.factories import make_user
from tests.tutor.assignment_world import assign, class_of
from tutor.actions.runs import execute_run
from tutor.assignments.models import Extension
from tutor.models import LessonProgress, Run
from tutor.practice.code_exercise.models import ExerciseDraft, Submission

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
SOLUTION = """def kv_cache_vram(bits, capacity):
    return bits * capacity / 1000


print("KV cache VRAM usage:")
for bits in (16, 8, 4):
    print("%d-bit, 1000 units: %.2f GB" % (bits, kv_cache_vram(bits, 1000)))
"""
HARD_CODED = """def kv_cache_vram(bits, capacity):
    return {16: 16, 8: 8}[bits]


print("KV cache VRAM usage:")
print("16-bit, 1000 units: 16.00 GB")
print("8-bit, 1000 units: 8.00 GB")
print("4-bit, 1000 units: 4.00 GB")
"""


@pytest.fixture
def exercise(sample_content) -> CodeExercise:
    return CodeExercise.objects.select_related("block__lesson").get(
        block__key="write-kv-cache-vram"
    )


def submit(client, exercise, code, **extra):
    return client.post(
        reverse("tutor:submission_create", args=[exercise.pk]), {"code": code}, **extra
    )


def grade_latest() -> Submission:
    submission = Submission.objects.latest("created_at")
    execute_run(run_id=submission.run_id)
    submission.refresh_from_db()
    return submission


def results_html(client, submission) -> str:
    return client.get(
        reverse("tutor:submission_detail", args=[submission.pk]), **HX
    ).content.decode()


def test_the_lesson_shows_the_exercise_with_its_visible_tests_and_starter(
    client, learner, exercise
):
    html = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
    panel = html.split('id="exercise-write-kv-cache-vram"')[1]
    assert "Now write it yourself" in panel
    assert "16 bits for 1000 units is 16 GB" in panel
    assert "And 2 hidden tests: you will see whether they pass" in panel
    assert "works for other bit widths" not in panel  # a hidden test's name: not before
    assert "# Return the KV cache&#x27;s size in GB." in panel
    assert "bits * capacity / 1000  # GB" not in panel.split("Your code")[1]  # no solution


def test_a_reader_not_logged_in_is_asked_to_log_in(client, exercise):
    html = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
    assert "to write the code and have it tested" in html
    response = submit(client, exercise, SOLUTION)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Submission.objects.exists()


def test_the_solution_passes_every_test_and_the_lesson_counts_it(client, learner, exercise):
    response = submit(client, exercise, SOLUTION, **HX)
    assert response.status_code == 200
    submission = grade_latest()
    assert submission.verdict == Submission.Verdict.PASSED
    assert (submission.tests_passed, submission.tests_total) == (6, 6)
    assert "Every test passes" in results_html(client, submission)
    progress = LessonProgress.objects.get(user=learner, lesson=exercise.block.lesson)
    assert progress.counts["code_exercise"] == {"total": 1, "done": 1}


def test_a_failing_visible_test_shows_its_name_input_and_the_difference(client, learner, exercise):
    submit(client, exercise, SOLUTION.replace("%.2f GB", "%.1f GB"), **HX)
    submission = grade_latest()
    assert submission.verdict == Submission.Verdict.FAILED
    html = results_html(client, submission)
    assert "5 of 6 tests pass" in html
    assert "the program prints the table" in html
    assert "16-bit, 1000 units: 16.00 GB" in html  # expected, line by line
    assert "16-bit, 1000 units: 16.0 GB" in html  # what the code printed


def test_a_failing_hidden_test_shows_only_its_name_until_solved(client, learner, exercise):
    submit(client, exercise, HARD_CODED, **HX)
    submission = grade_latest()
    html = results_html(client, submission)
    assert "works for other bit widths" in html and "(hidden test)" in html
    assert "kv_cache_vram(32, 1000) == 32" not in html  # what it checks: not yet
    assert "Step through this test" not in html.split("works for other bit widths")[1]
    submit(client, exercise, SOLUTION, **HX)
    grade_latest()
    html = results_html(client, submission)  # the old failure, seen after solving
    hidden = html.split("works for other bit widths", 1)[1].split("</li>")[0]
    assert "kv_cache_vram(" in hidden and "Step through this test" in hidden
    page = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
    assert "you have solved the exercise, so their failures show in full now" in page
    assert "you will see whether they pass" not in page


def test_once_solved_the_hidden_tests_are_listed_with_the_others(client, learner, exercise):
    """The box said the hidden tests show now; they must then be there to see."""
    submit(client, exercise, SOLUTION, **HX)
    grade_latest()
    page = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
    box = page.split("What the tests check", 1)[1].split("</div>", 1)[0]
    assert "<li>works for other bit widths <span class=\"muted\">(hidden test)</span></li>" in box
    assert "16 bits for 1000 units is 16 GB" in box
    assert "The hidden tests are listed too: you have solved the exercise" in box


def test_testing_again_with_the_same_result_says_so_with_the_time(client, learner, exercise):
    """A second Test it that changes nothing must still show that it happened."""
    submit(client, exercise, HARD_CODED, **HX)
    first = grade_latest()
    html = results_html(client, first)
    assert f"Tested at {timezone.localtime(first.created_at):%H:%M}." in html
    assert "Tested again" not in html

    submit(client, exercise, HARD_CODED + "\n", **HX)
    second = grade_latest()
    html = results_html(client, second)
    assert (
        f"Tested again at {timezone.localtime(second.created_at):%H:%M} — the same result as "
        "the time before." in html
    )
    html = results_html(client, first)  # the first one, seen again later: nothing before it
    assert "Tested again" not in html

    submit(client, exercise, SOLUTION, **HX)
    html = results_html(client, grade_latest())
    assert "Every test passes" in html and "Tested again" not in html


def test_a_fraction_where_the_test_expects_5_passes_and_the_panel_says_it_is_another_type(
    client, learner
):
    """Python calls `Fraction(5) == 5` right, and so does the grader; the learner is told the
    value is right but of another type."""
    from course.kinds.code_exercise import CodeTest
    from tests.factories import make_block, make_lesson

    block = make_block(make_lesson(), "code_exercise", key="halves")
    exercise = CodeExercise.objects.create(block=block, solution="def half(n):\n    return n // 2\n")
    CodeTest.objects.create(exercise=exercise, key="ten", name="half of 10", check_code="assert half(10) == 5")
    code = "from fractions import Fraction\n\ndef half(n):\n    return Fraction(n, 2)\n"

    submit(client, exercise, code, **HX)
    submission = grade_latest()
    html = results_html(client, submission)

    assert submission.verdict == Submission.Verdict.PASSED
    assert "Every test passes" in html and "a different value" not in html
    assert '<details class="tests-passing" open>' in html  # the note is not folded away
    assert (
        "Right value, another type: your code gave <code>Fraction(5, 1)</code> (a Fraction) "
        "where the test expects <code>5</code> (an int)." in html
    )


DAY = timedelta(days=1)


@pytest.mark.parametrize(
    "option, due, extension, whose, shown",
    [
        (True, -DAY, None, "theirs", True),
        (False, -DAY, None, "theirs", False),  # the teacher did not choose it
        (True, +DAY, None, "theirs", False),  # not due yet
        (True, -DAY, +DAY, "theirs", False),  # their extension runs on
        (True, -2 * DAY, -DAY, "theirs", True),  # and is over
        (True, -DAY, None, "another class's", False),
        (True, -DAY, None, "another item's", False),  # an assignment of the lesson's snippet
    ],
    ids=["due", "not-chosen", "not-due", "extended", "extension-over", "other-class", "other-item"],
)
def test_hidden_tests_show_in_full_once_an_assignment_that_says_so_is_due_for_the_learner(
    client, learner, exercise, option, due, extension, whose, shown
):
    """What the teacher chose for the learner's own assignment of the exercise, and only
    once the learner's own due date has passed, shows what the hidden tests check."""
    now = timezone.now()
    cohort = class_of(learner) if whose != "another class's" else class_of(make_user())
    blocks = [Block.objects.get(key="kv-cache-vram")] if whose == "another item's" else []
    assignment = assign(
        cohort,
        exercise.block.lesson,
        blocks=blocks,
        opens=now + due - 2 * DAY,
        due=now + due,
        hidden_tests_after_due=option,
    )
    if extension is not None:
        Extension.objects.create(assignment=assignment, student=learner, due_at=now + extension)
    submit(client, exercise, HARD_CODED, **HX)
    submission = grade_latest()

    for html in (results_html(client, submission),
                 client.get(exercise.block.lesson.get_absolute_url()).content.decode()):  # fmt: skip
        results = html.split('class="exercise-results', 1)[1]  # the box above lists it too
        hidden = results.split("works for other bit widths", 1)[1].split("</li>")[0]
        assert ("KeyError: 4" in hidden) is shown  # the input, through the error
        assert ("Step through this test" in hidden) is shown
    page = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
    assert ("the assignment is past its due date, so their failures show" in page) is shown
    assert ("you will see whether they pass" in page) is not shown


LEAKING = """class Leak(Exception):
    pass


def kv_cache_vram(bits, capacity):
    if (bits, capacity) in ((16, 1000), (8, 1000)):
        return bits * capacity / 1000
    if bits == 2:
        import sys
        sys.exit(f"bits={bits} capacity={capacity}")
    raise Leak(f"LEAKED bits={bits} capacity={capacity}")
"""


def test_a_hidden_tests_input_never_reaches_the_learner_through_an_error(client, learner, exercise):
    """A hidden test's input put into the learner's own exception message or exit code
    reaches neither the partial nor the full page: only the kind of failure does."""
    submit(client, exercise, LEAKING, **HX)
    submission = grade_latest()
    hidden = [r for r in submission.results["results"] if not r["visible"]]
    assert hidden and all(not r["passed"] for r in hidden)
    assert any("LEAKED" in (r["message"] + r["traceback"]) for r in hidden)  # teachers see it
    for html in (results_html(client, submission),
                 client.get(exercise.block.lesson.get_absolute_url()).content.decode()):  # fmt: skip
        assert "LEAKED bits=4" not in html and "capacity=1000" not in html  # the code is there
        assert "32" not in html.split("works for other bit widths")[1].split("</li>")[0]
        assert "Your code stopped with an error (an Exception) in this test." in html
    submit(client, exercise, SOLUTION, **HX)
    grade_latest()
    assert "LEAKED bits=" in results_html(client, submission)  # solved: the old failure in full


def test_an_exception_and_an_infinite_loop_are_said_in_plain_words(client, learner, exercise):
    submit(client, exercise, "def kv_cache_vram(bits, capacity):\n    return bits / 0\n", **HX)
    html = results_html(client, grade_latest())
    assert "ZeroDivisionError" in html
    submit(
        client,
        exercise,
        "def kv_cache_vram(bits, capacity):\n    while True:\n        pass\n",
        **HX,
    )
    submission = grade_latest()
    assert {r["kind"] for r in submission.results["results"] if not r["passed"]} >= {"too_slow"}


def test_empty_code_is_refused_and_nothing_is_queued(client, learner, exercise):
    response = submit(client, exercise, "   \n", **HX)
    assert response.status_code == 400
    assert "There is no code to submit" in response.content.decode()
    assert not Run.objects.exists()


def test_a_plain_post_redirects_to_the_exercise_with_its_submission(client, learner, exercise):
    response = submit(client, exercise, SOLUTION)
    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response["Location"].endswith(
        f"?submission={submission.pk}#exercise-write-kv-cache-vram"
    )


def test_the_code_is_kept_as_a_draft(client, learner, exercise):
    url = reverse("tutor:exercise_draft_save", args=[exercise.pk])
    response = client.post(
        url, {"code": "def kv_cache_vram(bits, capacity):\n    return 1\n"}, **HX
    )
    assert "Saved." in response.content.decode()
    assert ExerciseDraft.objects.get(user=learner).code.endswith("return 1\n")
    html = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
    assert "    return 1" in html
    client.post(url, {"reset": "1"}, **HX)
    assert not ExerciseDraft.objects.exists()


def test_another_learner_cannot_see_a_submission(client, learner, exercise):
    submit(client, exercise, SOLUTION, **HX)
    submission = Submission.objects.get()
    client.force_login(make_user())
    response = client.get(reverse("tutor:submission_detail", args=[submission.pk]), **HX)
    assert response.status_code == 404


def test_check_content_refuses_a_solution_that_fails_or_a_starter_that_passes(exercise):
    from io import StringIO

    from django.core.management import CommandError, call_command

    out = StringIO()
    call_command("check_content", "--lesson", "optimising-speed-and-memory", stdout=out)
    assert "write-kv-cache-vram (solution passes, starter does not)" in out.getvalue()

    exercise.solution = exercise.solution.replace("/ 1000", "/ 100")
    exercise.starter = SOLUTION  # nothing left to do
    exercise.save()
    out = StringIO()
    with pytest.raises(CommandError, match="1 of 1 code exercises fail their own check"):
        call_command("check_content", "--lesson", "optimising-speed-and-memory", stdout=out)
    report = out.getvalue()
    assert "MISMATCH  local-models/optimising-speed-and-memory · write-kv-cache-vram" in report
    assert "the solution fails test '16 bits for 1000 units is 16 GB'" in report
    assert "the starter code already passes every test" in report


def test_an_expired_session_on_a_click_goes_to_log_in_and_back_to_the_lesson(client, exercise):
    lesson_url = exercise.block.lesson.get_absolute_url()
    response = submit(
        client, exercise, SOLUTION, HTTP_HX_CURRENT_URL=f"http://testserver{lesson_url}", **HX
    )
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith("/accounts/login/?next=")
    assert "optimising-speed-and-memory" in response["HX-Redirect"]
    assert not Submission.objects.exists()


def test_a_refusal_is_said_in_the_exercise_message_line(client, learner, exercise):
    response = submit(client, exercise, "", **HX)
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#exercise-write-kv-cache-vram-message"
    assert '<span class="refusal">There is no code to submit' in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_pass_and_the_progress_counting_it_are_stored_together(
    client, learner, exercise, monkeypatch
):
    """A request whose wait for the grading ran out reads the submission: if it reads a pass,
    the badge it sends must count it. So the pass is committed with the recount, or not at
    all (a recount that fails leaves the submission to the repair sweep, never a pass the
    progress does not show)."""
    from tutor.actions import progress

    submit(client, exercise, SOLUTION, **HX)
    submission = Submission.objects.latest("created_at")

    def recount_fails(**kwargs):
        raise RuntimeError("the recount failed")

    # Every scoring change goes through it (tutor.actions.progress.learner_worked).
    monkeypatch.setattr(progress, "refresh_lesson_progress", recount_fails)
    execute_run(run_id=submission.run_id)  # the worker: the grading itself fails, and says so
    submission.refresh_from_db()
    assert submission.verdict != Submission.Verdict.PASSED
    assert not LessonProgress.objects.filter(user=learner, items_done__gt=0).exists()
