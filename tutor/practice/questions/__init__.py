"""Questions, the learner's side: multiple choice (`choice`), `checkboxes`, `number`, fill
in the blanks (`blanks`) and in code (`code_blanks`, whose filled program the worker runs:
code_runs.py). Each is a block kind of its own (course/kinds/choice.py,
number.py, blanks.py, declared once there); they share this folder since a learner does the
same with each: answer, within a stated number of tries counted on the server, then read
the right answer and the feedback. Here: the rows (models.py), reading an answer
(answers.py), grading (grading.py, pure functions), the answer's action, the learner's
state, the view, what teachers see (teaching.py) and the groups of wrong answers.
"""

from django.db.models import Min
from django.urls import path
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from course.models import Block
from tutor import practice
from tutor.models import Run
from tutor.practice.questions import clusters, code_runs, teaching, variants
from tutor.practice.questions.models import QuestionTries
from tutor.practice.questions.state import states

QUESTION_KINDS = ("choice", "checkboxes", "number", "blanks", "code_blanks")


class QuestionKind(practice.PracticeKind):
    template = "tutor/practice/question.html"
    anchor = "question"
    styles = ("css/questions.css",)
    scripts = ("js/questions.js",)

    def __init__(self, name: str, label: str):
        self.name, self.label = name, label
        if name == "code_blanks":  # a filled program graded by tests: the worker asks this kind
            self.run_purpose = Run.Purpose.TESTS

    def run_limits(self, run):
        return code_runs.test_limits(run)

    def execute(self, run, limits):
        return code_runs.grade_run(run, limits)

    def states(self, blocks, *, user, request=None) -> dict:
        return states(blocks, user=user)

    def settle(self, run) -> None:
        if self.name == "number":
            variants.settle(run)
        elif self.name == "code_blanks" and run.purpose in (Run.Purpose.CHECK, Run.Purpose.TESTS):
            from tutor.quizzes.actions import settle_runs

            settle_runs(run=run)  # a quiz's answers wait for it, graded here, in the worker

    def repair(self) -> int:
        if self.name != "code_blanks":
            return 0
        from tutor.quizzes.actions import settle_runs

        return settle_runs()

    # -- the author's check: every variant of a question that computes its answer computes one

    @property
    def checks_content(self) -> bool:
        return self.name in ("number", "code_blanks", "blanks", "choice", "checkboxes")

    def check_content(self, *, lessons) -> list:
        blocks = (
            Block.objects.filter(lesson__in=lessons, kind=self.name)
            .select_related("lesson__course")
            .order_by("lesson__course__position", "lesson__position", "position")
        )
        if self.name == "code_blanks":  # the solution prints the expected output
            return [code_runs.check_question(block) for block in blocks]
        return [
            variants.check_question(block) for block in blocks
            if variants.computes(block.kind_spec.values_of(block))
        ]

    check_template = "admin/course/lesson/check_outputs_questions.html"

    def queue_content_checks(self, *, lessons) -> list:
        if self.name == "code_blanks":  # checked by `manage.py check_content` only, for now
            return []
        blocks = Block.objects.filter(lesson__in=lessons, kind=self.name).select_related("lesson")
        return variants.queue_checks(blocks.order_by("lesson__position", "position"))

    def queued_words(self, *, queued: list) -> str:
        count = len(queued)
        return ngettext(
            "Computing %(count)s variant of the questions that compute their answer.",
            "Computing %(count)s variants of the questions that compute their answer.",
            count,
        ) % {"count": count}

    def queued_content_checks(self, run_ids: list[int]) -> list:
        return variants.queued_checks(run_ids)

    def check_summary(self, *, wrong: int, total: int) -> str:
        if self.name == "code_blanks":
            if wrong:
                return f"{wrong} of {total} fill-in-the-code questions: the solution does not print the expected output or fails a test (see above)."
            return f"{total} fill-in-the-code question{'' if total == 1 else 's'}: each solution prints the expected output or passes its tests."
        if wrong:
            return f"{wrong} of {total} questions that compute their answer fail for some variant (see above)."
        if self.name != "number":  # blanks, choice, checkboxes: only those with variants
            if not total:
                return ""
            if wrong:
                return f"{wrong} of {total} {self.name} questions with variants fail for some variant (see above)."
            return f"{total} {self.name} question{'' if total == 1 else 's'} with variants: every variant printed its answer."
        printed = "a number"
        if total == 1:
            return f"1 question that computes its answer: every variant printed {printed}."
        return f"{total} questions that compute their answers: every variant printed {printed}."

    def count(self) -> practice.Count:
        block, tries = Block._meta.db_table, QuestionTries._meta.db_table
        kind = f"{self.name}_kind"
        of_lesson = f"b.lesson_id = %(lesson)s AND b.kind = %({kind})s"
        answered = f"""FROM {tries} t JOIN {block} b ON b.id = t.block_id
            WHERE {of_lesson} AND t.user_id = %(user)s AND t.finished_at IS NOT NULL"""
        return practice.Count(
            total=f"SELECT COUNT(*) FROM {block} b WHERE {of_lesson}",
            # Finished: answered right, or every try used (the right answer is then shown).
            done=f"SELECT COUNT(*) {answered}",
            extra=(("right", f"SELECT COUNT(*) {answered} AND t.right_at IS NOT NULL"),),
            params=((kind, self.name),),
        )

    def worked_on(self):
        rows = QuestionTries.objects.filter(block__kind=self.name)
        return rows.values_list("user_id", "block__lesson").distinct()

    def progress_text(self, counts: dict[str, int]) -> str:
        return teaching.progress_words(self.name, counts)

    def done_at(self, *, blocks: list[int], users) -> dict:
        rows = (
            QuestionTries.objects.filter(
                block__in=blocks, block__kind=self.name, user__in=users, finished_at__isnull=False
            )
            .values_list("user_id", "block_id")
            .annotate(at=Min("finished_at"))
        )
        return {(user, block): at for user, block, at in rows}

    def analyses(self, *, in_class, lesson) -> list:
        return teaching.analyses(in_class=in_class, lesson=lesson, kind=self.name)

    def events(self, *, student, limit: int) -> list:
        return teaching.events(student=student, limit=limit, kind=self.name)

    def attempt_rows(self, *, in_class, chunk: int) -> list:
        return teaching.attempt_rows(in_class=in_class, chunk=chunk, kind=self.name)

    def clusters(self, *, in_class, blocks: list) -> dict:
        return clusters.clusters(in_class=in_class, blocks=blocks, kind=self.name)

    def cluster_of(self, state):
        return clusters.cluster_of(state)

    @property
    def urls(self) -> list:
        if self.name != QUESTION_KINDS[0]:
            return []  # one endpoint answers every kind of question
        from tutor.practice.questions import views

        return [path("questions/<int:block_pk>/answer/", views.question_answer, name="question_answer")]


for _name, _label in (
    ("choice", _("Multiple choice questions")),
    ("checkboxes", _("Checkbox questions")),
    ("number", _("Number questions")),
    ("blanks", _("Fill-in-the-blanks questions")),
    ("code_blanks", _("Fill-in-the-code questions")),
):
    practice.register(QuestionKind(_name, _label))
