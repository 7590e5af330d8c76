"""Step through a program, line by line, with its variables and objects drawn.

A panel, not a block kind (tutor.practice.PracticeKind with `panel = True`): learners
open it from a snippet after its reveal, from their own edited version after a run, and
from a write-code submission that failed a visible test. Here, in one folder:

- models.py: `Trace` (a program's trace, once per code and input, like a reveal) and
  `Stepping` (a learner stepping through one: where it opens, how far they got);
- actions.py: start stepping (the trace queued as a Run of purpose TRACE, rate-limited
  like runs), trace in the worker (tutor.sandbox.tracing, in the sandbox), record the
  furthest step (a POST: a page view never writes);
- steps.py: one step as the page shows it, the screen reader's words, and where a
  stepping opens (the first step whose output leaves the learner's prediction);
- views.py: the start POSTs, the waiting page, the step pages (each its own URL; htmx
  swaps only the step region) and the "reached" POST;
- teaching.py: "stepped through … reached step 34 of 120" in a student's timeline.
"""

from django.urls import path
from django.utils.translation import gettext_lazy

from tutor import practice
from tutor.models import Run
from tutor.practice.stepping.models import Stepping, Trace  # noqa: F401 (Django finds the rows)


class SteppingKind(practice.PracticeKind):
    name = "stepping"
    panel = True
    label = gettext_lazy("Stepping through")
    styles = ("css/stepping.css",)  # the lesson page's "Step through" buttons
    run_purpose = Run.Purpose.TRACE

    def run_limits(self, run: Run):
        from tutor.practice.stepping import actions

        return actions.trace_limits(run)

    def execute(self, run: Run, limits):
        from tutor.practice.stepping import actions

        return actions.trace_run(run=run, limits=limits)

    def events(self, *, student, limit: int) -> list:
        from tutor.practice.stepping import teaching

        return teaching.events(student=student, limit=limit)

    @property
    def urls(self) -> list:
        from tutor.practice.stepping import views

        return [
            path(
                "snippets/<int:snippet_id>/step-through/",
                views.start_snippet,
                name="stepping_snippet",
            ),
            path(
                "submissions/<int:submission_id>/step-through/",
                views.start_test,
                name="stepping_test",
            ),
            path("trace/<int:stepping_id>/", views.stepping_detail, name="stepping_detail"),
            path("trace/<int:stepping_id>/retry/", views.stepping_retry, name="stepping_retry"),
            path("trace/<int:stepping_id>/step/", views.step_goto, name="step_goto"),
            path(
                "trace/<int:stepping_id>/step/<int:number>/", views.step_detail, name="step_detail"
            ),
            path(
                "trace/<int:stepping_id>/reached/", views.stepping_reached, name="stepping_reached"
            ),
        ]


practice.register(SteppingKind())
