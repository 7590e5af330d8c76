from django.apps import AppConfig


class LtiConfig(AppConfig):
    name = "lti"

    verbose_name = "LMS links (LTI 1.3)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from lti import grades
        from tutor.signals import progress_changed

        progress_changed.connect(grades.progress_changed, dispatch_uid="lti-progress-changed")
