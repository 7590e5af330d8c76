import pytest

from tests.factories import make_admin, make_cohort, make_teacher, make_user
from tutor.actions.classes import (
    JOIN_CODE_ALPHABET,
    JOIN_CODE_LENGTH,
    ClassRefused,
    create_class,
    join_class,
    leave_class,
    remove_student,
)
from tutor.models import Cohort, Membership

pytestmark = pytest.mark.django_db


def test_create_class_gives_an_unambiguous_code_of_its_own():
    teacher = make_teacher()
    codes = {create_class(teacher=teacher, name=f"Class {n}").join_code for n in range(50)}
    assert len(codes) == 50
    for code in codes:
        assert len(code) == JOIN_CODE_LENGTH
        assert set(code) <= set(JOIN_CODE_ALPHABET)
        assert not set(code) & set("0OQ1IL2Z5S8B")


def test_create_class_draws_again_when_a_code_is_taken(monkeypatch):
    taken = make_cohort(join_code="AAAAAAAA")
    draws = iter(["AAAAAAAA", "CCCCCCCC"])
    monkeypatch.setattr("tutor.actions.classes.new_join_code", lambda: next(draws))
    cohort = create_class(teacher=taken.teacher, name="Second")
    assert cohort.join_code == "CCCCCCCC"


def test_create_class_refuses_a_blank_name():
    with pytest.raises(ClassRefused, match="name"):
        create_class(teacher=make_teacher(), name="   ")
    assert not Cohort.objects.exists()


def test_join_class_accepts_the_code_as_typed_in_lower_case_with_spaces():
    cohort = make_cohort(join_code="ACDE3467")
    student = make_user()
    assert join_class(student=student, code=" acde-3467 ") == cohort
    assert list(cohort.students.all()) == [student]


def test_join_class_refuses_an_unknown_code_and_changes_nothing():
    make_cohort(join_code="ACDE3467")
    with pytest.raises(ClassRefused, match="No class has that code"):
        join_class(student=make_user(), code="XXXX9999")
    with pytest.raises(ClassRefused, match="No class has that code"):
        join_class(student=make_user(), code="")
    assert not Membership.objects.exists()


def test_join_class_twice_is_refused_and_keeps_one_membership():
    cohort = make_cohort()
    student = make_user()
    join_class(student=student, code=cohort.join_code)
    with pytest.raises(ClassRefused, match="already in"):
        join_class(student=student, code=cohort.join_code)
    assert Membership.objects.filter(cohort=cohort, student=student).count() == 1


def test_a_teacher_cannot_join_their_own_class():
    cohort = make_cohort()
    with pytest.raises(ClassRefused, match="You teach"):
        join_class(student=cohort.teacher, code=cohort.join_code)
    assert not Membership.objects.exists()


def test_remove_student_takes_only_that_student_out():
    stays, goes = make_user(), make_user()
    cohort = make_cohort(students=[stays, goes])
    remove_student(cohort=cohort, student=goes)
    assert list(cohort.students.all()) == [stays]


def test_removing_a_non_member_is_refused():
    cohort = make_cohort(students=[make_user()])
    outsider = make_user("outsider")
    with pytest.raises(ClassRefused, match="outsider is not in"):
        remove_student(cohort=cohort, student=outsider)
    assert cohort.memberships.count() == 1


def test_leave_class_and_leaving_twice():
    student = make_user()
    cohort = make_cohort(students=[student])
    other = make_cohort(students=[student])
    leave_class(cohort=cohort, student=student)
    assert list(Cohort.objects.joined_by(student)) == [other]
    with pytest.raises(ClassRefused, match="not in that class"):
        leave_class(cohort=cohort, student=student)


def test_visible_to_a_teacher_is_their_own_classes_and_to_an_admin_every_class():
    mine = make_cohort()
    theirs = make_cohort()
    assert list(Cohort.objects.visible_to(mine.teacher)) == [mine]
    assert set(Cohort.objects.visible_to(make_admin())) == {mine, theirs}
