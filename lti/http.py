"""Parsnip's calls to an LMS: each with a timeout (pylti1p3 sets none, so a hung LMS would
hold a web thread or a worker for good); the LMS's public keys kept for a while rather
than fetched on every launch, and its access tokens for their lifetime rather than asked
for again for every grade."""

import hashlib

import requests
from django.conf import settings
from django.core.cache import cache
from pylti1p3.exception import LtiServiceException
from pylti1p3.service_connector import ServiceConnector

KEYSET_CACHE_PREFIX = "lti-keyset:"
TOKEN_CACHE_PREFIX = "lti-token:"
TOKEN_MARGIN_SECONDS = 60  # a kept token is dropped this long before the LMS says it expires


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


class TokenSession(TimeoutSession):
    """Notes the lifetime (`expires_in`) the LMS gives each access token it issues."""

    def __init__(self, token_url: str | None):
        super().__init__()
        self.token_url = token_url
        self.token_lifetime: int | None = None

    def request(self, method, url, *args, **kwargs):
        response = super().request(method, url, *args, **kwargs)
        if url == self.token_url:
            try:
                self.token_lifetime = int(response.json()["expires_in"]) if response.ok else None
            except (ValueError, KeyError, TypeError):
                self.token_lifetime = None
        return response


class TokenKeepingConnector(ServiceConnector):
    """pylti1p3's connector to the LMS's services (grades, roster), with a timeout on every
    call and the LMS's access token kept in Django's cache until a minute before it expires:
    pylti1p3 asks for a new token for every connector, which made every grade two calls to
    the LMS. An LMS that gives no lifetime gets no token kept. A call the LMS answers with
    401 (the token revoked or expired early) drops the kept token and is made once more with
    a new one."""

    def __init__(self, registration):
        super().__init__(
            registration, requests_session=TokenSession(registration.get_auth_token_url())
        )

    def _token_key(self, scopes) -> str:
        registration = self._registration
        named = [registration.get_auth_token_url() or "", registration.get_client_id() or ""]
        return (
            TOKEN_CACHE_PREFIX
            + hashlib.sha256("|".join(named + sorted(scopes)).encode()).hexdigest()
        )

    def get_access_token(self, scopes) -> str:
        key = self._token_key(scopes)
        kept = cache.get(key)
        if kept:
            return kept
        self._requests_session.token_lifetime = None
        token = super().get_access_token(scopes)
        lifetime = self._requests_session.token_lifetime
        if lifetime and lifetime > TOKEN_MARGIN_SECONDS:
            cache.set(key, token, lifetime - TOKEN_MARGIN_SECONDS)
        return token

    def make_service_request(self, scopes, url, *args, **kwargs):
        try:
            return super().make_service_request(scopes, url, *args, **kwargs)
        except LtiServiceException as error:
            if error.response.status_code != 401:
                raise
        cache.delete(self._token_key(scopes))
        self._access_tokens.clear()
        return super().make_service_request(scopes, url, *args, **kwargs)
