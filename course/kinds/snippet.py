"""Snippet: code a learner predicts the output of, then reveals and runs (tutor app).

Its content is a Snippet row beside the block; learners' predictions, drafts and runs
point at that row, so it is updated in place and never silently replaced. A snippet may
read input (`stdin`) and may fail on purpose (`raises`): its `output` is then what it
prints before the exception it ends with.
"""

from django.db import models
from django.utils.translation import gettext_lazy

from course.kinds import BlockKind, common_fields, register
from course.kinds.fields import Limits, Name, Text
from course.models import (
    EXCEPTION_NAME,
    RUN_LIMITS,
    RUN_LIMITS_HELP,
    Block,
    validate_exception_name,
    validate_run_limits,
)


class Snippet(models.Model):
    block = models.OneToOneField(Block, on_delete=models.CASCADE, related_name="snippet")
    caption = models.CharField(max_length=300, blank=True)
    language = models.CharField(max_length=30, default="python")
    code = models.TextField()
    stdin = models.TextField(
        "input",
        blank=True,
        help_text="Fed to the program as its input (what input() reads); shown with the code.",
    )
    expected_output = models.TextField(
        blank=True,
        help_text="What the code prints, exactly (leading empty lines count); for a program "
        "that fails on purpose, what it prints before it fails.",
    )
    raises = models.CharField(
        "ends with the exception",
        max_length=100,
        blank=True,
        validators=[validate_exception_name],
        help_text="For a program that fails on purpose: the exception it ends with, "
        "e.g. ZeroDivisionError. Empty: it must finish without an error.",
    )
    version = models.PositiveIntegerField(
        default=1,
        help_text="Goes up whenever the code or its input changes; predictions keep the one "
        "they saw.",
    )
    run_limits = models.JSONField(
        default=dict,
        blank=True,
        validators=[validate_run_limits],
        help_text=RUN_LIMITS_HELP + " Set here, they win over the course's.",
    )

    class Meta:
        app_label = "course"

    def __str__(self) -> str:
        return f"{self.block.lesson} · {self.block.key}"

    def save(self, *args, **kwargs) -> None:
        # What the learner predicts from is the code and its input: a new version when
        # either changes, so earlier predictions keep the version they answered.
        if self.pk is not None:
            old = Snippet.objects.filter(pk=self.pk).values_list("code", "stdin").first()
            if old is not None and old != (self.code, self.stdin):
                self.version += 1
        super().save(*args, **kwargs)

    def raised(self, name: str) -> bool:
        """Whether the exception Python printed as `name` is the one this snippet declares.
        Only the class name counts: Python prints `json.decoder.JSONDecodeError` for what an
        author knows as `json.JSONDecodeError`, or just `JSONDecodeError`."""
        return bool(self.raises) and name.rpartition(".")[2] == self.raises.rpartition(".")[2]

    @property
    def key(self) -> str:
        return self.block.key

    @property
    def title(self) -> str:
        """What teachers read for this snippet: its caption, else the block's title, else its key."""
        return self.caption or self.block.title or self.block.key

def _field(name: str):
    return Snippet._meta.get_field(name)


class SnippetKind(BlockKind):
    def values_of(self, block) -> dict:
        snippet = block.snippet
        return {
            **super().values_of(block),
            "caption": snippet.caption,
            "language": snippet.language,
            "code": snippet.code,
            "stdin": snippet.stdin,
            "output": snippet.expected_output,
            "raises": snippet.raises,
            "limits": snippet.run_limits,
        }

    def values_from_admin(self, block, rows) -> dict | None:
        if not rows.get("snippet"):
            return None
        snippet = rows["snippet"][0]
        return {
            "title": block.get("title") or "", "body": block.get("body") or "",
            "caption": snippet["caption"], "language": snippet["language"],
            "code": snippet["code"], "stdin": snippet["stdin"],
            "output": snippet["expected_output"], "raises": snippet["raises"],
            "limits": snippet["run_limits"],
        }

    def content_of(self, block) -> Snippet | None:
        return getattr(block, "snippet", None)

    def store(self, block, values, saving, path) -> None:
        old = self.content_of(block)
        saving.save(
            Snippet,
            {block.pk: old} if old is not None else {},
            block.pk,
            {
                "caption": values["caption"],
                "language": values["language"] or "python",
                "code": values["code"],
                "stdin": values["stdin"],
                "expected_output": values["output"],
                "raises": values["raises"],
                "run_limits": values["limits"],
            },
            block=block,
        )

    def output_to_predict(self, block) -> str | None:
        snippet = self.content_of(block)
        return snippet.expected_output if snippet is not None else None

    def reading_texts(self, block) -> list[str]:
        return [*super().reading_texts(block), block.snippet.caption]


def admin_inline():
    """The snippet, edited in place on the lesson's admin page (and on its own page)."""
    import nested_admin

    from course.forms import ChecksLikeTheFiles, ContentFormSet, KeepsTextExactly

    class SnippetForm(ChecksLikeTheFiles):
        what = "a snippet block"
        file_names = {"output": "expected_output"}

        def file_fields(self, data):
            return SNIPPET.fields

    class SnippetInline(KeepsTextExactly, nested_admin.NestedStackedInline):
        model = Snippet
        form = SnippetForm
        formset = ContentFormSet
        fields = [
            "caption", "language", "code", "stdin", "expected_output", "raises", "run_limits",
            "version",
        ]
        readonly_fields = ["version"]
        extra = 0

    return SnippetInline


SNIPPET = register(
    SnippetKind(
        name="snippet",
        label=gettext_lazy("Snippet"),
        template="course/blocks/snippet.html",
        fields=(
            *common_fields(),
            Text("caption", model_field=_field("caption")),
            Text("language", model_field=_field("language"), fallback="python", always=True),
            Text("code", required=True),
            Text("stdin"),
            Text("output"),
            Name(
                "raises",
                pattern=EXCEPTION_NAME,
                model_field=_field("raises"),
                meaning="an exception's name as Python prints it, e.g. ZeroDivisionError",
            ),
            Limits("limits", names=RUN_LIMITS),
        ),
        needs_key=True,
        page_select=("snippet",),
        page_prefetch=(),
        content_models=(Snippet,),
        noun="snippet",
        admin_inline=admin_inline,
        example={"code": "print(1)\n", "output": "1\n"},
        wrong_examples=(({"code": "   "}, "'code' must not be empty"),),
        search_lookups=("snippet__caption",),
    )
)
