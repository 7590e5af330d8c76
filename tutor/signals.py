"""What tutor announces to apps built on top of it (they listen; tutor never imports them)."""

from django.dispatch import Signal

# A learner's progress on a lesson was recounted (sent once the transaction has committed).
# Arguments: user_id, lesson_id.
progress_changed = Signal()
