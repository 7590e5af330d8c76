"""A launch speaks the LMS's language (its launch_presentation locale claim), unless the
learner chose their own in Parsnip."""

import pytest
from django.contrib.auth.models import User

from lti.claims import LAUNCH_PRESENTATION
from tests.lti.test_launch_claims import link  # noqa: F401  (the fixture)
from tutor.models import AccountSettings

pytestmark = pytest.mark.django_db(transaction=True)


def in_locale(locale):
    return lambda claims: claims.update({LAUNCH_PRESENTATION: {"locale": locale}})


@pytest.mark.parametrize("locale, language", [("de-DE", "de"), ("es_MX", "es"), ("fr-FR", "en")])
def test_a_launch_opens_the_lesson_in_the_lms_locale(lms, link, person, lesson, locale, language):  # noqa: F811
    person("t1").launch(link)
    lms.edit_claims = in_locale(locale)
    page = person("s1").launch(link)
    assert page.status_code == 200 and page.url.endswith(lesson.get_absolute_url())
    assert page.headers["Content-Language"] == language
    assert f'<html lang="{language}" dir="ltr">' in page.text


def test_a_learner_who_chose_a_language_keeps_it_whatever_the_lms_says(lms, link, person, lesson):  # noqa: F811
    person("s1").launch(link)
    AccountSettings.objects.create(user=User.objects.get(lti_users__sub="s1"), language="es")
    lms.edit_claims = in_locale("de-DE")
    page = person("s1").launch(link)
    assert page.headers["Content-Language"] == "es"


def test_a_locale_that_is_no_string_is_refused(lms, link, person):  # noqa: F811
    lms.edit_claims = lambda claims: claims.update({LAUNCH_PRESENTATION: {"locale": ["de"]}})
    page = person("s1").launch(link)
    assert page.status_code == 403 and "locale" in page.text
