"""A teacher's pages speak the teacher's language: their words, plurals, messages, form
errors, numbers and times (tests/browser/test_languages_teacher.py walks them in a browser)."""

from datetime import timedelta

import pytest
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from tests.factories import (
    make_cohort,
    make_lesson,
    make_prediction,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.live.models import RaisedHand
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db


def speaking(language: str) -> dict:
    return {"headers": {"accept-language": language}}


@pytest.fixture
def world():
    teacher = make_teacher("tina")
    lesson = make_lesson(status="published")
    lesson.course.status = "published"
    lesson.course.save()
    snippet = make_snippet(lesson, code="print(4)\n", expected_output="4\n")
    ada, bob = make_user("ada"), make_user("bob")
    cohort = make_cohort(teacher, students=[ada, bob])
    make_prediction(ada, snippet, text="5\n", verdict=Prediction.Verdict.WRONG)
    make_prediction(bob, snippet, text="5\n", verdict=Prediction.Verdict.WRONG)
    return {"teacher": teacher, "lesson": lesson, "snippet": snippet, "cohort": cohort}


@pytest.mark.parametrize(
    "language, says, not_says",
    [
        ("de", ["2 Lernende", "Klassendurchschnitt", "Beitrittscode", "Fortschritt"], "2 students"),
        ("es", ["2 alumnos", "Media de la clase", "Código para unirse", "Progreso"], "2 students"),
        ("en", ["2 students", "Class average", "Join code", "Progress"], "Lernende"),
    ],
)
def test_the_class_page_speaks_the_teachers_language(client, world, language, says, not_says):
    client.force_login(world["teacher"])
    page = client.get(
        reverse("tutor:class_detail", args=[world["cohort"].pk]), **speaking(language)
    ).text
    assert f'<html lang="{language}" dir="ltr">' in page
    assert all(words in page for words in says), [w for w in says if w not in page]
    assert not_says not in page


def test_a_lessons_item_analysis_counts_in_german_plurals(client, world):
    client.force_login(world["teacher"])
    url = reverse("tutor:class_lesson", args=[world["cohort"].pk, world["lesson"].pk])
    page = client.get(url, **speaking("de")).text
    assert "Gleicher Fehler, ein Kommentar" in page
    assert "2 Lernende" in page and "Häufigste falsche Vorhersagen" in page


@pytest.mark.parametrize(
    "language, says",
    [
        ("de", "höchstens 2.000 Zeichen"),
        ("es", "como mucho 2\xa0000 caracteres"),  # Spanish groups with a no-break space
        ("en", "at most 2,000 characters"),
    ],
)
def test_a_too_long_comment_is_refused_with_the_limit_in_the_languages_digits(
    client, world, language, says
):
    from tutor.practice.snippet.clusters import clusters

    client.force_login(world["teacher"])
    block = world["snippet"].block
    in_class = Q(user__memberships__cohort=world["cohort"])
    group = clusters(in_class=in_class, blocks=[block])[block.pk].groups[0]
    url = reverse("tutor:cluster_comment", args=[world["cohort"].pk, block.pk, group.key])
    refused = client.post(url, {"text": "x" * 2001}, **speaking(language))
    assert refused.status_code == 400 and says in refused.text


def test_the_live_view_says_how_long_a_hand_has_waited_in_german(client, world):
    RaisedHand.objects.create(user=make_user("cleo"), lesson=world["lesson"])
    student = world["cohort"].memberships.first().student
    RaisedHand.objects.create(user=student, lesson=world["lesson"])
    client.force_login(world["teacher"])
    url = reverse("tutor:live_view", args=[world["cohort"].pk, world["lesson"].pk])
    page = client.get(url, **speaking("de")).text
    assert "Gehobene Hände" in page and "1 Hand gehoben" in page.replace("<strong>", "").replace(
        "</strong>", ""
    )
    assert "wartet seit" in page and "seit vor" not in page


def test_an_assignment_form_refuses_in_spanish(client, world):
    client.force_login(world["teacher"])
    now = timezone.localtime()
    response = client.post(
        reverse("tutor:assignment_create", args=[world["cohort"].pk]),
        {
            "lesson": world["lesson"].pk,
            "opens_at": now.strftime("%Y-%m-%dT%H:%M"),
            "due_at": (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
        },
        **speaking("es"),
    )
    assert response.status_code == 400
    assert "La fecha límite debe ser posterior a la de apertura." in response.text
    assert "Fecha de apertura" in response.text and "Nueva tarea" in response.text


def test_a_class_taught_by_several_names_them_in_the_pages_language(client, world):
    cohort = world["cohort"]
    cohort.co_teachers.add(make_teacher("theo"), make_teacher("tom"))
    client.force_login(world["teacher"])
    page = client.get(reverse("tutor:class_list"), **speaking("de")).text
    assert "unterrichtet von tina, theo und tom" in page


def test_a_due_date_is_named_in_each_pages_language_though_the_last_page_spoke_another():
    from django.utils import translation

    from tutor.templatetags.assignments import when

    monday = timezone.make_aware(timezone.datetime(2026, 12, 7, 9, 0), timezone.UTC)
    with translation.override("de"):
        assert "Mo 7 Dez 2026" in when(monday, "UTC")
    with translation.override("es"):  # the same moment and zone: not the German words again
        spanish = when(monday, "UTC")
    assert "Dic 2026" in spanish and "Dez" not in spanish
