from django.apps import AppConfig
from django.conf import settings


class TutorConfig(AppConfig):
    name = "tutor"
    verbose_name = "Learning and teaching"

    def ready(self) -> None:
        from tutor import sandbox

        # The sandbox module knows nothing of Django: hand it the configured backend here.
        sandbox.configure(backend=settings.SANDBOX_BACKEND)
