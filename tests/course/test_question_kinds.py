"""The question kinds' content: the documented example reads, any question round-trips
through the files (Hypothesis, question kinds only, so each is drawn often), and the files
refuse what a question cannot be, naming the line and the fix."""

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from course import kinds
from course.content_files.errors import ContentErrors
from course.content_files.exporter import export_content
from course.content_files.importer import import_content
from course.content_files.reader import read_content
from course.models import Block
from tests.course.test_content_round_trip import (
    block_strategy,
    course_values,
    database,
    files,
    lesson_values,
    term_values,
    wipe,
    write_folder,
)
from tests.course.test_every_kind import write_content

pytestmark = pytest.mark.django_db

QUESTIONS = ["choice", "checkboxes", "number", "blanks", "code_blanks"]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "content-format.md"


def documented_questions() -> list[dict]:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### Questions") : text.index("## glossary.yaml")]
    examples = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    return [block for example in examples for block in YAML(typ="safe").load(example)]


def test_the_documented_questions_read_and_import(tmp_path):
    blocks = documented_questions()
    assert sorted({block["kind"] for block in blocks}) == sorted(QUESTIONS)
    assert any(block.get("program") for block in blocks)  # a number computed per variant
    root = tmp_path / "content"
    write_content(root, "prose", {})
    lesson = root / "course-one" / "lesson-one.yaml"
    yaml = YAML()
    document = yaml.load(lesson.read_text())
    document["blocks"] = blocks
    with open(lesson, "w") as out:
        yaml.dump(document, out)
    import_content(read_content(root))
    assert sorted(set(Block.objects.values_list("kind", flat=True))) == sorted(QUESTIONS)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    course=course_values,
    lesson=lesson_values,
    blocks=st.lists(st.one_of([block_strategy(kinds.get(name)) for name in QUESTIONS]), min_size=1, max_size=4),
    terms=st.lists(term_values, min_size=1, max_size=2),
)
def test_any_question_survives_import_export_import(tmp_path_factory, course, lesson, blocks, terms):
    wipe()
    first = tmp_path_factory.mktemp("written")
    write_folder(first, course, lesson, blocks, terms)
    import_content(read_content(first))
    imported = database()
    assert [(name, values) for _, name, values in imported["lessons"]["lesson-a"]["blocks"]] == blocks
    exported = tmp_path_factory.mktemp("exported")
    export_content(exported)
    assert files(exported) == files(first)
    wipe()
    import_content(read_content(exported))
    assert database() == imported


@pytest.mark.parametrize(
    ("kind", "values", "message"),
    [
        ("choice", {"options": [{"key": "a", "text": "A", "right": True}]}, "at least two options"),
        ("choice", {"options": [{"key": "a", "text": "A"}, {"key": "b", "text": "B"}]},
         "no option is right: mark one with 'right: true'"),
        ("choice", {"tries": 0}, "'tries' must be at least 1"),
        ("number", {"answer": None}, "a number question needs 'answer', or a 'program' that prints it"),
        ("number", {"relative_tolerance": "5%"}, "'relative_tolerance' must be a number, not text; write it without quotes"),
        ("blanks", {"blanks": [{"key": "params", "answers": []}]},
         "blank 'params' needs 'answers', or the question a 'program' that prints them"),
        ("blanks", {"blanks": [{"key": "params", "answers": ["7"]}, {"key": "other", "answers": ["x"]}]},
         "blank 'other' is not in the text: add {{other}} there"),
        ("blanks", {"text": "No blank here."}, "the text has no blank: mark one as {{name}}"),
        ("choice", {"topics": ["memory", "Memory"]}, "topic 'Memory' is listed twice"),
        ("number", {"topics": [3]}, "each topic must be text, e.g. memory, not a number"),
        ("blanks", {"topics": ["a", "b", "c", "d", "e", "f"]}, "a question has at most 5 topics, not 6"),
        ("checkboxes", {"topics": ["x" * 41]}, "is 41 characters long; at most 40"),
        ("code_blanks", {"tests": [{"key": "t", "name": "twice", "check": "assert True"}]},
         "give 'expected_output' or 'tests', not both"),
        ("code_blanks", {"expected_output": ""}, "the question needs 'expected_output'"),
        ("code_blanks", {"expected_output": "", "tests": [{"key": "t", "name": "n", "check": "assert True", "stdout": "1"}]},
         "test 't' must be either a check"),
        ("code_blanks", {"expected_output": "", "tests": [{"key": "t", "name": "n", "check": "assert True"},
                                                           {"key": "t", "name": "m", "check": "assert True"}]},
         "test key 't' is already used"),
    ],
)
def test_the_files_refuse_a_wrong_question_on_its_line(tmp_path, kind, values, message):
    example = {**kinds.get(kind).example, **values}
    with pytest.raises(ContentErrors) as refused:
        read_content(write_content(tmp_path / "content", kind, example))
    found = [error for error in refused.value.errors if message in error.message]
    assert found, refused.value.errors
    assert found[0].line is not None and "lesson-one.yaml" in str(found[0].path)


