"""The language pages speak: the learner's choice, their class's, the browser's (tutor/languages.py)."""

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories import make_cohort, make_course, make_lesson, make_teacher, make_user
from tutor.models import AccountSettings

pytestmark = pytest.mark.django_db

SWITCH = "/language/"


def language_of(response) -> str:
    return response.headers["Content-Language"]


def test_a_visitor_reads_the_browsers_language(client):
    assert language_of(client.get("/", headers={"accept-language": "de-DE,de;q=0.9"})) == "de"
    assert language_of(client.get("/", headers={"accept-language": "es-MX"})) == "es"
    assert language_of(client.get("/", headers={"accept-language": "fr, ja"})) == "en"
    page = client.get("/", headers={"accept-language": "de"}).text
    assert '<html lang="de" dir="ltr">' in page


def test_the_switch_in_the_footer_names_the_page_it_is_on(client):
    lesson = make_lesson()
    page = client.get(lesson.get_absolute_url() + "?x=1").text
    assert f'action="{SWITCH}"' in page
    assert f'name="next" value="{lesson.get_absolute_url()}?x=1"' in page
    for code, _name in settings.LANGUAGES:
        assert f'<option value="{code}" lang="{code}"' in page


def test_a_visitor_switches_and_stays_on_the_page(client):
    course = make_course()
    here = reverse("tutor:course_detail", args=[course.slug])
    response = client.post(SWITCH, {"language": "es", "next": here})
    assert response.status_code == 302 and response.url == here
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    # The choice beats the browser's own language from then on.
    assert language_of(client.get(here, headers={"accept-language": "de"})) == "es"


def test_a_learners_choice_is_their_accounts_and_follows_them(client):
    sam = make_user("sam")
    client.force_login(sam)
    response = client.post(SWITCH, {"language": "de", "next": "/progress/"})
    assert response.url == "/progress/"
    assert AccountSettings.objects.get(user=sam).language == "de"
    assert language_of(client.get("/progress/")) == "de"
    # Another browser, in English: signed in, Sam reads German.
    other = client.__class__()
    other.force_login(sam)
    assert language_of(other.get("/", headers={"accept-language": "en"})) == "de"


@pytest.mark.parametrize("language", ["fr", "", "de-AT", "<script>"])
def test_a_language_the_site_does_not_speak_changes_nothing(client, language):
    sam = make_user()
    client.force_login(sam)
    response = client.post(SWITCH, {"language": language, "next": "/progress/"})
    assert response.status_code == 302 and response.url == "/progress/"
    assert not AccountSettings.objects.exists()
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert language_of(client.get("/progress/")) == "en"


@pytest.mark.parametrize("target", ["https://elsewhere.example/", "//elsewhere.example/x", ""])
def test_the_switch_sends_nobody_to_another_site(client, target):
    response = client.post(SWITCH, {"language": "es", "next": target})
    assert response.status_code == 302 and response.url == "/"


def test_the_switch_takes_only_a_post(client):
    assert client.get(SWITCH, {"language": "es"}).status_code == 405


def test_a_class_default_language_applies_to_its_students_who_chose_none(client):
    teacher = make_teacher()
    sam, ana = make_user("sam"), make_user("ana")
    cohort = make_cohort(teacher, students=[sam, ana])
    AccountSettings.objects.create(user=ana, language="es")
    client.force_login(teacher)
    url = reverse("tutor:class_language", args=[cohort.pk])
    assert client.post(url, {"language": "de"}).status_code == 302
    cohort.refresh_from_db()
    assert cohort.language == "de"
    client.logout()
    client.force_login(sam)
    assert language_of(client.get("/", headers={"accept-language": "en"})) == "de"
    client.logout()
    client.force_login(ana)
    assert language_of(client.get("/")) == "es"


def test_the_class_language_form_refuses_what_is_not_on_its_list(client):
    teacher = make_teacher()
    cohort = make_cohort(teacher)
    client.force_login(teacher)
    page = client.get(reverse("tutor:class_detail", args=[cohort.pk])).text
    assert f'action="{reverse("tutor:class_language", args=[cohort.pk])}"' in page
    response = client.post(
        reverse("tutor:class_language", args=[cohort.pk]), {"language": "xx"}, follow=True
    )
    assert "Choose a language from the list." in response.text
    cohort.refresh_from_db()
    assert cohort.language == ""
    assert client.get(reverse("tutor:class_language", args=[cohort.pk])).status_code == 405


def test_only_the_classs_teacher_sets_its_language(client):
    cohort = make_cohort(make_teacher())
    client.force_login(make_teacher())
    response = client.post(reverse("tutor:class_language", args=[cohort.pk]), {"language": "de"})
    assert response.status_code in (403, 404)
    cohort.refresh_from_db()
    assert cohort.language == ""


def test_the_javascript_catalog_is_served_in_the_pages_language(client):
    page = client.get("/", headers={"accept-language": "de"}).text
    url = reverse("javascript_catalog", args=["de"])
    assert f'<script src="{url}" defer></script>' in page
    # The URL names the language (whatever the browser says), so a browser may keep it.
    response = client.get(url, headers={"accept-language": "es"})
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/javascript")
    assert "django.ngettext" in response.text and "Schritt" in response.text
    assert "max-age=3600" in response.headers["Cache-Control"]
    spanish = client.get(reverse("javascript_catalog", args=["es"])).text
    assert "Paso" in spanish and "Schritt" not in spanish


def test_a_catalog_of_a_language_parsnip_does_not_speak_is_not_found(client):
    assert client.get(reverse("javascript_catalog", args=["fr"])).status_code == 404
    assert client.get(reverse("javascript_catalog", args=["de-AT"])).status_code == 404


def test_the_page_frame_speaks_the_chosen_language(client):
    page = client.get("/", headers={"accept-language": "de"}).text
    assert "Lektionen" in page and "Zum Inhalt springen" in page and "Anmelden" in page
    page = client.get("/", headers={"accept-language": "es"}).text
    assert "Lecciones" in page and "Saltar al contenido" in page and "Iniciar sesión" in page


def test_a_cached_lesson_page_is_kept_once_for_each_language(client, sample_content):
    lesson_url = "/learn/local-models/optimising-speed-and-memory/"
    english = client.get(lesson_url, headers={"accept-language": "en"}).text
    german = client.get(lesson_url, headers={"accept-language": "de"}).text
    assert "Words this lesson uses" in english and "Words this lesson uses" not in german
    assert "Begriffe in dieser Lektion" in german
    client.force_login(make_user())
    page = client.get(lesson_url, headers={"accept-language": "es"}).text
    assert "Palabras que usa esta lección" in page and "Ponlo en orden" in page
