"""Where pylti1p3 keeps a launch's state and nonce between the OIDC login and the launch:
a table (lti.LaunchState), shared by every web process. A nonce is kept bound to the state
of the login that made it (pylti1p3 keeps it alone, so any live nonce passed with any good
state), and the launch takes both at once: a token is good for the one browser whose login
asked for it (its state cookie), once."""

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from pylti1p3.launch_data_storage.base import LaunchDataStorage

from lti.models import LaunchState

DEFAULT_LIFETIME = 86400  # seconds, pylti1p3's own default


class DatabaseLaunchStorage(LaunchDataStorage):
    def get_session_cookie_name(self):
        return None  # the state cookie already ties the launch to the browser that logged in

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key):
        row = LaunchState.objects.filter(
            key=self._prepare_key(key), expires_at__gt=timezone.now()
        ).first()
        return row.value if row else None

    def set_value(self, key, value, exp=None):
        now = timezone.now()
        LaunchState.objects.filter(expires_at__lte=now).delete()
        expires_at = now + timedelta(seconds=exp or DEFAULT_LIFETIME)
        try:
            with transaction.atomic():
                LaunchState.objects.update_or_create(
                    key=self._prepare_key(key), defaults={"value": value, "expires_at": expires_at}
                )
        except IntegrityError:  # written at the same moment by another request: theirs stands
            pass

    def bind_nonce(self, nonce: str, state: str) -> None:
        """The nonce, saved by the login, belongs to that login's state (and so browser)."""
        LaunchState.objects.filter(key=self._prepare_key(f"nonce-{nonce}")).update(value=state)

    def take_launch(self, nonce: str, state: str) -> dict | None:
        """Use the nonce and its state, once: the state's login parameters (a dict, maybe
        empty), or None when the nonce is unknown, used, expired or another login's."""
        now = timezone.now()
        with transaction.atomic():
            taken, _ = LaunchState.objects.filter(
                key=self._prepare_key(f"nonce-{nonce}"), value=state, expires_at__gt=now
            ).delete()
            if not taken:
                return None
            row = (
                LaunchState.objects.filter(key=self._prepare_key(state), expires_at__gt=now)
                .values_list("value", flat=True)
                .first()
            )
            LaunchState.objects.filter(key=self._prepare_key(state)).delete()
        return row if isinstance(row, dict) else {}

    def check_value(self, key) -> bool:
        key = self._prepare_key(key)
        live = LaunchState.objects.filter(key=key, expires_at__gt=timezone.now())
        if "-nonce-" in key:
            deleted, _ = live.delete()  # one launch per nonce: the first check takes it
            return deleted > 0
        return live.exists()
