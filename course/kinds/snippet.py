"""Snippet: code a learner predicts the output of, then reveals and runs (tutor app).

Its content is a Snippet row beside the block; learners' predictions, drafts and runs
point at that row, so it is updated in place and never silently replaced. A snippet may
read input (`stdin`) and may fail on purpose (`raises`): its `output` is then what it
prints before the exception it ends with.
"""

from course.kinds import BlockKind, common_fields, register
from course.kinds.fields import Limits, Name, Text
from course.models import EXCEPTION_NAME, RUN_LIMITS, Snippet


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


register(
    SnippetKind(
        name="snippet",
        label="Snippet",
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
        example={"code": "print(1)\n", "output": "1\n"},
        wrong_examples=(({"code": "   "}, "'code' must not be empty"),),
        search_lookups=("snippet__caption",),
    )
)
