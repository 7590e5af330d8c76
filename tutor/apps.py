from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class TutorConfig(AppConfig):
    name = "tutor"
    verbose_name = _("Learning and teaching")

    def ready(self) -> None:
        from django_q.signals import post_spawn

        import tutor.quizzes.models  # noqa: F401  -- quiz attempts (tutor/quizzes/)
        from course import learner_work
        from tutor import practice, sandbox, tasks
        from tutor.assignments import models as assignment_models  # noqa: F401 (registers them)
        from tutor.practice.ordering.models import ordering_lines_in_attempts

        practice.discover()
        # The live view keeps each learner's last action from what tutor's actions announce.
        from tutor.live import actions as live
        from tutor.signals import learner_worked

        learner_worked.connect(live.learner_worked, dispatch_uid="parsnip-live-view")
        # Review cards are made from the same announcements (tutor/review/).
        from tutor.review import actions as review

        learner_worked.connect(review.learner_worked, dispatch_uid="parsnip-review-cards")
        import tutor.review.models  # noqa: F401  -- the review cards' rows
        from tutor.review.runner import ReviewRunner  # code exercises at review, in the worker

        practice.register(ReviewRunner())
        from tutor.views import progress  # the pages draw the progress a kind's answer brings

        practice.show_progress_with(progress.with_lesson_progress)
        import tutor.clusters.models  # noqa: F401  (its model is the app's: Django must see it)
        import tutor.live.models  # noqa: F401  -- the live view's rows (tutor/live/)
        import tutor.trail.models  # noqa: F401  -- the editors' trails (tutor/trail/)
        post_spawn.connect(tasks.worker_started, dispatch_uid="parsnip-worker-started")
        # A broker that lost its messages (Redis restarted) is told every queued run again.
        from tutor import queueing

        queueing.when_messages_lost(tasks.broker_lost_messages)
        # A sign-in reads the student's closed-book windows and moves their seat to it.
        from django.contrib.auth.signals import user_logged_in

        from tutor.assignments import closed_book

        user_logged_in.connect(closed_book.signed_in, dispatch_uid="parsnip-closed-book")
        # ... and the language their pages speak (tutor/languages.py).
        from tutor import languages

        user_logged_in.connect(languages.signed_in, dispatch_uid="parsnip-language")
        # A snippet's output is computed when it is imported or saved, not at its first reveal.
        from django.db.models.signals import post_save

        from course.kinds.snippet import Snippet
        from tutor.practice.snippet.actions import reveal_ahead

        post_save.connect(reveal_ahead, sender=Snippet, dispatch_uid="parsnip-reveal-ahead")

        # The sandbox module knows nothing of Django: hand it the configured backend here.
        sandbox.configure(backend=settings.SANDBOX_BACKEND)
        # Attempts name lines by key: tell content edits, which know nothing of tutor.
        learner_work.register_key_finder(ordering_lines_in_attempts)
