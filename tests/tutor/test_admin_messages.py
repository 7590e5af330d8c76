"""An admin change form saved as it was shown says nothing changed (issue 39: it said
"changed successfully"); a real change still says it was changed. The forms are sent back
as a browser would (WebTest), every field as shown."""

import pytest
from django.urls import reverse

from course.models import Lesson
from tests.factories import make_admin, make_user

pytestmark = pytest.mark.django_db


def saved(app, url: str, user, **changes):
    page = app.get(url, user=user)
    form = next(form for form in page.forms.values() if "_save" in form.fields)
    for name, value in changes.items():
        form[name] = value
    return form.submit("_save", user=user).follow(user=user).text


def test_the_lesson_admin_saved_unchanged_says_nothing_changed(django_app, sample_content):
    lesson = Lesson.objects.get(slug="optimising-speed-and-memory")
    url = reverse("admin:course_lesson_change", args=[lesson.pk])
    admin = make_admin()
    page = saved(django_app, url, admin)
    assert "Nothing changed: the lesson “" in page
    assert "was changed successfully" not in page
    page = saved(django_app, url, admin, title="Optimising speed, and memory")
    assert "was changed successfully" in page and "Nothing changed" not in page


def test_an_account_saved_unchanged_says_nothing_changed(django_app):
    student = make_user("ann")
    url = reverse("admin:auth_user_change", args=[student.pk])
    page = saved(django_app, url, make_admin())
    assert "Nothing changed: the user “ann” is as it was." in page
