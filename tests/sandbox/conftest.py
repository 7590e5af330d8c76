"""Every sandbox test runs with both ways the bwrap backend starts a run ("zygote", the
default, and "bwrap"), except the tests of the zygote itself."""

import pytest

from tutor import sandbox


def pytest_configure(config):
    config.addinivalue_line("markers", "zygote_only: a test of the zygote strategy alone")


def pytest_generate_tests(metafunc):
    if "strategy" in metafunc.fixturenames:
        only_zygote = metafunc.definition.get_closest_marker("zygote_only") is not None
        metafunc.parametrize(
            "strategy", ["zygote"] if only_zygote else list(sandbox.STRATEGIES), indirect=True
        )


@pytest.fixture(autouse=True)
def strategy(request):
    sandbox.configure(strategy=request.param)
    yield request.param
    sandbox.configure(strategy="zygote")
