"""Parsnip's calls to an LMS: each with a timeout (pylti1p3 sets none, so a hung LMS would
hold a web thread or a worker for good), and the LMS's public keys kept for a while rather
than fetched on every launch."""

import hashlib

import requests
from django.conf import settings
from django.core.cache import cache

KEYSET_CACHE_PREFIX = "lti-keyset:"


class TimeoutSession(requests.Session):
    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", settings.LTI_HTTP_TIMEOUT_SECONDS)
        return super().request(*args, **kwargs)


def keyset_cache_key(url: str) -> str:
    return KEYSET_CACHE_PREFIX + hashlib.sha256(url.encode()).hexdigest()


def cached_keyset(url: str) -> dict | None:
    return cache.get(keyset_cache_key(url))


def keep_keyset(url: str, keyset: dict) -> None:
    cache.set(keyset_cache_key(url), keyset, settings.LTI_KEYSET_CACHE_SECONDS)


def forget_keyset(url: str) -> None:
    cache.delete(keyset_cache_key(url))
