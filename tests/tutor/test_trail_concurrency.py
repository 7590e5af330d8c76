"""One learner's batches and runs arriving at once (two tabs, a beacon beside a run) lose no
step: the trail's chunks stay in one order that replays to its text. Threads on a file
SQLite database and, in `make test`'s second pass, on PostgreSQL."""

import pytest

from tests.factories import make_snippet, make_user
from tests.tutor.test_concurrent_clicks import at_once
from tutor.trail import actions, replay
from tutor.trail.models import Trail

pytestmark = pytest.mark.django_db(transaction=True)


def test_batches_and_runs_at_once_are_all_kept_in_one_replayable_order():
    user, snippet = make_user(), make_snippet(code="")
    calls = iter(range(100))

    def one():
        n = next(calls)
        if n % 2:
            return actions.record_moment(
                user=user, block=snippet.block, what=actions.RUN, code=f"run {n}\n"
            )
        return actions.record_edits(user=user, block=snippet.block, edits=[], code=f"typed {n}\n")

    results = at_once(8, one)
    assert not [r for r in results if isinstance(r, Exception)], results
    trail = Trail.objects.get(user=user)
    assert Trail.objects.count() == 1
    assert trail.chunks == 8 and trail.runs == 4
    assert list(trail.chunk_rows.order_by("seq").values_list("seq", flat=True)) == list(range(8))
    assert replay.step_of(trail, trail.steps).text == trail.text
