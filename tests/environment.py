"""The environment the test suite runs in, set before Django reads its settings.

Loaded with `-p tests.environment` (pyproject.toml), so it runs before pytest-django imports
config.settings, which refuses to start without a SECRET_KEY unless DEBUG is on. Tests run
as a developer's machine does (DEBUG on: plain static files, console e-mail); whatever the
caller already set wins, so the suite can still be run against production-like variables.
"""

import os

os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("SECRET_KEY", "parsnip-test-suite-only-key-never-used-anywhere-else")
