"""A clock a test moves: `django.utils.timezone.now` answers a time the test sets (in every
thread, the live server's too), so "a week later" needs no sleep.

    def test_x(clock): clock.move(days=7)      # (the fixture is tests/conftest.py's)
"""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone


class Clock:
    def __init__(self, start: datetime):
        self.at = start

    def now(self) -> datetime:
        return self.at

    def move(self, **delta) -> datetime:
        self.at += timedelta(**delta)
        return self.at


@pytest.fixture
def clock(monkeypatch) -> Clock:
    moved = Clock(timezone.now())
    monkeypatch.setattr(timezone, "now", moved.now)
    return moved
