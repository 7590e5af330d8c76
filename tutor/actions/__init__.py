"""Workflows over several rows: each is one function, keyword-only, atomic.

Views validate first and then call these; tasks call them with an id. One module per
kind of work: runs, predictions (and drafts), ordering, progress, classes.
"""

from tutor.actions.classes import (
    ClassRefused,
    create_class,
    join_class,
    leave_class,
    remove_student,
)
from tutor.actions.ordering import (
    OrderingRefused,
    arrange_lines,
    check_order,
    help_with_order,
    move_line,
    settle_check,
    settle_checks_for_run,
    start_again,
)
from tutor.actions.predictions import (
    PredictionRefused,
    SelfCheckRefused,
    discard_draft,
    record_self_check,
    retry_reveal,
    reveal_run,
    run_own_version,
    save_draft,
    settle_predictions,
    settle_predictions_for_run,
    submit_prediction,
)
from tutor.actions.runs import RunRefused, check_run_allowance, execute_run, queue_run

__all__ = ["RunRefused", "check_run_allowance", "execute_run", "queue_run"]
__all__ += ["ClassRefused", "create_class", "join_class", "leave_class", "remove_student"]
__all__ += [
    "PredictionRefused", "SelfCheckRefused", "discard_draft", "record_self_check", "retry_reveal",
    "reveal_run", "run_own_version", "save_draft",
    "settle_predictions", "settle_predictions_for_run", "submit_prediction",
]
__all__ += [
    "OrderingRefused", "arrange_lines", "check_order", "help_with_order", "move_line",
    "settle_check", "settle_checks_for_run", "start_again",
]
