"""Put it in order: a Parsons problem (tutor app does the arranging and grading).

Its content is an OrderingExercise row beside the block, with one OrderingLine per line
(in the solution's order) and per distractor (no position). Lines are kept by key, so a
re-import updates them in place.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from course.content_files.errors import did_you_mean
from course.kinds import BlockKind, common_fields, hints_field, register
from course.kinds.fields import Choice, Items, Lined, LinedDict, Slug, SlugList, Text
from course.models import Block, linked_in_order, title_from_intro


class OrderingExercise(models.Model):
    class Grading(models.TextChoices):
        EXACT = "exact", _("The exact order")
        DEPENDENCIES = "dependencies", _("Any order that respects the dependencies")
        OUTPUT = "output", _("Run the program and compare its output")

    block = models.OneToOneField(
        Block, on_delete=models.CASCADE, related_name="ordering_exercise", verbose_name=_("block")
    )
    intro = models.TextField(blank=True, help_text=_("Markdown."), verbose_name=_("intro"))
    grading = models.CharField(
        max_length=20, choices=Grading.choices, default=Grading.EXACT, verbose_name=_("grading")
    )
    expected_output = models.TextField(
        blank=True, help_text=_("For output grading."), verbose_name=_("expected output")
    )

    class Meta:
        verbose_name = _("ordering exercise")
        verbose_name_plural = _("ordering exercises")
        app_label = "course"

    def __str__(self) -> str:
        return f"{self.block.lesson} · {self.block.key}"

    @property
    def key(self) -> str:
        return self.block.key

    @property
    def title(self) -> str:
        """What teachers read for this exercise: the block's title, else one made from the
        intro, else its key."""
        return self.block.title or title_from_intro(self.intro) or self.block.key


class OrderingLine(models.Model):
    exercise = models.ForeignKey(
        OrderingExercise, on_delete=models.CASCADE, related_name="lines", verbose_name=_("exercise")
    )
    key = models.SlugField(verbose_name=_("key"))
    text = models.TextField(
        help_text=_("The line as written, indentation included."), verbose_name=_("text")
    )
    position = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("Place in the correct order; empty for a distractor."),
        verbose_name=_("position"),
    )
    depends_on = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="required_by",
        help_text=_("Lines that must come before this one (dependency grading)."),
        verbose_name=_("depends on"),
    )

    class Meta:
        verbose_name = _("ordering line")
        verbose_name_plural = _("ordering lines")
        app_label = "course"
        ordering = [models.F("position").asc(nulls_last=True), "pk"]
        constraints = [
            models.UniqueConstraint(fields=["exercise", "key"], name="line_key_unique_in_exercise")
        ]

    def __str__(self) -> str:
        return self.text

    @property
    def is_distractor(self) -> bool:
        return self.position is None


class OrderingKind(BlockKind):
    def check(self, reading, values) -> None:
        lines, distractors = values["lines"], values["distractors"]
        seen: dict[str, int] = {}
        for item in [*lines, *distractors]:
            key = item["key"]
            if not key:
                continue
            if key in seen:
                reading.error(
                    item.line_of("key"),
                    f"line key '{key}' is already used on line {seen[key]}: "
                    "keys must be unique in an exercise",
                )
            else:
                seen[key] = item.line_of("key")
        check_dependencies(reading, lines, {item["key"] for item in distractors})

    def give_aways(self, values) -> list[tuple[str, str]]:
        lines = [line["text"] for line in values["lines"]]
        return (
            [("every line of the solution, in order", "\n".join(lines))] if len(lines) > 1 else []
        )

    def values_from_admin(self, block, rows) -> dict | None:
        if not rows.get("ordering_exercise"):
            return None
        exercise = rows["ordering_exercise"][0]
        placed = sorted(
            (line for line in exercise.get("lines", []) if line.get("position") is not None),
            key=lambda line: line["position"],
        )
        return {
            **super().values_from_admin(block, rows),
            "intro": exercise["intro"],
            "grading": exercise["grading"],
            "expected_output": exercise["expected_output"],
            "lines": [
                {
                    "key": line["key"],
                    "text": line["text"],
                    "depends_on": [other.key for other in line.get("depends_on") or ()],
                }
                for line in placed
            ],
            "distractors": [
                {"key": line["key"], "text": line["text"]}
                for line in exercise.get("lines", [])
                if line.get("position") is None
            ],
        }

    def values_of(self, block) -> dict:
        exercise = block.ordering_exercise
        lines, distractors = [], []
        for line in exercise.lines.all():
            if line.is_distractor:
                distractors.append({"key": line.key, "text": line.text})
            else:
                depends_on = [other.key for other in linked_in_order(line.depends_on)]
                lines.append({"key": line.key, "text": line.text, "depends_on": depends_on})
        return {
            **super().values_of(block),
            "intro": exercise.intro,
            "grading": exercise.grading,
            "lines": lines,
            "distractors": distractors,
            "expected_output": exercise.expected_output,
        }

    def content_of(self, block) -> OrderingExercise | None:
        return getattr(block, "ordering_exercise", None)

    def show_values(self, block, values) -> None:
        super().show_values(block, values)
        block.ordering_exercise.intro = values["intro"]

    def store(self, block, values, saving, path) -> None:
        old = self.content_of(block)
        exercise = saving.save(
            OrderingExercise,
            {block.pk: old} if old is not None else {},
            block.pk,
            {
                "intro": values["intro"],
                "grading": values["grading"],
                "expected_output": values["expected_output"],
            },
            block=block,
        )
        existing = {line.key: line for line in exercise.lines.all()}
        rows = {}
        numbered = [
            *enumerate(values["lines"], start=1),
            *((None, item) for item in values["distractors"]),
        ]
        for position, item in numbered:
            rows[item["key"]] = saving.save(
                OrderingLine,
                existing,
                item["key"],
                {"text": item["text"], "position": position},
                exercise=exercise,
                key=item["key"],
            )
        for _position, item in numbered:
            line = rows[item["key"]]
            depends_on = [rows[key] for key in item.get("depends_on", [])]
            saving.set_in_order(line, line.depends_on, depends_on)
        for line in existing.values():
            saving.delete(
                line,
                path,
                f"line '{line.key}' of exercise '{block.key}' is gone from the file, but "
                "{work} points at it: put it back with the same key",
            )

    def reading_texts(self, block) -> list[str]:
        return [*super().reading_texts(block), block.ordering_exercise.intro]


def check_dependencies(reading, lines: list[dict], distractors: set[str]) -> None:
    position = {item["key"]: n for n, item in enumerate(lines) if item["key"]}
    graph: dict[str, list[str]] = {}
    for item in lines:
        key = item["key"]
        if not key:
            continue
        graph[key] = []
        for other in item["depends_on"]:
            line = other.line if isinstance(other, Lined) else item.line_of("depends_on")
            if other == key:
                reading.error(line, f"line '{other}' cannot depend on itself")
            elif other in distractors:
                reading.error(line, f"'{other}' is a distractor: no line can depend on it")
            elif other not in position:
                reading.error(
                    line,
                    f"depends_on '{other}' is not a line of this exercise"
                    f"{did_you_mean(other, position)}",
                )
            else:
                graph[key].append(other)
    cycle = find_cycle(graph)
    if cycle:
        first = min(cycle, key=position.__getitem__)
        start = cycle.index(first)
        loop = [*cycle[start:], *cycle[:start], first]
        line = next(item.line_of("key") for item in lines if item["key"] == first)
        reading.error(line, f"depends_on cycle: {' -> '.join(loop)}; no order could satisfy it")
        return
    for item in lines:
        for other in graph.get(item["key"], []):
            if position[other] > position[item["key"]]:
                reading.error(
                    other.line,
                    f"line '{item['key']}' depends on '{other}', which comes after it: "
                    "list the lines in an order that works",
                )


def find_cycle(graph: dict[str, list[str]]) -> list[str]:
    """One cycle of the graph, as a list of nodes, or [] when there is none."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for other in graph.get(node, []):
            if state.get(other) == 1:
                return path[path.index(other) :]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in graph:
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


