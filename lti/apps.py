from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LtiConfig(AppConfig):
    name = "lti"

    verbose_name = _("LMS links (LTI 1.3)")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from lti import grades
        from tutor.signals import progress_changed, quiz_submitted

        progress_changed.connect(grades.progress_changed, dispatch_uid="lti-progress-changed")
        # A quiz's score goes to the columns linked to its assignment (tutor/quizzes/).
        quiz_submitted.connect(grades.quiz_submitted, dispatch_uid="lti-quiz-submitted")
