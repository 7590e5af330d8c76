"""Write code: a Modify or Make exercise, graded by tests in the sandbox (tutor app).

Its content is a CodeExercise row beside the block — the prompt is the block's body, the
starter code learners begin from (a snippet's code for Modify, a skeleton or nothing for
Make), a reference solution that never reaches a learner — and one CodeTest per test, kept
by key so a re-import updates them in place. A test is an I/O case (its `stdin` and
`args` in, its `stdout` expected) or a check (Python asserts run after the learner's code,
which may call the learner's functions). A test is `visible` (shown before submitting) or
`hidden` (learners see only that it passed or failed, and what it checked once they have
solved the exercise).

The content models live here with the kind, not in course/models.py: one place per kind.
"""

from django.db import models
from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, hints_field, register
from course.kinds.fields import Choice, Items, Limits, Slug, Text, TextList
from course.models import RUN_LIMITS, RUN_LIMITS_HELP, Block


class CodeExercise(models.Model):
    block = models.OneToOneField(Block, on_delete=models.CASCADE, related_name="code_exercise")
    starter = models.TextField(
        blank=True, help_text="The code learners start from: empty for Make, a program to change for Modify."
    )
    solution = models.TextField(
        help_text="A reference solution: it must pass every test. Never shown to learners."
    )
    run_limits = models.JSONField(default=dict, blank=True, help_text=RUN_LIMITS_HELP)

    class Meta:
        app_label = "course"
        verbose_name = "code exercise"

    def __str__(self) -> str:
        return self.title

    @property
    def key(self) -> str:
        return self.block.key

    @property
    def title(self) -> str:
        return self.block.title or self.block.key


class CodeTest(models.Model):
    class Shown(models.TextChoices):
        VISIBLE = "visible", "Visible: shown before submitting"
        HIDDEN = "hidden", "Hidden: only whether it passed, until solved"

    exercise = models.ForeignKey(CodeExercise, on_delete=models.CASCADE, related_name="tests")
    key = models.SlugField(max_length=100)
    name = models.CharField(max_length=200, help_text="What learners read: “works for an empty list”.")
    shown = models.CharField(max_length=10, choices=Shown.choices, default=Shown.VISIBLE)
    position = models.PositiveIntegerField(default=0)
    stdin = models.TextField("input", blank=True)
    args = models.JSONField(default=list, blank=True, help_text="Command-line arguments (sys.argv[1:]).")
    stdout = models.TextField("expected output", blank=True)
    check_code = models.TextField(
        "check",
        blank=True,
        help_text="Python run after the learner's code, e.g. assert total([1, 2]) == 3. "
        "Empty: an I/O case, graded on its output.",
    )

    class Meta:
        app_label = "course"
        ordering = ["position", "pk"]
        constraints = [models.UniqueConstraint(fields=["exercise", "key"], name="one_test_per_key")]

    def __str__(self) -> str:
        return self.name

    @property
    def hidden(self) -> bool:
        return self.shown == self.Shown.HIDDEN

    @property
    def is_check(self) -> bool:
        return bool(self.check_code.strip())


def _test_field(name: str):
    return CodeTest._meta.get_field(name)


def tests_field(*, required: bool = True, help_text: str = "") -> Items:
    """A list of tests, as an exercise declares them (a fill-in-the-code question too)."""
    return Items(
        "tests",
        required=required,
        item="test",
        fields=(
            Slug("key", required=True, label="test key"),
            Text("name", required=True, model_field=_test_field("name")),
            Choice("shown", model_field=_test_field("shown"), optional=True),
            Text("stdin"),
            TextList("args", item="argument"),
            Text("stdout"),
            Text("check"),
        ),
        help_text=help_text,
    )


def check_tests(reading, tests: list) -> None:
    """Each test's key unique, and each test a check or an I/O case, not both."""
    seen: dict[str, int] = {}
    for test in tests:
        key = test["key"]
        if key and key in seen:
            reading.error(
                test.line_of("key"),
                f"test key '{key}' is already used on line {seen[key]}: keys must be unique "
                "in an exercise",
            )
        elif key:
            seen[key] = test.line_of("key")
        has_check = bool(test["check"].strip())
        has_io = bool(test["stdout"] or test["stdin"] or test["args"])
        if has_check == has_io:
            reading.error(
                test.line,
                f"test '{key}' must be either a check (`check:` with asserts) or an I/O "
                "case (`stdout:`, with `stdin:` or `args:` if it needs them), not "
                + ("both" if has_check else "neither"),
            )


