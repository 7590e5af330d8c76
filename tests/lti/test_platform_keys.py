"""The LMS's public keys, which check every launch's signature: fetched once and kept
(a class launching together makes one call to the LMS), fetched again when the LMS has
rotated its key, never waited for beyond the timeout, and an error answer never kept."""

import pytest

from tests.lti.fake_lms import LEARNER
from tests.lti.test_launch_security import assert_refused, rows

pytestmark = pytest.mark.django_db(transaction=True)


def lands_on_the_lesson(response, lesson) -> bool:
    return response.status_code == 200 and response.url.endswith(lesson.get_absolute_url())


def test_a_class_launching_fetches_the_lms_keys_once(lms, course, person, lesson):
    for sub in ("s2", "s3"):
        lms.add_person(sub, f"Student {sub}", c1=LEARNER)
    for sub in ("s1", "s2", "s3"):
        assert lands_on_the_lesson(person(sub).launch(course), lesson)
    assert lms.keyset_reads == 1


def test_a_launch_signed_with_the_lms_new_key_fetches_its_keys_again(lms, course, person, lesson):
    lms.add_person("s2", "Sue Student", c1=LEARNER)
    assert lands_on_the_lesson(person("s1").launch(course), lesson)
    lms.rotate_key()  # the kept keyset does not list the key this launch is signed with
    assert lands_on_the_lesson(person("s2").launch(course), lesson)
    assert lms.keyset_reads == 2
    assert lands_on_the_lesson(person("s1").launch(course), lesson)  # the new set is kept
    assert lms.keyset_reads == 2


def test_a_key_the_lms_never_published_is_refused_after_one_fresh_look(lms, course, person, lesson):
    from jwcrypto.jwk import JWK

    assert lands_on_the_lesson(person("s1").launch(course), lesson)
    lms.add_person("s2", "Sue Student", c1=LEARNER)
    lms.signing_key = (
        JWK.generate(kty="RSA", size=2048).export_to_pem(private_key=True, password=None).decode()
    )
    before = rows()
    assert_refused(person("s2").launch(course), before, "Unable to find public key")
    assert lms.keyset_reads == 2


def test_an_error_from_the_lms_keyset_is_not_kept(lms, course, person, lesson):
    lms.keyset_failures = [500]
    before = rows()
    assert_refused(person("s1").launch(course), before, "")
    assert lands_on_the_lesson(person("s1").launch(course), lesson)
    assert lms.keyset_reads == 2


def test_a_launch_waits_for_the_lms_keys_no_longer_than_the_timeout(lms, course, person, settings):
    settings.LTI_HTTP_TIMEOUT_SECONDS = 0.5
    lms.keyset_hangs = True  # until the test releases it: Parsnip's wait always runs out first
    before = rows()
    try:
        response = person("s1").launch(course)
    finally:
        lms.release.set()
    assert_refused(response, before, "Error during fetch URL")
