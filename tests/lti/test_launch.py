"""Launching Parsnip from an LMS: the OIDC login, the launch, and what it makes in Parsnip."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from lti.models import ClassLink, LinkedResource
from tests.lti.fake_lms import INSTRUCTOR, LEARNER
from tutor.models import Membership
from tutor.roles import is_teacher

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_teacher_deep_links_a_lesson_and_the_lms_gets_a_link_with_a_column(
    lms, course_with_link, lesson
):
    link = lms.links[course_with_link]
    assert link["title"] == "Caches"
    column = lms.line_items[link["lineitem"]]
    assert column["scoreMaximum"] == 3  # the lesson's three snippets
    assert ClassLink.objects.get().cohort.teacher.first_name == "Tess"


def test_a_student_launch_signs_in_on_the_lesson_and_joins_the_class(
    lms, course_with_link, lesson, person
):
    response = person("s1").launch(course_with_link)
    assert response.status_code == 200
    assert response.url.endswith(lesson.get_absolute_url())
    assert "Caches" in response.text
    student = User.objects.get(lti_users__sub="s1")
    assert student.first_name == "Sam" and not student.has_usable_password()
    assert not is_teacher(student)
    assert Membership.objects.filter(
        student=student, cohort=ClassLink.objects.get().cohort
    ).exists()
    assert LinkedResource.objects.get().lesson == lesson


def test_the_teacher_launch_lands_on_their_class_view_of_the_lesson(
    lms, course_with_link, lesson, person
):
    response = person("t1").launch(course_with_link)
    cohort = ClassLink.objects.get().cohort
    assert response.status_code == 200
    assert response.url.endswith(f"/classes/{cohort.pk}/lessons/{lesson.pk}/")
    assert is_teacher(cohort.teacher)


def test_launching_twice_is_the_same_account(lms, course_with_link, person):
    person("s1").launch(course_with_link)
    person("s1").launch(course_with_link)
    assert User.objects.filter(lti_users__sub="s1").count() == 1


def test_after_a_launch_only_the_launching_lms_may_frame_parsnip(
    lms, course_with_link, lesson, person, client
):
    student = person("s1")
    page = student.launch(course_with_link)
    assert f"frame-ancestors 'self' {lms.base}" in page.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in page.headers
    # Everyone else's pages (here: a visitor who never came through an LMS) stay unframeable.
    other = client.get(lesson.get_absolute_url())
    assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"]
    assert other.headers["X-Frame-Options"] == "DENY"
    # The LMS made inactive by the admin: its launches' pages stop being frameable at once.
    from lti_tool.models import LtiRegistration

    LtiRegistration.objects.update(is_active=False)
    again = student.session.get(page.url, timeout=30)
    assert "frame-ancestors 'none'" in again.headers["Content-Security-Policy"]


def test_students_who_launch_before_any_teacher_join_the_class_when_it_is_made(
    lms, registered, lesson, person
):
    lms.contexts["c9"] = "Chemistry"
    lms.add_person("t9", "Tia Teacher", c9=INSTRUCTOR)
    lms.add_person("s9", "Stu Early", c9=LEARNER)
    lms.links["l9"] = {
        "context": "c9",
        "title": "Caches",
        "custom": {"parsnip_lesson": str(lesson.pk)},
        "lineitem": None,
    }
    early = person("s9").launch("l9")
    assert early.url.endswith(lesson.get_absolute_url())  # the lesson opens; there is no class yet
    assert not ClassLink.objects.exists()
    person("t9").launch("l9")
    cohort = ClassLink.objects.get().cohort
    assert cohort.name == "Chemistry"
    assert list(cohort.students.values_list("first_name", flat=True)) == ["Stu"]


def test_a_second_instructor_of_the_lms_course_teaches_its_class_too(
    lms, course_with_link, lesson, person
):
    lms.add_person("t2", "Theo Second", c1=INSTRUCTOR)
    lms.contexts["c2"] = "Biology"
    lms.add_person("t3", "Tara Elsewhere", c2=INSTRUCTOR)
    cohort = ClassLink.objects.get().cohort

    second = person("t2")
    landed = second.launch(course_with_link)
    assert landed.url.endswith(f"/classes/{cohort.pk}/lessons/{lesson.pk}/")  # their class's view
    cohort.refresh_from_db()
    assert cohort.teacher.first_name == "Tess"  # still the class's teacher
    assert list(cohort.co_teachers.values_list("first_name", flat=True)) == ["Theo"]

    def opens(who, name):
        return who.session.get(lms.base + reverse(name, args=[cohort.pk]), timeout=30)

    grid = opens(second, "tutor:class_detail")
    assert grid.status_code == 200 and "Physics 101" in grid.text
    assert opens(second, "lti:class_grades").status_code == 200
    # Launching again adds nothing more; the first teacher keeps the class.
    second.launch(course_with_link)
    assert cohort.co_teachers.count() == 1
    assert (
        opens(person_launched(person, "t1", course_with_link), "lti:class_grades").status_code
        == 200
    )

    # A learner of the same course, and an instructor of another LMS course, do not see it.
    learner = person_launched(person, "s1", course_with_link)
    assert opens(learner, "tutor:class_detail").status_code == 403
    assert opens(learner, "lti:class_grades").status_code == 403
    elsewhere = person("t3")
    assert "Add a Parsnip lesson" in elsewhere.open(lms.start_url("t3", deep_link_in="c2")).text
    assert opens(elsewhere, "tutor:class_detail").status_code == 404
    assert opens(elsewhere, "lti:class_grades").status_code == 404
    assert not cohort.co_teachers.filter(first_name="Tara").exists()


def person_launched(person, sub, link):
    someone = person(sub)
    someone.launch(link)
    return someone
