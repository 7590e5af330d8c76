"""Drafts: a lesson or course being written is seen by staff (marked as a draft), never by
learners, wherever lessons are listed, linked or practised."""

import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from course.models import Course, Lesson, Status
from tests.factories import (
    make_admin,
    make_cohort,
    make_course,
    make_exercise,
    make_lesson,
    make_lesson_progress,
    make_snippet,
    make_teacher,
    make_term,
    make_user,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def course():
    """A published course: a published lesson, a draft between it and another published one."""
    course = make_course(title="Widgets", slug="widgets")
    first = make_lesson(course, title="Widgets one", slug="one", position=1)
    draft = make_lesson(
        course, title="Half-built widgets", slug="half", position=2, status=Status.DRAFT
    )
    last = make_lesson(course, title="Widgets three", slug="three", position=3)
    term = make_term("Sprocket", slug="sprocket")
    for lesson in (first, draft, last):
        lesson.terms.add(term)
        make_snippet(lesson)
        make_exercise(lesson)
    return {"course": course, "first": first, "draft": draft, "last": last}


LEARNERS = ["anonymous", "student", "teacher"]


@pytest.fixture(params=LEARNERS)
def learner(request, client):
    if request.param != "anonymous":
        user = make_teacher() if request.param == "teacher" else make_user()
        client.force_login(user)
    return client


def pages(course) -> dict[str, str]:
    return {
        "catalogue": reverse("tutor:catalogue"),
        "course": course["course"].get_absolute_url(),
        "first lesson": course["first"].get_absolute_url(),
        "last lesson": course["last"].get_absolute_url(),
        "search": reverse("course:search") + "?q=widgets",
        "term": reverse("course:term_detail", args=["sprocket"]),
    }


def test_qualifying_published_lessons_and_courses():
    course = make_course()
    published = make_lesson(course)
    make_lesson(course, status=Status.DRAFT)
    in_draft_course = make_lesson(make_course(status=Status.DRAFT))
    assert list(Lesson.objects.published()) == [published]
    assert in_draft_course not in Lesson.objects.published()
    assert list(Course.objects.published()) == [course]
    assert set(Lesson.objects.visible_to(make_admin())) == set(Lesson.objects.all())


def test_a_draft_lesson_is_not_found_by_learners(learner, course):
    assert learner.get(course["draft"].get_absolute_url()).status_code == 404


def test_a_draft_lesson_is_never_listed_or_linked_for_learners(learner, course):
    for name, url in pages(course).items():
        response = learner.get(url)
        assert response.status_code == 200, name
        assert "Half-built widgets" not in response.text, name
        assert "/widgets/half/" not in response.text, name
    # Previous and next skip it.
    first = learner.get(course["first"].get_absolute_url()).text
    assert 'rel="next" href="/learn/widgets/three/"' in first


def test_learners_cannot_practise_a_draft(client, course):
    client.force_login(make_user())
    snippet = course["draft"].blocks.get(kind="snippet").snippet
    exercise = course["draft"].blocks.get(kind="ordering").ordering_exercise
    assert (
        client.post(
            reverse("tutor:prediction_create", args=[snippet.pk]), {"text": "x"}
        ).status_code
        == 404
    )
    assert client.post(reverse("tutor:ordering_check", args=[exercise.pk])).status_code == 404


@pytest.mark.parametrize("made_a_draft", ["lesson", "course"])
def test_a_lesson_made_a_draft_is_not_found_even_once_its_page_is_cached(
    client, course, made_a_draft, django_assert_num_queries
):
    """Readers who are not logged in get the whole page from the cache, before the lesson
    is looked up; a change of status moves the content version on, so it is looked up again."""
    url = course["first"].get_absolute_url()
    assert client.get(url).status_code == 200
    with django_assert_num_queries(1):
        assert client.get(url).status_code == 200  # from the cache
    row = course["first"] if made_a_draft == "lesson" else course["course"]
    row.status = Status.DRAFT
    row.save()  # as the admin does
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("first_reader", ["staff", "learner"])
def test_previous_and_next_from_the_cache_are_each_readers_own(course, first_reader):
    """The pager is cached with the content, apart for staff (who see drafts in it)."""
    staff, learner = Client(), Client()
    staff.force_login(make_admin())
    learner.force_login(make_user())
    url = course["first"].get_absolute_url()
    {"staff": staff, "learner": learner}[first_reader].get(url)  # renders the pager into the cache
    assert 'rel="next" href="/learn/widgets/half/"' in staff.get(url).text
    assert 'rel="next" href="/learn/widgets/three/"' in learner.get(url).text
    assert 'rel="next" href="/learn/widgets/three/"' in Client().get(url).text


def test_a_draft_course_and_its_lessons_are_not_found_by_learners(learner, course):
    Course.objects.filter(pk=course["course"].pk).update(status=Status.DRAFT)
    assert learner.get(course["course"].get_absolute_url()).status_code == 404
    assert learner.get(course["first"].get_absolute_url()).status_code == 404
    assert "Widgets one" not in learner.get(reverse("tutor:catalogue")).text


def test_staff_see_drafts_marked_as_drafts(client, course):
    client.force_login(make_admin())
    html = client.get(course["draft"].get_absolute_url()).text
    assert (
        '<p class="draft-banner" role="note"><strong>Draft.</strong> Only staff see this lesson;'
        in html
    )
    assert "Draft.</strong>" not in client.get(course["first"].get_absolute_url()).text
    catalogue = client.get(reverse("tutor:catalogue")).text
    assert "Half-built widgets" in catalogue
    assert '<span class="draft-badge">Draft</span>' in catalogue
    Course.objects.filter(pk=course["course"].pk).update(status=Status.DRAFT)
    assert "Only staff see this course" in client.get(course["course"].get_absolute_url()).text
    assert "(its course is a draft)" in client.get(course["first"].get_absolute_url()).text


def test_my_progress_and_teachers_pages_leave_drafts_out(client, course):
    student = make_user()
    for lesson in (course["first"], course["draft"]):
        make_lesson_progress(student, lesson)
    client.force_login(student)
    assert "Half-built widgets" not in client.get(reverse("tutor:my_progress")).text

    teacher = make_teacher()
    cohort = make_cohort(teacher, students=[student])
    client.force_login(teacher)
    for url in (
        reverse("tutor:class_detail", args=[cohort.pk]),
        reverse("tutor:class_student", args=[cohort.pk, student.pk]),
    ):
        html = client.get(url).text
        assert "Widgets one" in html
        assert "Half-built widgets" not in html
    assert (
        client.get(reverse("tutor:class_lesson", args=[cohort.pk, course["draft"].pk])).status_code
        == 404
    )
    csv = b"".join(client.get(reverse("tutor:class_csv", args=[cohort.pk])).streaming_content)
    assert b"Half-built widgets" not in csv


def test_status_in_the_content_files(tmp_path):
    content = Path(shutil.copytree(Path(settings.BASE_DIR) / "content", tmp_path / "content"))
    call_command("import_content", str(content), verbosity=0)
    # The sample content is published.
    assert not Lesson.objects.exclude(status=Status.PUBLISHED).exists()
    assert not Course.objects.exclude(status=Status.PUBLISHED).exists()

    lesson_file = content / "local-models" / "deploying-a-private-model-safely.yaml"
    text = lesson_file.read_text()
    lesson_file.write_text(
        text.replace(
            "title: Deploying a private model safely\n",
            "title: Deploying a private model safely\nstatus: draft\n",
            1,
        )
    )
    call_command("import_content", str(content), verbosity=0)
    assert Lesson.objects.get(slug="deploying-a-private-model-safely").status == Status.DRAFT

    call_command("export_content", str(tmp_path / "out"), verbosity=0)
    exported = (
        tmp_path / "out" / "local-models" / "deploying-a-private-model-safely.yaml"
    ).read_text()
    assert exported.startswith("title: Deploying a private model safely\nstatus: draft\n")
    published = (tmp_path / "out" / "local-models" / "optimising-speed-and-memory.yaml").read_text()
    assert "status:" not in published  # the default is not written


def test_a_misspelt_status_is_refused_with_a_suggestion(tmp_path):
    content = Path(shutil.copytree(Path(settings.BASE_DIR) / "content", tmp_path / "content"))
    course_file = content / "local-models" / "course.yaml"
    course_file.write_text(
        course_file.read_text().replace("order: 1\n", "order: 1\nstatus: drafts\n")
    )
    with pytest.raises(
        CommandError, match=r"course.yaml:5: unknown status 'drafts' \(did you mean 'draft'\?\)"
    ):
        call_command("import_content", str(content), verbosity=0)
    assert not Course.objects.exists()


def test_admins_publish_from_the_lesson_list(client, course):
    client.force_login(make_admin())
    changelist = client.get(reverse("admin:course_lesson_changelist"), {"status__exact": "draft"})
    assert "Half-built widgets" in changelist.text
    assert "Widgets one" not in changelist.text
