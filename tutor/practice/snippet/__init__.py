"""Snippets, the learner's side: predict what the code prints, reveal, run and change it.

The content (code, input, declared output) is declared in course/kinds/snippet.py. Here:
the learner's state (state.py), the lesson page's template, how progress counts a
snippet (predicted at all; right the first time), and what teachers see of it.
"""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Min
from django.http import HttpRequest
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from course.kinds.snippet import Snippet
from course.models import Block
from tutor import practice
from tutor.models import Run
from tutor.practice.snippet import actions as predictions
from tutor.practice.snippet import checks, clusters, teaching
from tutor.practice.snippet.models import Prediction
from tutor.practice.snippet.state import practices


class SnippetKind(practice.PracticeKind):
    name = "snippet"
    label = gettext_lazy("Snippets")
    anchor = "snippet"
    template = "tutor/practice/snippet.html"
    analysis_template = "tutor/teaching/kinds/snippet_analysis.html"
    styles = ("css/snippet.css",)
    scripts = ("vendor/editor.bundle.js", "js/snippet.js", "js/trail.js", "js/browser-run.js")

    def states(
        self, blocks: list[Block], *, user: AbstractBaseUser | AnonymousUser, request: HttpRequest | None = None
    ) -> dict[int, object]:
        if not user.is_authenticated:
            return {}
        snippets = [block.snippet for block in blocks if hasattr(block, "snippet")]
        found = practices(user, snippets, run_id=practice.shown_id(request, "run"))
        return {snippet.block_id: found[snippet.pk] for snippet in snippets}

    def settle(self, run: Run) -> None:
        predictions.settle_predictions_for_run(run=run)

    def repair(self) -> int:
        waiting = Prediction.objects.pending().values_list("snippet_id", flat=True)
        given = 0
        for snippet in Snippet.objects.filter(pk__in=waiting).select_related("block"):
            run = Run.objects.reveals_of(snippet).final().order_by("-created_at", "-pk").first()
            if run is not None:
                given += len(predictions.settle_predictions_for_run(run=run))
        return given

    def analyses(self, *, in_class, lesson) -> list:
        return teaching.analyses(in_class=in_class, lesson=lesson)

    def events(self, *, student, limit: int) -> list:
        return teaching.events(student=student, limit=limit)

    def attempt_rows(self, *, in_class, chunk: int) -> list:
        return teaching.attempt_rows(in_class=in_class, chunk=chunk)

    def clusters(self, *, in_class, blocks: list) -> dict:
        return clusters.clusters(in_class=in_class, blocks=blocks)

    # -- the author's check: each snippet, fed its input, prints what it declares

    checks_content = True
    check_template = "admin/course/lesson/check_outputs_snippets.html"

    def check_content(self, *, lessons) -> list:
        return checks.check_snippets(checks.snippets_in_order().filter(block__lesson__in=lessons))

    def check_summary(self, *, wrong: int, total: int) -> str:
        if wrong:
            return f"{wrong} of {total} snippets print something else than declared."
        return f"All {total} snippets print what they declare, and end as declared."

    def queue_content_checks(self, *, lessons) -> list:
        snippets = checks.snippets_in_order().filter(block__lesson__in=lessons)
        return checks.queue_content_checks(snippets=snippets)

    def queued_words(self, *, queued: list) -> str:
        return ngettext(
            "Checking %(count)s snippet in the worker.",
            "Checking %(count)s snippets in the worker.",
            len(queued),
        ) % {"count": len(queued)}

    def queued_content_checks(self, run_ids: list[int]) -> list:
        return [checks.SnippetCheck.of_run(run) for run in checks.content_check_runs(run_ids)]

    def cluster_of(self, state):
        return clusters.cluster_of(state)

    def worked_on(self):
        for model in (Prediction, Run):
            rows = model.objects.filter(user__isnull=False, snippet__block__lesson__isnull=False)
            yield from rows.values_list("user_id", "snippet__block__lesson").distinct()

    def progress_text(self, counts: dict[str, int]) -> str:
        """How many right first time once every snippet of the lesson is predicted, as
        "x of y": one prediction says nothing yet (as My progress's accuracy waits for a
        handful), and "(0 right first time)" after the first read as a verdict on the lesson."""
        done, total = counts["done"], counts["total"]
        text = ngettext(
            "%(done)d of %(total)d snippet predicted", "%(done)d of %(total)d snippets predicted", total
        ) % {"done": done, "total": total}
        if done and done >= total:
            right = min(counts.get("right", 0), done)
            text += " " + _("(%(right)d of %(done)d right first time)") % {"right": right, "done": done}
        return text

    def done_at(self, *, blocks: list[int], users) -> dict:
        # Predicted at all, as progress counts it: the first prediction given a verdict.
        rows = (
            Prediction.objects.filter(snippet__block__in=blocks, user__in=users)
            .exclude(verdict=Prediction.Verdict.PENDING)
            .values_list("user_id", "snippet__block_id")
            .annotate(at=Min("created_at"))
        )
        return {(user, block): at for user, block, at in rows}

    @property
    def urls(self) -> list:
        from tutor.practice.snippet import views

        return [
            path("snippets/<int:snippet_id>/predict/", views.prediction_create, name="prediction_create"),
            path("predictions/<int:prediction_id>/", views.prediction_detail, name="prediction_detail"),
            path("predictions/<int:prediction_id>/retry/", views.reveal_retry, name="reveal_retry"),
            path("predictions/<int:prediction_id>/self-check/", views.self_check, name="self_check"),
            path("snippets/<int:snippet_id>/runs/", views.run_create, name="run_create"),
            path("runs/<int:run_id>/", views.run_detail, name="run_detail"),
            path("snippets/<int:snippet_id>/runs/in-browser/", views.browser_runs_record, name="browser_runs_record"),
            path("run-in-browser/python.json", views.browser_python_modules, name="browser_python"),
            path("snippets/<int:snippet_id>/draft/", views.draft_save, name="draft_save"),
        ]

    def count(self) -> practice.Count:
        snippet, block = Snippet._meta.db_table, Block._meta.db_table
        prediction, run = Prediction._meta.db_table, Run._meta.db_table
        of_lesson = f"JOIN {block} b ON b.id = s.block_id WHERE b.lesson_id = %(lesson)s"
        predictions = (
            f"FROM {prediction} p JOIN {snippet} s ON s.id = p.snippet_id {of_lesson} "
            "AND p.user_id = %(user)s AND p.verdict <> %(snippet_pending)s"
        )
        return practice.Count(
            total=f"SELECT COUNT(*) FROM {snippet} s {of_lesson}",
            # Predicted at all (a verdict given): what makes a snippet done.
            done=f"SELECT COUNT(DISTINCT p.snippet_id) {predictions}",
            extra=(
                # The first prediction on the current version, right (or honestly so).
                ("right", f"""SELECT COUNT(*) {predictions} AND p.is_first = %(snippet_true)s
                    AND p.snippet_version = s.version
                    AND p.verdict IN (%(snippet_right)s, %(snippet_self_right)s)"""),
                ("runs", f"""SELECT COUNT(*) FROM {run} r JOIN {snippet} s ON s.id = r.snippet_id
                    {of_lesson} AND r.user_id = %(user)s AND r.purpose = %(snippet_purpose)s"""),
            ),
            params=(
                ("snippet_pending", Prediction.Verdict.PENDING.value),
                ("snippet_true", True),
                ("snippet_right", Prediction.Verdict.RIGHT.value),
                ("snippet_self_right", Prediction.Verdict.SELF_RIGHT.value),
                ("snippet_purpose", Run.Purpose.RUN.value),
            ),
            columns=(
                ("total", "snippets_total"), ("done", "snippets_predicted"),
                ("right", "predictions_right"), ("runs", "runs"),
            ),
        )


practice.register(SnippetKind())
