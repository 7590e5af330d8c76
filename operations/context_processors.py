import tomllib
from functools import cache

from django.conf import settings


@cache
def parsnip_version() -> str:
    """The release this code is (pyproject.toml; CHANGELOG.md says what is in it)."""
    with open(settings.BASE_DIR / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]["version"]


def version(request) -> dict:
    return {"parsnip_version": parsnip_version()}
