"""The admin speaks the admin's language, chosen as the learner's pages choose it
(tutor/languages.py): the account's setting, else the browser's Accept-Language. Parsnip's own
words in it (models, fields, help, actions, messages, its templates) come from the catalogs."""

import pytest
from django.urls import reverse

from course.models import Lesson
from tests.factories import make_admin, make_lesson, make_user
from tutor.models import AccountSettings

pytestmark = pytest.mark.django_db


def test_the_admin_follows_the_browsers_language(client):
    client.force_login(make_admin())
    index = client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de"' in index
    assert "Parsnip-Verwaltung" in index and "Parsnip administration" not in index
    assert ">Klassen<" in index and ">Lektionen<" in index and ">Kursinhalte<" in index
    # The language switch in the admin's footer, with the page's language chosen.
    assert 'action="/language/"' in index and '<option value="de" lang="de" selected>' in index


def test_the_admin_follows_the_accounts_language_over_the_browsers(client):
    admin = make_admin()
    AccountSettings.objects.create(user=admin, language="es")
    client.force_login(admin)  # signing in reads the account's language (tutor.languages)
    lesson = make_lesson(title="Listas")
    page = client.get(
        reverse("admin:course_lesson_change", args=[lesson.pk]), HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert '<html lang="es"' in page
    assert "Título" in page and "Lo que verás" in page
    assert "Palabras que usa esta lección." in page  # a field's help
    assert "Importar preguntas" in page and "Añadir otro bloque" in page


def test_a_list_column_an_action_and_a_message_in_german(client, sample_content):
    client.force_login(make_admin())
    changelist = client.get(
        reverse("admin:course_lesson_changelist"), HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Ausgaben prüfen: die Code-Beispiele ausführen" in changelist  # the action
    assert "Veröffentlicht" in changelist  # a choice's label
    response = client.post(
        reverse("admin:course_lesson_changelist"),
        {
            "action": "check_outputs",
            "_selected_action": [Lesson.objects.get(slug="optimising-speed-and-memory").pk],
        },
        HTTP_ACCEPT_LANGUAGE="de",
        follow=True,
    )
    text = response.content.decode()
    assert "im Hintergrundprozess geprüft." in text and "Zu den Ergebnissen</a>" in text


def test_the_erase_message_counts_in_the_admins_language(client):
    client.force_login(make_admin())
    learners = [make_user(), make_user()]
    response = client.post(
        reverse("admin:auth_user_changelist"),
        {
            "action": "erase_data",
            "_selected_action": [user.pk for user in learners],
            "confirmed": "yes",
        },
        HTTP_ACCEPT_LANGUAGE="es",
        follow=True,
    )
    text = response.content.decode()
    assert "Se borraron 2 cuentas." in text