class CodeExerciseKind(BlockKind):
    def check(self, reading, values) -> None:
        check_tests(reading, values["tests"])

    def give_aways(self, values) -> list[tuple[str, str]]:
        return [("the solution", values["solution"])]

    def values_from_admin(self, block, rows) -> dict | None:
        if not rows.get("code_exercise"):
            return None
        exercise = rows["code_exercise"][0]
        tests = sorted(exercise.get("tests", []), key=lambda test: test.get("position") or 0)
        return {
            **super().values_from_admin(block, rows),
            "starter": exercise["starter"], "solution": exercise["solution"],
            "tests": [
                {
                    "key": test["key"], "name": test["name"], "shown": test["shown"],
                    "stdin": test["stdin"], "args": list(test["args"] or []),
                    "stdout": test["stdout"], "check": test["check_code"],
                }
                for test in tests
            ],
            "limits": exercise["run_limits"],
        }

    def values_of(self, block) -> dict:
        exercise = block.code_exercise
        return {
            **super().values_of(block),
            "starter": exercise.starter,
            "solution": exercise.solution,
            "tests": [
                {
                    "key": test.key, "name": test.name, "shown": test.shown, "stdin": test.stdin,
                    "args": list(test.args), "stdout": test.stdout, "check": test.check_code,
                }
                for test in exercise.tests.all()
            ],
            "limits": exercise.run_limits,
        }

    def content_of(self, block) -> CodeExercise | None:
        return getattr(block, "code_exercise", None)

    def store(self, block, values, saving, path) -> None:
        old = self.content_of(block)
        exercise = saving.save(
            CodeExercise,
            {block.pk: old} if old is not None else {},
            block.pk,
            {"starter": values["starter"], "solution": values["solution"], "run_limits": values["limits"]},
            block=block,
        )
        existing = {test.key: test for test in exercise.tests.all()}
        for position, test in enumerate(values["tests"], start=1):
            saving.save(
                CodeTest,
                existing,
                test["key"],
                {
                    "name": test["name"], "shown": test["shown"], "position": position,
                    "stdin": test["stdin"], "args": list(test["args"]), "stdout": test["stdout"],
                    "check_code": test["check"],
                },
                exercise=exercise,
                key=test["key"],
            )
        for key, test in existing.items():  # saving.save took the kept ones out
            saving.delete(
                test,
                path,
                f"test '{key}' of exercise '{block.key}' is gone from the file, but "
                "{work} points at it: put it back with the same key",
            )

    def reading_texts(self, block) -> list[str]:
        """None: an exercise takes the time of doing it, which its reading would not say
        (the lesson's "About N min of reading" stays the reading)."""
        return []


def admin_inline():
    """The exercise, with its tests, edited in place on the lesson's admin page."""
    import nested_admin

    from course.forms import ContentForm, ContentFormSet, KeepsTextExactly

    class CodeTestInline(KeepsTextExactly, nested_admin.NestedStackedInline):
        model = CodeTest
        form = ContentForm  # its rules across fields are the kind's `check` (course.forms)
        formset = ContentFormSet
        fields = [("position", "key", "shown"), "name", "check_code", "stdin", "args", "stdout"]
        extra = 0
        classes = ["code-tests"]

    class CodeExerciseInline(KeepsTextExactly, nested_admin.NestedStackedInline):
        model = CodeExercise
        formset = ContentFormSet
        fields = ["starter", "solution", "run_limits"]
        extra = 0
        inlines = [CodeTestInline]

    return CodeExerciseInline


register(
    CodeExerciseKind(
        name="code_exercise",
        label=gettext_lazy("Write code"),
        template="course/blocks/code_exercise.html",
        fields=(
            *common_fields(),
            Text("starter", quoted=False),
            Text("solution", required=True),
            tests_field(),
            Limits("limits", names=RUN_LIMITS),
            hints_field(),
        ),
        needs_key=True,
        page_select=("code_exercise",),
        page_prefetch=("code_exercise__tests",),
        content_models=(CodeExercise, CodeTest),
        noun="exercise",
        example={
            "solution": "def one():\n    return 1\n",
            "tests": [{"key": "one", "name": "gives 1", "check": "assert one() == 1"}],
        },
        wrong_examples=(
            (
                {"tests": [{"key": "one", "name": "gives 1", "check": "assert one() == 1", "stdout": "1"}]},
                "test 'one' must be either a check (`check:` with asserts) or an I/O case",
            ),
            (
                {"hints": ["A function that gives back a number.", "Write `def one(): return 1`."]},
                "gives the answer away: it contains the solution",
            ),
        ),
        search_lookups=("code_exercise__tests__name",),
        admin_inline=admin_inline,
    )
)