_line_key = Slug("key", required=True, label="line key", verbose_name=_("Key"))
_line_text = Text("text", required=True, quoted=True, verbose_name=_("Text"))


def admin_inline():
    """The exercise with its lines, edited in place on the lesson's admin page (and on its
    own page): the lines' table keeps the exercise's rules (`check`) and the keys learners'
    attempts name."""
    import nested_admin
    from django import forms
    from django.db.models import F

    from course.forms import ChecksLikeTheFiles, ContentFormSet, KeepsTextExactly, Problems
    from course.learner_work import learner_work

    class OrderingExerciseForm(ChecksLikeTheFiles):
        what = "an ordering block"

        def file_fields(self, data):
            return ORDERING.fields

    class OrderingLineForm(ChecksLikeTheFiles):
        """A line of the solution has a place; a distractor is ticked as one, and has none."""

        what = "a line"
        distractor = forms.BooleanField(
            label=_("Distractor (not part of the solution)"),
            required=False,
            help_text=_("A wrong line offered with the others; learners should leave it out."),
        )

        def __init__(self, *args, solution=None, **kwargs):
            super().__init__(*args, **kwargs)
            self.fields["distractor"].initial = (
                self.instance.pk is not None and self.instance.is_distractor
            )
            if "position" in self.fields:
                self.fields["position"].label = _("Place in the solution")
                self.fields["position"].help_text = ""
            if "depends_on" in self.fields:
                # The other lines of the same solution, by key (not every line of every
                # exercise; never a distractor, which no line may depend on).
                choices = self.fields["depends_on"]
                lines = OrderingLine.objects.filter(
                    exercise_id=self.instance.exercise_id, position__isnull=False
                )
                choices.queryset = lines.exclude(pk=self.instance.pk).order_by("position", "pk")
                choices.label_from_instance = lambda line: line.key
                if solution is None:  # a form of its own, not one of its formset's
                    shown = choices.choices
                else:  # the exercise's solution lines, read once for all its lines' forms
                    shown = [
                        (line.pk, line.key) for line in solution if line.pk != self.instance.pk
                    ]
                choices.widget = forms.CheckboxSelectMultiple(choices=shown)

        def file_fields(self, data):
            return ORDERING.field("lines").fields

        def clean(self):
            data = super().clean()
            if data.get("distractor"):
                data["position"] = None
            elif data.get("position") is None and not data.get("DELETE"):
                self.add_error(
                    "position", "Give the line its place in the solution, or tick Distractor."
                )
            return data

    class OrderingLineFormSet(ContentFormSet):
        """Learners' attempts name lines by key: a line they name keeps its key."""

        def get_form_kwargs(self, index):
            if not hasattr(self, "_solution"):
                exercise = self.instance
                self._solution = (
                    list(exercise.lines.filter(position__isnull=False).order_by("position", "pk"))
                    if exercise.pk is not None
                    else []
                )
            return {**super().get_form_kwargs(index), "solution": self._solution}

        def clean(self):
            super().clean()
            renamed = {
                form.instance.pk: form
                for form in self.forms
                if form.instance.pk is not None and "key" in form.changed_data
            }
            stored = self.model._default_manager.filter(pk__in=renamed)
            for work in learner_work(list(stored)):
                renamed[work.row.pk].add_error(
                    "key",
                    f"{work} names this line by its key '{work.row.key}': keep the key "
                    "(you may change the text).",
                )
            self.check_like_the_files()

        def check_like_the_files(self) -> None:
            """The exercise's own rules from the files (keys unique, dependencies on earlier lines
            of the solution, no cycle); "line N" is the line's row in this table."""
            lines, distractors = [], []
            for row, form in enumerate(self.forms, start=1):
                data = getattr(form, "cleaned_data", None)
                if not data or data.get("DELETE") or not data.get("key"):
                    continue
                item = LinedDict(key=Lined.at(data["key"], row))
                item.line, item.lines = row, {}
                if data.get("position") is None:
                    distractors.append(item)
                    continue
                item["depends_on"] = [
                    Lined.at(other.key, row) for other in data.get("depends_on", [])
                ]
                lines.append((data["position"], row, item))
            problems = Problems()
            ORDERING.check(
                problems,
                {
                    "lines": [item for _, _, item in sorted(lines, key=lambda found: found[:2])],
                    "distractors": distractors,
                },
            )
            if problems.messages:
                raise forms.ValidationError(problems.messages)

    class OrderingLineInline(KeepsTextExactly, nested_admin.NestedTabularInline):
        model = OrderingLine
        form = OrderingLineForm
        formset = OrderingLineFormSet
        fk_name = "exercise"
        fields = ["position", "distractor", "key", "text", "depends_on"]
        extra = 0
        ordering = [F("position").asc(nulls_last=True), "pk"]
        classes = ["ordering-lines"]

        def get_queryset(self, request):
            return super().get_queryset(request).prefetch_related("depends_on")

        def formfield_for_dbfield(self, db_field, request, **kwargs):
            if db_field.name == "text":
                # One line of code: a one-row monospace box, not a page-wide textarea.
                kwargs["widget"] = forms.Textarea(attrs={"rows": 1, "class": "code-field"})
            return super().formfield_for_dbfield(db_field, request, **kwargs)

    class OrderingExerciseInline(KeepsTextExactly, nested_admin.NestedStackedInline):
        model = OrderingExercise
        form = OrderingExerciseForm
        formset = ContentFormSet
        fields = ["intro", "grading", "expected_output"]
        extra = 0
        inlines = [OrderingLineInline]

    return OrderingExerciseInline


