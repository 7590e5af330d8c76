"""The lesson's admin page "Import questions": check a bank (nothing added), import it (the
questions after the lesson's blocks, as the lesson's page would accept them), refused for
hostile XML and for staff who may not change the lesson."""

from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from course import kinds
from course.content_files.reader import check_block
from course.models import Block
from tests.course.test_question_banks import BILLION_LAUGHS
from tests.factories import make_admin, make_block, make_lesson, make_user

pytestmark = pytest.mark.django_db
BANKS = Path(__file__).parent / "banks"


def page(lesson) -> str:
    return reverse("admin:course_lesson_import_questions", args=[lesson.pk])


def upload(name: str, data: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data if data is not None else (BANKS / name).read_bytes())


def test_the_lessons_admin_page_links_to_the_import_page(client):
    lesson = make_lesson()
    client.force_login(make_admin())
    response = client.get(reverse("admin:course_lesson_change", args=[lesson.pk]))
    assert page(lesson) in response.content.decode()
    form = client.get(page(lesson))
    assert form.status_code == 200
    assert b'enctype="multipart/form-data"' in form.content
    # The admin's own breadcrumbs (an <ol> its stylesheet styles), ending at this page.
    assert '<ol class="breadcrumbs">' in form.text
    assert f'{lesson.title}</a></li>' in form.text and '<li aria-current="page">Import questions</li>' in form.text


def test_check_shows_what_would_be_brought_over_and_adds_nothing(client):
    lesson = make_lesson()
    client.force_login(make_admin())
    response = client.post(page(lesson), {"bank": upload("bank.xml"), "_check": "Check"})
    text = response.content.decode()
    assert response.status_code == 200
    assert "6 questions would be brought over" in text
    assert "7 not brought over" in text
    assert "Parsnip has no matching questions yet" in text
    assert "the weight 50% of &#x27;Ollama&#x27; is not kept" in text
    assert not Block.objects.filter(lesson=lesson).exists()


def test_import_adds_the_questions_after_the_lessons_blocks(client):
    lesson = make_lesson()
    make_block(lesson, "prose", key="intro", body="Read first.", position=5)
    client.force_login(make_admin())
    response = client.post(page(lesson), {"bank": upload("bank.gift"), "_import": "Import"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:course_lesson_change", args=[lesson.pk])
    said = [str(message) for message in response.context["messages"]]
    assert said[0] == "Added 12 questions after the lesson's blocks."
    assert "  'Essay' (essay): Parsnip has no essay questions: learners' free text is not graded" in said
    blocks = list(Block.objects.filter(lesson=lesson).order_by("position"))
    assert [block.key for block in blocks[:3]] == ["intro", "backend-on-a-cpu", "which-fit"]
    assert len(blocks) == 13
    for block in blocks[1:]:
        kind = kinds.get(block.kind)
        assert check_block(kind, kind.values_of(block), glossary=()) == {}
    again = client.post(page(lesson), {"bank": upload("bank.gift"), "_import": "Import"})
    assert again.status_code == 302
    keys = list(Block.objects.filter(lesson=lesson).values_list("key", flat=True))
    assert len(keys) == len(set(keys)) == 25


def test_hostile_xml_is_refused_on_the_form_and_adds_nothing(client):
    lesson = make_lesson()
    client.force_login(make_admin())
    response = client.post(page(lesson), {"bank": upload("bomb.xml", BILLION_LAUGHS), "_import": "Import"})
    assert response.status_code == 200
    assert "declares a document type or entities" in response.content.decode()
    assert not Block.objects.filter(lesson=lesson).exists()


def test_a_file_of_no_known_format_is_refused_on_the_form(client):
    lesson = make_lesson()
    client.force_login(make_admin())
    response = client.post(page(lesson), {"bank": upload("bank.doc", b"x"), "_import": "Import"})
    assert response.status_code == 200
    assert "its name ends in neither .xml nor .gift" in response.content.decode()


def test_staff_who_may_only_view_lessons_are_refused(client):
    lesson = make_lesson()
    viewer = make_user(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_lesson"))
    client.force_login(viewer)
    assert client.get(page(lesson)).status_code == 403
    response = client.post(page(lesson), {"bank": upload("bank.gift"), "_import": "Import"})
    assert response.status_code == 403
    assert not Block.objects.filter(lesson=lesson).exists()


def test_learners_are_sent_to_the_admins_login(client):
    lesson = make_lesson()
    client.force_login(make_user())
    response = client.get(page(lesson))
    assert response.status_code == 302 and "/login/" in response["Location"]
