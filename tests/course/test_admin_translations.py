"""The admin edits a lesson's and a glossary term's translations: one text box a language,
holding what the translation file holds, checked as the file is (course/forms.py)."""

import pytest
from django.urls import reverse

from course.models import Course, GlossaryTerm, Lesson
from tests.factories import make_admin

pytestmark = pytest.mark.django_db

SEED = "optimising-speed-and-memory"


def lesson_form(app, admin):
    lesson = Lesson.objects.get(slug=SEED)
    page = app.get(reverse("admin:course_lesson_change", args=[lesson.pk]), user=admin)
    return next(form for form in page.forms.values() if "_save" in form.fields)


def test_an_admin_edits_a_lessons_spanish_translation(django_app, sample_content):
    admin = make_admin()
    form = lesson_form(django_app, admin)
    assert "title: Optimizar la velocidad y la memoria" in form["translation_es"].value
    assert "  backend-latency:\n    caption: Compara la latencia" in form["translation_es"].value
    german = Lesson.objects.get(slug=SEED).translations["de"]

    form["translation_es"] = form["translation_es"].value.replace(
        "caption: Compara la latencia de los backends",
        "caption: Compara la velocidad de los backends",
    )
    response = form.submit("_save", user=admin)

    assert response.status_code == 302
    lesson = Lesson.objects.get(slug=SEED)
    assert lesson.translations["es"]["blocks"]["backend-latency"]["caption"] == (
        "Compara la velocidad de los backends en distinto hardware."
    )
    assert lesson.translations["de"] == german


def test_a_translation_that_does_not_fit_the_lesson_is_refused(django_app, sample_content):
    admin = make_admin()
    before = Lesson.objects.get(slug=SEED).translations
    form = lesson_form(django_app, admin)
    form["translation_de"] = (
        "title: Geschwindigkeit\nblocks:\n  backend-latency:\n    caption: Vergleiche\n    code: print()\n"
    )
    page = form.submit("_save", user=admin)

    assert page.status_code == 200
    assert "Line 5: &#x27;code&#x27; is not translated in a snippet block" in page.text
    assert Lesson.objects.get(slug=SEED).translations == before


def test_emptying_a_languages_box_removes_that_translation(django_app, sample_content):
    admin = make_admin()
    form = lesson_form(django_app, admin)
    form["translation_de"] = ""
    assert form.submit("_save", user=admin).status_code == 302
    assert sorted(Lesson.objects.get(slug=SEED).translations) == ["es"]


def test_an_admin_translates_a_glossary_term(django_app, sample_content):
    admin = make_admin()
    term = GlossaryTerm.objects.get(slug="gguf")
    page = django_app.get(reverse("admin:course_glossaryterm_change", args=[term.pk]), user=admin)
    form = page.forms["glossaryterm_form"]
    assert form["translation_es"].value == ""
    form["translation_es"] = (
        "term: GGUF\ndefinition: |\n  Un formato de archivo para modelos con [[quantization|pesos cuantizados]].\n"
    )
    assert form.submit("_save", user=admin).status_code == 302
    term.refresh_from_db()
    assert term.translations["es"] == {
        "term": "GGUF",
        "definition": "Un formato de archivo para modelos con [[quantization|pesos cuantizados]].\n",
    }


def test_an_admin_edits_a_courses_translations(django_app, sample_content):
    admin = make_admin()
    course = Course.objects.get(slug="local-models")
    page = django_app.get(reverse("admin:course_course_change", args=[course.pk]), user=admin)
    form = next(form for form in page.forms.values() if "_save" in form.fields)
    assert form["translation_de"].value.startswith("title: Modelle lokal ausführen\nsummary: |\n")
    spanish = course.translations["es"]

    form["translation_de"] = "title: Lokale Modelle\nlessons: [what-a-local-model-is]\n"
    page = form.submit("_save", user=admin)
    assert page.status_code == 200
    assert "Line 2: &#x27;lessons&#x27; is not translated in the course" in page.text

    form = next(form for form in page.forms.values() if "_save" in form.fields)
    form["translation_de"] = "title: Lokale Modelle\n"
    assert form.submit("_save", user=admin).status_code == 302
    course.refresh_from_db()
    assert course.translations == {"es": spanish, "de": {"title": "Lokale Modelle"}}
