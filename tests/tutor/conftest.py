import pytest

from tests.factories import make_user


@pytest.fixture
def learner(client):
    """A student, logged in on the test client."""
    user = make_user()
    client.force_login(user)
    return user
