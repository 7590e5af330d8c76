"""Parsnip inside the LMS's iframe, in a browser that blocks its cookies there: the learner
is told so in plain words and offered the same launch in a new window, which works."""

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from requests.adapters import HTTPAdapter

from lti import cookies

pytestmark = pytest.mark.django_db(transaction=True)


class BlocksEveryCookie(HTTPAdapter):
    """What a browser blocking third-party cookies does to a framed site's cookies: it
    never keeps one (requests reads them from the response's headers, redirects too)."""

    def build_response(self, req, resp):
        del resp._original_response.msg["Set-Cookie"]
        return super().build_response(req, resp)


def in_a_frame(someone, *, cookies_blocked: bool):
    someone.session.headers["Sec-Fetch-Dest"] = "iframe"  # what a browser says of a framed page
    if cookies_blocked:
        someone.session.mount("http://", BlocksEveryCookie())
    return someone


def new_window_link(page) -> str:
    found = re.search(
        r'<a class="button primary" id="open-in-new-window" href="([^"]+)" target="_blank"',
        page.text,
    )
    return unescape(found.group(1))


def test_a_framed_launch_whose_cookies_are_blocked_offers_a_new_window_that_works(
    lms, course, person, lesson
):
    framed = in_a_frame(person("s1"), cookies_blocked=True)
    page = framed.launch(course)
    assert page.status_code == 200
    assert "Your browser blocked Parsnip’s cookies inside Fake LMS" in page.text
    assert f"frame-ancestors 'self' {lms.base}" in page.headers["Content-Security-Policy"]
    assert framed.last_launch is None  # the login stopped before going back to the LMS
    assert not User.objects.filter(lti_users__sub="s1").exists()  # nothing was made
    link = new_window_link(page)
    assert f"{cookies.NEW_WINDOW}=1" in link

    # The button opens the same launch in a window of its own: cookies are kept there.
    window = person("s1")
    window.session.headers["Sec-Fetch-Dest"] = "document"
    landed = window.open(lms.base + link)
    assert landed.status_code == 200 and landed.url.endswith(lesson.get_absolute_url())
    assert User.objects.filter(lti_users__sub="s1").count() == 1


def test_a_framed_launch_whose_cookies_are_kept_goes_straight_on(lms, course, person, lesson):
    framed = in_a_frame(person("s1"), cookies_blocked=False)
    landed = framed.launch(course)
    assert landed.status_code == 200 and landed.url.endswith(lesson.get_absolute_url())
    assert cookies.TEST_COOKIE not in framed.session.cookies  # the test cookie is gone again