ORDERING = register(
    OrderingKind(
        name="ordering",
        label=_("Put it in order"),
        template="course/blocks/ordering.html",
        fields=(
            *common_fields(),
            Text("intro", markdown=True, verbose_name=_("Intro"), translatable=True),
            Choice(
                "grading",
                model_field=OrderingExercise._meta.get_field("grading"),
                verbose_name=_("Grading"),
            ),
            Items(
                "lines",
                required=True,
                item="line",
                fields=(
                    _line_key,
                    _line_text,
                    SlugList("depends_on", item="depends_on entry", flow=True),
                ),
                verbose_name=_("Lines"),
            ),
            Items(
                "distractors",
                item="distractor",
                fields=(_line_key, _line_text),
                verbose_name=_("Distractors"),
            ),
            Text("expected_output", verbose_name=_("Expected output")),
            hints_field(),
        ),
        needs_key=True,
        page_select=("ordering_exercise",),
        page_prefetch=("ordering_exercise__lines",),
        content_models=(OrderingExercise, OrderingLine),
        noun="ordering exercise",
        admin_inline=admin_inline,
        example={
            "lines": [
                {"key": "set", "text": "x = 1"},
                {"key": "show", "text": "print(x)", "depends_on": ["set"]},
            ],
        },
        wrong_examples=(
            (
                {
                    "lines": [
                        {"key": "set", "text": "x = 1", "depends_on": ["show"]},
                        {"key": "show", "text": "print(x)"},
                    ]
                },
                "line 'set' depends on 'show', which comes after it: list the lines in an "
                "order that works",
            ),
        ),
    )
)