SAMPLE = Path(__file__).resolve().parents[2] / "content" / "local-models"
LESSONS_WITH_QUESTIONS = sorted(
    path.stem
    for path in SAMPLE.glob("*.yaml")
    if re.search(r"^  - kind: (choice|checkboxes|number|blanks)$", path.read_text(), re.MULTILINE)
)


def test_the_sample_course_has_a_quiz_in_every_lesson_but_the_seed():
    lessons = sorted(path.stem for path in SAMPLE.glob("*.yaml") if "." not in path.stem and path.stem != "course")
    assert LESSONS_WITH_QUESTIONS == [lesson for lesson in lessons if lesson != "optimising-speed-and-memory"]


@pytest.mark.parametrize("lesson", LESSONS_WITH_QUESTIONS)
def test_a_lesson_with_questions_saved_unchanged_in_the_admin_keeps_them(django_app, sample_content, lesson):
    from course.models import Lesson
    from tests.course.test_admin_saves import change_url, submit_as_shown
    from tests.factories import make_admin

    questions = Block.objects.filter(lesson__slug=lesson, kind__in=QUESTIONS).order_by("pk")
    before = [(block.kind, block.kind_spec.values_of(block)) for block in questions]
    assert len(before) >= 3

    submit_as_shown(django_app, change_url("lesson", Lesson.objects.get(slug=lesson).pk), make_admin())

    assert [(block.kind, block.kind_spec.values_of(block)) for block in questions.all()] == before


def test_removing_a_question_learners_answered_is_refused_naming_their_work(tmp_path):
    import shutil
    from io import StringIO

    from django.conf import settings
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from tests.factories import make_user
    from tutor.practice.questions.actions import answer_question

    content = Path(shutil.copytree(Path(settings.BASE_DIR) / "content", tmp_path / "content"))
    call_command("import_content", str(content), stdout=StringIO())
    block = Block.objects.get(key="why-compare-digest")
    answer_question(user=make_user(), block=block, answer=["faster"])
    lesson = content / "local-models/deploying-a-private-model-safely.yaml"
    text = lesson.read_text()
    start = text.index("  - kind: choice\n    key: why-compare-digest\n")
    lesson.write_text(text[:start] + text[text.index("  - kind: blanks\n    key: server-command"):])

    with pytest.raises(CommandError) as refused:
        call_command("import_content", str(content), stdout=StringIO())

    assert "question 'why-compare-digest' is gone from the file, but 1 learner's work" in str(refused.value)
    assert Block.objects.filter(key="why-compare-digest").exists()


def test_the_admin_edits_a_questions_topics_one_a_line_and_refuses_a_name_twice(django_app):
    from tests.course.test_admin_saves import change_url
    from tests.factories import make_admin, make_lesson
    from tests.tutor.question_world import make_question

    lesson = make_lesson()
    question = make_question("choice", lesson, key="q", topics=["memory"])
    admin = make_admin()

    def save(topics: str):
        page = django_app.get(change_url("lesson", lesson.pk), user=admin)
        form = next(form for form in page.forms.values() if "_save" in form.fields)
        assert form["blocks-0-topics"].value.strip() == "\n".join(question.kind_spec.values_of(question)["topics"])
        form["blocks-0-topics"] = topics
        return form.submit("_save", user=admin)

    assert save("memory\r\nKV   cache\r\n").status_code == 302
    question.refresh_from_db()
    assert question.values["topics"] == ["memory", "KV cache"]
    refused = save("speed\r\nSpeed")
    assert refused.status_code == 200 and "topic &#x27;Speed&#x27; is listed twice" in refused.text
    question.refresh_from_db()
    assert question.values["topics"] == ["memory", "KV cache"]
