"""What tutor announces to apps built on top of it (they listen; tutor never imports them)."""

from django.dispatch import Signal

# A learner's progress on a lesson was recounted, or something else their score on it counts
# changed (a hint taken, where an assignment makes hints cost), sent once the transaction
# has committed. Arguments: user_id, lesson_id.
progress_changed = Signal()

# A learner did something on a block (sent inside the action's transaction: a receiver's
# write commits or rolls back with it, and its error fails the action). The live view
# (tutor.live) keeps each learner's last action from it.
# Arguments: user, block, what (in words), failed (True, False or None), later.
learner_worked = Signal()

# A student's quiz attempt was submitted, so their score on the quiz assignment may have
# changed (sent once the transaction has committed). Arguments: assignment_id, student_id.
# The LMS link (lti) sends the quiz's score to the assignment's gradebook column.
quiz_submitted = Signal()
