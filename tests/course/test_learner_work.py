"""No edit of content loses what learners did: a re-import, the admin's Delete and the
inlines' delete boxes refuse, naming the content and how many learners' work it holds."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from course.kinds.ordering import OrderingExercise, OrderingLine
from course.kinds.snippet import Snippet
from course.learner_work import learner_work
from course.models import Block, Course, Lesson
from tests.factories import (
    make_admin,
    make_exercise,
    make_lesson,
    make_lesson_progress,
    make_ordering_attempt,
    make_prediction,
    make_snippet,
    make_user,
)
from tutor.models import LessonProgress
from tutor.practice.ordering.actions import arrange_lines
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt
from tutor.practice.snippet.models import CodeDraft, Prediction

pytestmark = pytest.mark.django_db

SHIPPED = Path(settings.BASE_DIR) / "content"
SEED = "local-models/optimising-speed-and-memory.yaml"
DEPLOYING = "local-models/deploying-a-private-model-safely.yaml"


@pytest.fixture
def content(tmp_path) -> Path:
    return Path(shutil.copytree(SHIPPED, tmp_path / "content"))


def import_content(directory: Path) -> str:
    out = StringIO()
    call_command("import_content", str(directory), stdout=out)
    return out.getvalue()


def refusal(directory: Path) -> str:
    with pytest.raises(CommandError) as error:
        import_content(directory)
    return str(error.value)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1))


def cut_block(path: Path, start: str, end: str) -> None:
    text = path.read_text()
    path.write_text(text[: text.index(start)] + text[text.index(end) :])


def remove_lesson_file(content: Path) -> None:
    (content / DEPLOYING).unlink()
    edit(content / "local-models/course.yaml", "  - deploying-a-private-model-safely\n", "")


def rows() -> dict:
    models = [
        Course,
        Lesson,
        Block,
        Snippet,
        OrderingExercise,
        OrderingLine,
        Prediction,
        CodeDraft,
        OrderingAttempt,
        OrderingArrangement,
        LessonProgress,
    ]
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in models}


# --- Re-import ---------------------------------------------------------------------------


def test_removing_a_snippet_learners_used_names_it_and_counts_them(content):
    import_content(content)
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    first, second = make_user(), make_user()
    make_prediction(first, snippet)
    make_prediction(second, snippet)
    CodeDraft.objects.create(user=second, snippet=snippet, code="print(2)\n")
    before = rows()
    cut_block(content / SEED, "  - kind: snippet\n    key: kv-cache-vram\n", "  - kind: ordering")

    message = refusal(content)

    assert (
        f"{content / SEED}: snippet 'kv-cache-vram' is gone from the file, but 2 learners' "
        "work (code drafts, predictions) points at it: put it back with the same key"
    ) in message
    assert rows() == before


def test_removing_an_ordering_line_that_learners_attempts_name_is_refused(content):
    import_content(content)
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    make_ordering_attempt(make_user(), exercise)  # names every line of the solution by key
    before = rows()
    edit(
        content / SEED,
        "      - key: return\n        text: '    return bits * capacity / 1000  # GB'\n",
        "",
    )

    message = refusal(content)

    assert (
        "line 'return' of exercise 'kv-cache-vram-order' is gone from the file, but 1 learner's "
        "work (ordering attempts) points at it: put it back with the same key"
    ) in message
    assert rows() == before


def test_renaming_a_line_key_that_attempts_name_is_refused(content):
    import_content(content)
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    make_ordering_attempt(make_user(), exercise, order=["def", "return"])
    edit(content / SEED, "      - key: return\n", "      - key: give-back\n")

    assert "line 'return' of exercise 'kv-cache-vram-order' is gone" in refusal(content)
    assert exercise.lines.filter(key="return").exists()


def test_a_line_only_in_learners_arrangements_may_go_and_their_arrangements_follow(content):
    import_content(content)
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    learner = make_user()
    arrange_lines(user=learner, exercise=exercise, order=["return", "def"], unused=["wrong-return"])
    edit(
        content / SEED,
        "      - key: wrong-return\n        text: '    return bits / capacity  # GB'\n",
        "",
    )

    import_content(content)

    assert not exercise.lines.filter(key="wrong-return").exists()
    # The arrangement is kept, and fits the lines the next time the learner moves one.
    arrangement = arrange_lines(user=learner, exercise=exercise, order=["def", "return"], unused=[])
    assert "wrong-return" not in arrangement.order + arrangement.unused


def test_removing_a_lesson_whose_exercise_learners_arranged_is_refused(content):
    """Arrangements went with the lesson by CASCADE; now they keep it."""
    import_content(content)
    exercise = OrderingExercise.objects.get(block__key="llama-server-command-order")
    arrange_lines(user=make_user(), exercise=exercise, order=["host", "model"], unused=[])
    before = rows()
    remove_lesson_file(content)

    message = refusal(content)

    assert (
        "ordering exercise 'llama-server-command-order' is gone from the file, but 1 learner's "
        "work (ordering arrangements) points at it"
    ) in message
    assert rows() == before


def test_removing_a_lesson_learners_made_progress_in_is_refused(content):
    import_content(content)
    lesson = Lesson.objects.get(slug="deploying-a-private-model-safely")
    make_lesson_progress(make_user(), lesson)
    make_lesson_progress(make_user(), lesson)
    remove_lesson_file(content)

    assert (
        "lesson 'deploying-a-private-model-safely' is gone from the files, but 2 learners' "
        "work (lesson progress) points at it: put the file back"
    ) in refusal(content)
    assert Lesson.objects.filter(pk=lesson.pk).exists()


def test_a_snippet_turned_into_prose_keeps_its_learners_work(content):
    import_content(content)
    make_prediction(make_user(), Snippet.objects.get(block__key="api-key-check"))
    edit(
        content / DEPLOYING,
        "  - kind: snippet\n    key: api-key-check\n",
        "  - kind: prose\n    key: api-key-check\n",
    )
    text = (content / DEPLOYING).read_text()
    start = text.index("    caption: Check an API key")
    (content / DEPLOYING).write_text(text[:start] + text[text.index("  - kind: snippet", start) :])

    assert (
        "snippet 'api-key-check' is now a prose block, but 1 learner's work (predictions) "
        "points at it"
    ) in refusal(content)


def test_content_without_learner_work_is_deleted_as_before(content):
    import_content(content)
    remove_lesson_file(content)
    assert "Deleted: 1 lesson" in import_content(content)


# --- What learner_work finds --------------------------------------------------------------


def test_learner_work_is_found_through_what_a_deletion_takes_with_it():
    lesson = make_lesson()
    snippet = make_snippet(lesson)
    exercise = make_exercise(lesson)
    learner, other = make_user(), make_user()
    make_prediction(learner, snippet)
    make_ordering_attempt(other, exercise)

    found = {str(work) for work in learner_work([lesson.course])}

    assert found == {
        f"snippet '{snippet.block.key}': 1 learner's work (predictions)",
        f"ordering exercise '{exercise.block.key}': 1 learner's work (ordering attempts)",
        *(f"ordering line 'l{n}': 1 learner's work (ordering attempts)" for n in range(1, 5)),
    }
    assert learner_work([make_lesson()]) == []


# --- The admin's Delete ------------------------------------------------------------------


@pytest.fixture
def admin_client(client):
    client.force_login(make_admin())
    return client


@pytest.fixture
def seed_with_work(sample_content):
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    for learner in (make_user(), make_user(), make_user()):
        make_prediction(learner, snippet)
    return snippet


@pytest.mark.parametrize(
    "model, find",
    [
        ("snippet", lambda snippet: snippet),
        ("lesson", lambda snippet: snippet.block.lesson),
        ("course", lambda snippet: snippet.block.lesson.course),
    ],
)
def test_the_admins_delete_page_names_the_work_and_refuses(
    admin_client, seed_with_work, model, find
):
    target = find(seed_with_work)
    url = reverse(f"admin:course_{model}_delete", args=[target.pk])
    before = rows()

    page = admin_client.get(url).content.decode()
    confirmed = admin_client.post(url, {"post": "yes"})

    assert "cannot be deleted: deleting it would lose what learners did" in page
    assert (
        "snippet &#x27;kv-cache-vram&#x27;: 3 learners&#x27; work (predictions) points at it."
        in page
    )
    assert "Yes, I’m sure" not in page
    assert confirmed.status_code == 200
    assert rows() == before


def test_the_admins_delete_action_refuses_too(admin_client, seed_with_work):
    lessons = list(Lesson.objects.values_list("pk", flat=True))
    response = admin_client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "delete_selected", "_selected_action": lessons, "post": "yes"},
    )
    html = response.content.decode()
    assert "The selected lessons cannot be deleted" in html
    assert "3 learners&#x27; work (predictions)" in html
    assert Lesson.objects.count() == len(lessons)


def test_the_admin_still_deletes_content_nobody_worked_on(admin_client, sample_content):
    lesson = Lesson.objects.get(slug="deploying-a-private-model-safely")
    url = reverse("admin:course_lesson_delete", args=[lesson.pk])
    assert "Yes, I’m sure" in admin_client.get(url).content.decode()
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Lesson.objects.filter(pk=lesson.pk).exists()


# --- The inlines' delete boxes ------------------------------------------------------------


def inline_index(form, prefix: str, field: str, value: str) -> int:
    return next(n for n in range(50) if form[f"{prefix}-{n}-{field}"].value == value)


def test_deleting_a_block_in_the_lesson_form_is_refused(django_app, seed_with_work):
    admin = make_admin()
    lesson = seed_with_work.block.lesson
    form = django_app.get(
        reverse("admin:course_lesson_change", args=[lesson.pk]), user=admin
    ).forms["lesson_form"]
    form[f"blocks-{inline_index(form, 'blocks', 'key', 'kv-cache-vram')}-DELETE"] = True
    before = rows()

    page = form.submit("_save", user=admin)

    assert page.status_code == 200
    assert (
        "snippet &#x27;kv-cache-vram&#x27;: 3 learners&#x27; work (predictions) points at it, so "
        "it cannot be deleted: untick its Delete box"
    ) in page.text
    assert rows() == before


def test_deleting_a_lesson_in_the_course_form_is_refused(django_app, seed_with_work):
    admin = make_admin()
    course = seed_with_work.block.lesson.course
    form = django_app.get(
        reverse("admin:course_course_change", args=[course.pk]), user=admin
    ).forms["course_form"]
    form[
        f"lessons-{inline_index(form, 'lessons', 'slug', 'optimising-speed-and-memory')}-DELETE"
    ] = True

    page = form.submit("_save", user=admin)

    assert "3 learners&#x27; work (predictions) points at it, so it cannot be deleted" in page.text
    assert Lesson.objects.filter(slug="optimising-speed-and-memory").exists()


@pytest.fixture
def exercise_form(django_app, sample_content):
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    make_ordering_attempt(make_user(), exercise, order=["def", "return"])
    admin = make_admin()
    url = reverse("admin:course_orderingexercise_change", args=[exercise.pk])
    return django_app.get(url, user=admin).forms["orderingexercise_form"], admin


def test_deleting_a_line_learners_attempts_name_is_refused(exercise_form):
    form, admin = exercise_form
    form[f"lines-{inline_index(form, 'lines', 'key', 'return')}-DELETE"] = True

    page = form.submit("_save", user=admin)

    assert (
        "ordering line &#x27;return&#x27;: 1 learner&#x27;s work (ordering attempts) points at it"
    ) in page.text
    assert OrderingLine.objects.filter(key="return").exists()


def test_renaming_a_line_learners_attempts_name_is_refused(exercise_form):
    form, admin = exercise_form
    form[f"lines-{inline_index(form, 'lines', 'key', 'return')}-key"] = "give-back"

    page = form.submit("_save", user=admin)

    assert "names this line by its key &#x27;return&#x27;: keep the key" in page.text
    assert OrderingLine.objects.filter(key="return").exists()


def test_a_line_no_attempt_names_may_be_deleted_in_the_form(exercise_form):
    form, admin = exercise_form
    form[f"lines-{inline_index(form, 'lines', 'key', 'wrong-verdict')}-DELETE"] = True

    assert form.submit("_save", user=admin).status_code == 302
    assert not OrderingLine.objects.filter(key="wrong-verdict").exists()


def test_no_learner_row_goes_with_content_by_cascade():
    """Every link from learners' rows to content protects it, or (a run, which keeps its
    code and output) lets go of it: deleting content never deletes learner rows."""
    from django.apps import apps
    from django.db import models

    links = [
        (model.__name__, field.name, field.remote_field.on_delete)
        for model in apps.get_app_config("tutor").get_models()
        for field in model._meta.get_fields()
        if field.many_to_one
        and field.concrete
        and field.related_model._meta.app_label == "course"
        # An admin's check of an exercise is nobody's work: it goes with the exercise. The
        # live view's rows are not work either: a learner's activity in a lesson is
        # worked out from their actions (whose rows protect the content), and a raised
        # hand asks for help in a lesson that would be gone. A teacher's comment on a group
        # of wrong answers is about learners' answers, which protect the item themselves. A
        # question's computed variant is nobody's work either (answers keep their variant).
        and model.__name__
        not in {"ExerciseCheck", "LessonActivity", "RaisedHand", "ClusterComment", "QuestionVariant"}
    ]
    assert links, "tutor's rows point at content"
    for model, name, on_delete in links:
        assert on_delete in (models.PROTECT, models.SET_NULL), f"{model}.{name}"
    assert [(m, n) for m, n, on_delete in links if on_delete is models.SET_NULL] == [
        ("Run", "snippet")
    ]


def test_removing_a_code_exercise_learners_submitted_to_is_refused(content):
    from course.kinds.code_exercise import CodeExercise
    from tutor.practice.code_exercise.models import ExerciseDraft, Submission

    import_content(content)
    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    learner = make_user()
    Submission.objects.create(user=learner, exercise=exercise, code="print(1)\n")
    ExerciseDraft.objects.create(user=learner, exercise=exercise, code="print(2)\n")
    cut_block(content / SEED, "  - kind: code_exercise\n", "  - kind: data_flow")

    message = refusal(content)

    assert (
        f"{content / SEED}: exercise 'write-kv-cache-vram' is gone from the file, but 1 "
        "learner's work"
    ) in message
    assert Submission.objects.count() == 1
    assert CodeExercise.objects.filter(block__key="write-kv-cache-vram").exists()
