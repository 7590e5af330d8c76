import os
import re
import shutil

import pytest
from hypothesis import settings as hypothesis_settings

from tests.clock import clock  # noqa: F401  (a clock a test moves: tests/clock.py)

# A property holds or not whatever the time each example takes: Hypothesis's default
# deadline (200 ms an example) fails correct tests on a busy machine, so there is none.
hypothesis_settings.register_profile("parsnip", deadline=None)
hypothesis_settings.load_profile("parsnip")



def pytest_configure(config):
    """The translations compiled from locale/*/LC_MESSAGES/*.po, as `make setup` does (a .mo
    newer than its .po is kept): tests run straight from pytest read them too. Once, before
    any xdist worker starts."""
    if hasattr(config, "workerinput"):
        return
    import django
    from django.core.management import call_command

    django.setup()
    call_command("compilemessages", verbosity=0, ignore_patterns=[".venv", "node_modules"])


# How long a browser action or expectation waits (see `browser` below).
ACTION_TIMEOUT_MS = 20_000

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    """The system Chromium, driven by Playwright (no browser download)."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; Django's ORM calls made
    # by the test itself (factories, assertions) are still synchronous and safe.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import expect

    # An expectation waits until the page shows what it should; on a busy machine a run and
    # its rendering can take longer than Playwright's 5 s default, so wait as long as the
    # actions do (a passing test returns as soon as the page is right, whatever the limit).
    expect.set_options(timeout=ACTION_TIMEOUT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: errors.append(msg.text) if msg.type == "error" else None,
    )
    page.expected_errors = []  # patterns of errors a test provokes on purpose
    yield page
    context.close()
    # A CSP violation or a script error is a bug a user would hit.
    errors = [e for e in errors if not any(re.search(p, e) for p in page.expected_errors)]
    assert not errors, f"browser errors: {errors}"


@pytest.fixture
def login_in_browser(page, client):
    """Log `user` into the browser page by copying a test-client session cookie."""

    def login(user):
        client.force_login(user)
        cookie = client.cookies["sessionid"]
        page.context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": cookie.value,
                    "url": page.context._impl_obj._options.get("baseURL", ""),
                }
            ]
        )
        return page

    return login


@pytest.fixture
def sample_content(db):
    """The shipped sample course (content/), imported through the real importer."""
    from django.conf import settings
    from django.core.management import call_command

    call_command("import_content", str(settings.BASE_DIR / "content"), verbosity=0)


@pytest.fixture(autouse=True)
def fast_password_hashing(request):
    # The sandbox suite also runs without Django (-p no:django): then there is nothing to do.
    if not request.config.pluginmanager.hasplugin("django"):
        return
    settings = request.getfixturevalue("settings")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_waiting_for_runs(request):
    """Most tests have no worker: a click answers at once with a panel that polls, and a
    poll answers at once. Tests of waiting set RUN_WAIT_SECONDS / RUN_LONG_POLL_SECONDS."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    settings = request.getfixturevalue("settings")
    settings.RUN_WAIT_SECONDS = 0
    settings.RUN_LONG_POLL_SECONDS = 0


@pytest.fixture(autouse=True)
def runs_on_the_server(request):
    """Run goes to the server unless a test asks for Python in the browser (the browser
    tests that need it: `python_in_browser`), so no other test downloads it."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    if "python_in_browser" not in request.fixturenames:
        request.getfixturevalue("settings").RUN_IN_BROWSER = False


@pytest.fixture
def python_in_browser(settings):
    settings.RUN_IN_BROWSER = True


@pytest.fixture(autouse=True)
def empty_cache(request):
    """Cached renderings (and each process's loaded lesson content) are keyed by content
    version and row ids, which every test's fresh database reuses: each test starts with
    an empty cache."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.core.cache import cache

    from course.pages import forget_loaded_content

    cache.clear()
    forget_loaded_content()


@pytest.fixture(autouse=True)
def in_the_sites_language(request):
    """A request leaves its page's language active in the thread (LocaleMiddleware), and a
    test's code outside a request would then speak it: each test starts in the site's."""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
