"""The LTI tests' world: Parsnip and a real LTI 1.3 platform (tests/lti/fake_lms.py) on the
same test server, the platform registered in Parsnip as an admin would."""

import re
from html import unescape

import pytest
import requests
from django.urls import reverse
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from tests.factories import make_course, make_lesson, make_snippet
from tests.lti import fake_lms
from tests.lti.fake_lms import INSTRUCTOR, LEARNER


@pytest.fixture
def lms(live_server, settings):
    settings.ROOT_URLCONF = "tests.lti.urls"
    settings.LTI_RETRY_SECONDS = 30
    settings.LTI_HTTP_TIMEOUT_SECONDS = 5
    Key.objects.generate()  # what `manage.py rotate_keys` does once at set-up
    fake = fake_lms.FakeLms(base=live_server.url)
    fake_lms.CURRENT["lms"] = fake
    yield fake
    fake_lms.CURRENT.clear()


def register(fake: fake_lms.FakeLms, *, deployment_active: bool = True) -> LtiRegistration:
    """The admin's registration of the fake LMS, and the tool URLs the LMS is given."""
    registration = LtiRegistration.objects.create(
        name="Fake LMS",
        issuer=fake.issuer,
        client_id=fake.client_id,
        auth_url=fake.url("authorize/"),
        token_url=fake.url("token/"),
        keyset_url=fake.url("jwks/"),
    )
    LtiDeployment.objects.create(
        registration=registration, deployment_id=fake.deployment_id, is_active=deployment_active
    )
    fake.tool_login_url = fake.base + reverse("lti:login", args=[registration.uuid])
    fake.tool_launch_url = fake.base + reverse("lti:launch")
    fake.tool_jwks_url = fake.base + reverse("lti:jwks")
    return registration


@pytest.fixture
def registered(lms):
    return register(lms)


@pytest.fixture
def lesson(db):
    course = make_course(status="published")
    lesson = make_lesson(course, status="published", title="Caches")
    snippets = [
        make_snippet(lesson, expected_output=f"{n}\n", code=f"print({n})\n") for n in range(3)
    ]
    lesson.snippets_for_test = snippets
    return lesson


class Person:
    """Someone using the LMS in a browser without JavaScript: follows redirects and submits
    the LMS's launch form and Parsnip's return form, as the page's button would."""

    def __init__(self, fake: fake_lms.FakeLms, sub: str):
        self.fake, self.sub = fake, sub
        self.session = requests.Session()
        self.tamper = None  # a function that changes the launch form's fields before sending
        self.last_launch = None  # the launch form's fields, as sent
        self.hold = False  # stop at the LMS's launch form (kept in last_launch), not sending it

    def open(self, url: str) -> requests.Response:
        response = self.session.get(url, timeout=30)
        return self.submit_forms(response)

    def submit_forms(self, response: requests.Response) -> requests.Response:
        for _ in range(4):
            form = re.search(
                r'<form method="post" action="([^"]+)" id="(lti-launch|lti-return-form)"[^>]*>(.*?)</form>',
                response.text,
                re.S,
            )
            if not form:
                return response
            fields = {
                k: unescape(v)
                for k, v in re.findall(
                    r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(3)
                )
            }
            if form.group(2) == "lti-launch":
                if self.tamper:
                    self.tamper(self, fields)
                self.last_launch = (unescape(form.group(1)), fields)
                if self.hold:
                    return response
            response = self.session.post(unescape(form.group(1)), data=fields, timeout=30)
        return response

    def launch(self, link: str) -> requests.Response:
        return self.open(self.fake.start_url(self.sub, link=link))

    def deep_link(self, context: str, lesson=None, *, assignment=None) -> requests.Response:
        target = f"assignment:{assignment.pk}" if assignment else f"lesson:{lesson.pk}"
        picker = self.open(self.fake.start_url(self.sub, deep_link_in=context))
        assert picker.status_code == 200, picker.text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', picker.text).group(1)
        response = self.session.post(
            picker.url,
            data={"csrfmiddlewaretoken": token, "target": target},
            headers={"Referer": picker.url},
            timeout=30,
        )
        return self.submit_forms(response)


@pytest.fixture
def person(lms):
    return lambda sub: Person(lms, sub)


def learner_course(fake: fake_lms.FakeLms, lesson) -> str:
    """An LMS course "Physics 101" with one learner, Sam (s1), and a link "l1" to the
    lesson, made by the LMS itself (no Deep Linking, no gradebook column)."""
    fake.contexts["c1"] = "Physics 101"
    fake.add_person("s1", "Sam Student", c1=LEARNER)
    fake.links["l1"] = {
        "context": "c1",
        "title": "Caches",
        "custom": {"parsnip_lesson": str(lesson.pk)},
        "lineitem": None,
    }
    return "l1"


@pytest.fixture
def course(lms, registered, lesson):
    return learner_course(lms, lesson)


@pytest.fixture
def course_with_link(lms, registered, lesson, person):
    """An LMS course whose teacher added the lesson through Deep Linking."""
    lms.contexts["c1"] = "Physics 101"
    lms.add_person("t1", "Tess Teacher", c1=INSTRUCTOR)
    lms.add_person("s1", "Sam Student", c1=LEARNER)
    lms.add_person("s2", "Sue Student", c1=LEARNER)
    done = person("t1").deep_link("c1", lesson)
    assert "Added Caches" in done.text, done.text
    return next(iter(lms.links))


@pytest.fixture
def worker_inline(monkeypatch):
    """What is queued runs at once, in the test's thread, as the worker would run it (the
    real broker path is tested in tests/tutor/test_worker.py). Returns the list of what was
    queued: (task, args)."""
    from importlib import import_module

    from tutor import queueing

    queued = []

    def run(func, *args, **kwargs):
        queued.append((func, args))
        module, _, name = func.rpartition(".")
        getattr(import_module(module), name)(*args)

    monkeypatch.setattr(queueing, "async_task", run)
    return queued
