from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CourseConfig(AppConfig):
    name = "course"
    verbose_name = _("Course content")

    def ready(self) -> None:
        from course import kinds, signals

        kinds.discover()
        signals.connect()
