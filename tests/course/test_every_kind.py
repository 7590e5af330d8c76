"""Every registered kind, with the examples it declares (BlockKind.example, .wrong): the
content files read its right example and refuse each wrong one, and the admin refuses each
wrong one with the same words — what the files refuse, the admin refuses."""

import copy
import html
from pathlib import Path

import pytest
from django.urls import reverse
from ruamel.yaml import YAML

from course import kinds
from course.content_files.errors import ContentErrors
from course.content_files.importer import import_content
from course.content_files.reader import check_block, read_content
from course.kinds.fields import Items
from course.models import Block, Lesson
from tests.course.test_admin_lesson_page import block_errors, errors_on
from tests.factories import make_admin

pytestmark = pytest.mark.django_db

kinds.discover()
EVERY_KIND = sorted(kinds.names())
WRONG = [
    pytest.param(kind.name, n, id=f"{kind.name}-{n}")
    for kind in kinds.every()
    for n in range(len(kind.wrong))
]


def typed_in(kind, n: int) -> bool:
    """Whether a person can type each value a wrong example changes into the block's own
    fields on the admin page: a checkbox cannot hold 'yes' (that one is refused when it
    is stored, in the test above), nor can a snippet's fields, which are rows of its own."""
    changes, _ = kind.wrong[n]
    for name, value in changes.items():
        if name not in {"title", "body"} | {field.name for field in kind.row_fields}:
            return False
        field = kind.field(name).form_field(value)
        sent = {"box": str(field.prepare_value(value))}
        if field.clean(field.widget.value_from_datadict(sent, {}, "box")) != value:
            return False
    return True


TYPED = [
    pytest.param(kind.name, n, id=f"{kind.name}-{n}")
    for kind in kinds.every()
    for n in range(len(kind.wrong))
    if typed_in(kind, n)
]


def write_content(root: Path, kind: str, values: dict) -> Path:
    yaml = YAML()
    root.mkdir()
    (root / "glossary.yaml").write_text("terms: []\n")
    (root / "course-one").mkdir()
    with open(root / "course-one" / "course.yaml", "w") as out:
        yaml.dump({"title": "One", "lessons": ["lesson-one"]}, out)
    with open(root / "course-one" / "lesson-one.yaml", "w") as out:
        yaml.dump(
            {"title": "Lesson", "blocks": [{"kind": kind, "key": "the-block", **values}]}, out
        )
    return root


def changed(kind, n: int) -> tuple[dict, str]:
    changes, message = kind.wrong[n]
    return {**copy.deepcopy(kind.example), **copy.deepcopy(changes)}, message


def test_every_kind_declares_a_right_example_and_a_wrong_one_of_its_own_or_is_plain():
    for kind in kinds.every():
        own = {field.name for field in kind.fields} - {"title", "body"}
        assert kind.example, f"{kind.name} declares no example"
        assert kind.wrong_examples or not own, (
            f"{kind.name} has fields of its own but no wrong example"
        )


@pytest.mark.parametrize("name", EVERY_KIND)
def test_the_files_read_and_import_each_kinds_right_example(tmp_path, name):
    kind = kinds.get(name)
    import_content(read_content(write_content(tmp_path / "content", name, kind.example)))
    block = Block.objects.get(key="the-block")
    values = kind.values_of(block)
    for field, value in kind.example.items():
        assert values[field] == value or [dict(item) for item in values[field]] == [
            {**{f.name: f.default for f in kind.field(field).fields}, **item} for item in value
        ]


@pytest.mark.parametrize(("name", "n"), WRONG)
def test_what_the_files_refuse_the_admin_refuses_with_the_same_words(tmp_path, django_app, name, n):
    kind = kinds.get(name)
    wrong, message = changed(kind, n)
    with pytest.raises(ContentErrors) as refused:
        read_content(write_content(tmp_path / "wrong", name, wrong))
    assert any(message in error.message for error in refused.value.errors), refused.value.errors

    # The same block, put in the database past the files' checks (as a content file read
    # before a rule existed would be), then saved unchanged from the lesson's admin page.
    content = read_content(write_content(tmp_path / "right", name, kind.example))
    block_data = content.courses[0].lessons[0].blocks[0]
    for field, value in wrong.items():
        # A kind's own rows need every field of an item; Block.items keeps what it is given.
        block_data.values[field] = (
            value
            if not kind.content_models or not isinstance(value, list) or not isinstance(kind.field(field), Items)
            else [
                {**{f.name: f.default for f in kind.field(field).fields}, **item} for item in value
            ]
        )
    import_content(content)
    lesson = Lesson.objects.get(slug="lesson-one")
    stored = kind.values_of(Block.objects.get(key="the-block"))
    admin = make_admin()
    url = reverse("admin:course_lesson_change", args=[lesson.pk])

    page = django_app.get(url, user=admin).forms["lesson_form"].submit("_save", user=admin)

    assert page.status_code == 200
    assert html.escape(message) in page.text
    assert kind.values_of(Block.objects.get(key="the-block")) == stored


@pytest.mark.parametrize(("name", "n"), TYPED)
def test_what_the_files_refuse_typed_into_a_blocks_fields_the_admin_refuses_on_that_field(
    tmp_path, django_app, name, n
):
    kind = kinds.get(name)
    changes, message = kind.wrong[n]
    wrong, _ = changed(kind, n)
    import_content(read_content(write_content(tmp_path / "right", name, kind.example)))
    stored = kind.values_of(Block.objects.get(key="the-block"))
    admin = make_admin()
    url = reverse("admin:course_lesson_change", args=[Lesson.objects.get(slug="lesson-one").pk])
    form = django_app.get(url, user=admin).forms["lesson_form"]
    for field, value in changes.items():
        box = form[f"blocks-0-{field}"]
        if isinstance(value, bool):
            box.checked = value
        else:
            box.force_value(str(kind.field(field).form_field(value).prepare_value(value)))

    page = form.submit("_save", user=admin)

    assert page.status_code == 200
    # Where the files' check puts it: on the field it names, or on the block as a whole.
    [place] = [
        field
        for field, messages in check_block(kind, wrong, set()).items()
        if any(message in said for said in messages)
    ]
    assert message in (errors_on(page, 0, place) if place else block_errors(page, 0))
    assert kind.values_of(Block.objects.get(key="the-block")) == stored


def test_named_values_are_kept_on_the_block_and_written_back(tmp_path, quiz_kind):
    import_content(read_content(write_content(tmp_path / "content", "quiz", quiz_kind.example)))
    block = Block.objects.get(key="the-block")
    assert block.values == {
        "options": [{"text": "Yes", "right": True}, {"text": "No", "right": False}],
        "shuffle": True,
        "layout": "grid",
    }
    assert quiz_kind.values_of(block)["layout"] == "grid"


@pytest.mark.parametrize("n", range(3))
def test_a_kind_with_named_values_is_refused_by_the_admin_as_by_the_files(
    tmp_path, django_app, quiz_kind, n
):
    test_what_the_files_refuse_the_admin_refuses_with_the_same_words(
        tmp_path, django_app, "quiz", n
    )


@pytest.mark.parametrize("n", [0, 1])
def test_a_kind_with_named_values_is_refused_on_the_field_typed_in_as_by_the_files(
    tmp_path, django_app, quiz_kind, n
):
    assert typed_in(quiz_kind, n)
    test_what_the_files_refuse_typed_into_a_blocks_fields_the_admin_refuses_on_that_field(
        tmp_path, django_app, "quiz", n
    )
