from django.apps import AppConfig


class CourseConfig(AppConfig):
    name = "course"
    verbose_name = "Course content"

    def ready(self) -> None:
        from course import kinds, signals

        kinds.discover()
        signals.connect()
