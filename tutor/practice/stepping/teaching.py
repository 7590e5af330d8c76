"""What teachers see of stepping: in a student's timeline, what they stepped through and
how far ("reached step 34 of 120"), by the time they last moved on."""

from tutor import teaching
from tutor.practice.stepping.models import Stepping

TEMPLATE = "tutor/teaching/kinds/stepping_event.html"


def events(*, student, limit: int) -> list[teaching.Event]:
    steppings = (
        Stepping.objects.filter(user=student)
        .select_related("trace", "snippet__block__lesson", "exercise__block__lesson")
        .defer("trace__data", "trace__code", "trace__stdin")
        .order_by("-updated_at", "-pk")[:limit]
    )
    return [
        teaching.Event("stepping", stepping.updated_at, stepping, TEMPLATE)
        for stepping in steppings
    ]
