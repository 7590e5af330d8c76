import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from ruamel.yaml import YAML

from course.kinds.ordering import OrderingExercise, OrderingLine
from course.kinds.snippet import Snippet
from course.models import (
    Block,
    Course,
    GlossaryTerm,
    Lesson,
)
from tests.factories import make_user
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db

SHIPPED = Path(settings.BASE_DIR) / "content"
SEED = "local-models/optimising-speed-and-memory.yaml"
DEPLOYING = "local-models/deploying-a-private-model-safely.yaml"


@pytest.fixture
def content(tmp_path) -> Path:
    """A copy of the shipped content that a test may edit."""
    return Path(shutil.copytree(SHIPPED, tmp_path / "content"))


def read_yaml(text: str):
    return YAML(typ="safe", pure=True).load(text)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1))


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def import_content(directory: Path, **options) -> str:
    out = StringIO()
    call_command("import_content", str(directory), stdout=out, **options)
    return out.getvalue()


def dump() -> dict:
    """Everything the content files describe, without database ids."""
    courses = []
    for course in Course.objects.order_by("slug"):
        lessons = []
        for lesson in course.lessons.order_by("position"):
            blocks = []
            for block in lesson.blocks.order_by("position"):
                entry = [
                    block.key,
                    block.position,
                    block.kind,
                    block.title,
                    block.body,
                    block.items,
                ]
                if block.kind == "snippet":
                    s = block.snippet
                    entry += [s.caption, s.language, s.code, s.stdin, s.expected_output, s.raises]
                if block.kind == "ordering":
                    e = block.ordering_exercise
                    entry += [e.intro, e.grading, e.expected_output]
                    for line in e.lines.order_by("position", "key"):
                        depends_on = OrderingLine.depends_on.through.objects.filter(
                            from_orderingline=line
                        ).order_by("pk")
                        entry.append(
                            [line.key, line.text, line.position]
                            + [d.to_orderingline.key for d in depends_on]
                        )
                blocks.append(entry)
            terms = list(
                Lesson.terms.through.objects.filter(lesson=lesson)
                .order_by("pk")
                .values_list("glossaryterm__slug", flat=True)
            )
            lessons.append(
                [
                    lesson.slug,
                    lesson.title,
                    lesson.level,
                    lesson.summary,
                    lesson.what_you_will_see,
                    lesson.position,
                    terms,
                    blocks,
                ]
            )
        courses.append([course.slug, course.title, course.summary, course.position, lessons])
    terms = []
    for term in GlossaryTerm.objects.order_by("slug"):
        see_also = list(
            GlossaryTerm.see_also.through.objects.filter(from_glossaryterm=term)
            .order_by("pk")
            .values_list("to_glossaryterm__slug", flat=True)
        )
        terms.append([term.slug, term.term, term.definition, see_also])
    return {"courses": courses, "terms": terms}


def wipe() -> None:
    Course.objects.all().delete()
    GlossaryTerm.objects.all().delete()


# --- Importing the shipped course -----------------------------------------------------------


def test_shipped_content_imports(sample_content):
    lessons = list(Lesson.objects.in_order())
    listed = YAML(typ="safe").load((SHIPPED / "local-models" / "course.yaml").read_text())["lessons"]
    assert [lesson.slug for lesson in lessons] == listed
    assert len(lessons) == 12
    # The three lessons the course grew from keep their places in its arc.
    assert [lesson.slug for lesson in lessons if lesson.slug in (
        "choosing-hardware-for-local-models", "optimising-speed-and-memory", "deploying-a-private-model-safely"
    )] == ["choosing-hardware-for-local-models", "optimising-speed-and-memory", "deploying-a-private-model-safely"]
    assert [lesson.level for lesson in lessons] == ["Beginner"] * 3 + ["Practitioner"] * 5 + ["Master"] * 4
    seed = next(lesson for lesson in lessons if lesson.slug == "optimising-speed-and-memory")
    assert seed.level == "Master"
    assert seed.what_you_will_see.startswith("KV cache VRAM usage:\n")
    snippets = Snippet.objects.filter(block__lesson=seed).order_by("block__position")
    assert [s.key for s in snippets] == ["backend-latency", "kv-cache-vram"]
    assert snippets[0].expected_output.startswith("\nOptimising speed and memory\n")
    assert snippets[1].expected_output.startswith("\nKV cache VRAM usage:\n")
    assert snippets[0].code.startswith("def backend_latency(backend, device):\n    if device")

    exercise = OrderingExercise.objects.get(block__lesson=seed)
    lines = list(exercise.lines.all())
    assert [line.key for line in lines if not line.is_distractor] == [
        "def",
        "return",
        "blank-line",
        "heading",
        "sixteen-bit",
        "eight-bit",
        "verdict",
    ]
    assert lines[1].text == "    return bits * capacity / 1000  # GB"
    assert [line.key for line in lines if line.is_distractor] == ["wrong-return", "wrong-verdict"]

    data_flow = seed.blocks.get(kind="data_flow")
    assert data_flow.items == [
        "Pick a backend",
        "Tune KV cache",
        "Batch requests",
        "Measure throughput",
    ]
    examples = seed.blocks.get(kind="examples")
    assert [item["title"] for item in examples.items] == [
        "Run it lean",
        "KV cache budget",
        "Continuous batching",
    ]
    assert examples.items[0]["lines"].startswith("Use a fast backend")

    assert seed.terms.count() >= 9
    assert GlossaryTerm.objects.count() >= 9


def test_glossary_links_in_definitions_count_as_terms_pointed_at(sample_content):
    kv_cache = GlossaryTerm.objects.get(slug="kv-cache")
    # [[context-window|context]], [[vram]], [[quantization|Quantizing]], [[pagedattention]]
    # in the definition, and see_also: [continuous-batching].
    assert set(kv_cache.see_also.values_list("slug", flat=True)) == {
        "context-window",
        "vram",
        "quantization",
        "pagedattention",
        "continuous-batching",
    }
    # The lessons whose files list it in their terms.
    listing = [
        path.stem for path in (SHIPPED / "local-models").glob("*.yaml")
        if "  - kv-cache\n" in path.read_text()
    ]
    assert len(listing) >= 2
    assert set(kv_cache.lessons.values_list("slug", flat=True)) == set(listing)


def test_dependencies_between_lines_are_imported(sample_content):
    exercise = OrderingExercise.objects.get(block__key="llama-server-command-order")
    args = exercise.lines.get(key="args")
    assert exercise.grading == OrderingExercise.Grading.DEPENDENCIES
    assert {line.key for line in args.depends_on.all()} == {"model", "host", "port", "keys"}


def test_the_summary_says_what_changed(content):
    # All but course.yaml and the lessons' translations (<lesson>.<language>.yaml).
    lessons = len([p for p in (content / "local-models").glob("*.yaml") if "." not in p.stem]) - 1
    assert f"Created: 1 course, {lessons} lessons" in import_content(content)
    edit(
        content / SEED, "caption: Compare backend latency", "caption: Compare how fast backends are"
    )
    output = import_content(content)
    assert "Created: nothing." in output
    assert "Updated: 1 snippet." in output
    assert "Deleted: nothing." in output
    assert import_content(content, verbosity=0) == ""


# --- Re-importing ---------------------------------------------------------------------------


def test_reimport_updates_rows_in_place(content):
    import_content(content)
    snippet = Snippet.objects.get(block__key="backend-latency")
    exercise = OrderingExercise.objects.get(block__key="kv-cache-vram-order")
    line_ids = dict(exercise.lines.values_list("key", "pk"))

    edit(content / SEED, 'print("Optimising speed and memory")', 'print("Speed and memory")')
    edit(content / SEED, "      Optimising speed and memory\n", "      Speed and memory\n")
    edit(
        content / SEED,
        "    return bits * capacity / 1000  # GB'",
        "    return capacity * bits / 1000  # GB'",
    )
    import_content(content)

    snippet.refresh_from_db()
    assert 'print("Speed and memory")' in snippet.code
    assert snippet.expected_output.startswith("\nSpeed and memory\n")
    assert snippet.version == 2
    assert OrderingExercise.objects.get(block__key="kv-cache-vram-order").pk == exercise.pk
    assert dict(exercise.lines.values_list("key", "pk")) == line_ids
    assert exercise.lines.get(key="return").text == "    return capacity * bits / 1000  # GB"


def test_reimport_without_changes_changes_nothing(content):
    import_content(content)
    before = dump()
    versions = list(Snippet.objects.values_list("pk", "version"))
    import_content(content)
    assert dump() == before
    assert list(Snippet.objects.values_list("pk", "version")) == versions


def test_removing_a_block_deletes_it(content):
    import_content(content)
    kept = Snippet.objects.get(block__key="backend-latency").pk
    path = content / SEED
    text = path.read_text()
    start = text.index("  - kind: snippet\n    key: kv-cache-vram\n")
    end = text.index("  - kind: ordering")
    path.write_text(text[:start] + text[end:])

    output = import_content(content)

    assert not Block.objects.filter(key="kv-cache-vram").exists()
    assert Snippet.objects.get(block__key="backend-latency").pk == kept
    assert "Deleted: 1 block, 1 snippet." in output


def test_removing_a_lesson_deletes_it(content):
    import_content(content)
    (content / DEPLOYING).unlink()
    edit(content / "local-models/course.yaml", "  - deploying-a-private-model-safely\n", "")
    import_content(content)
    assert not Lesson.objects.filter(slug="deploying-a-private-model-safely").exists()
    assert not Snippet.objects.filter(block__key="api-key-check").exists()


def test_reordering_lessons_and_terms_is_kept(content, tmp_path):
    import_content(content)
    course_file = content / "local-models/course.yaml"
    edit(course_file, "  - choosing-hardware-for-local-models\n", "")
    edit(course_file, "  - deploying", "  - choosing-hardware-for-local-models\n  - deploying")
    edit(content / SEED, "  - kv-cache\n  - vram\n", "  - vram\n  - kv-cache\n")
    import_content(content)

    order = [lesson.slug for lesson in Lesson.objects.in_order()]
    assert order.index("optimising-speed-and-memory") + 1 == order.index("choosing-hardware-for-local-models")
    assert order.index("choosing-hardware-for-local-models") + 1 == order.index("deploying-a-private-model-safely")
    call_command("export_content", str(tmp_path), verbosity=0)
    assert read_yaml((tmp_path / SEED).read_text())["terms"][:2] == ["vram", "kv-cache"]


def test_a_snippet_with_learner_work_cannot_be_removed(content):
    import_content(content)
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    Prediction.objects.create(
        user=make_user(), snippet=snippet, snippet_version=1, verdict=Prediction.Verdict.RIGHT
    )
    before = dump()
    edit(content / SEED, "key: kv-cache-vram\n", "key: kv-cache-memory\n")
    edit(content / SEED, "caption: Compare backend latency", "caption: Changed too")

    with pytest.raises(CommandError) as error:
        import_content(content)

    message = str(error.value)
    assert f"{content / SEED}: snippet 'kv-cache-vram' is gone from the file" in message
    assert "put it back with the same key" in message
    assert dump() == before
    assert Snippet.objects.get(block__key="kv-cache-vram").pk == snippet.pk


# --- Export and round trip ------------------------------------------------------------------


def test_import_export_import_is_lossless(content, tmp_path):
    import_content(content)
    before = dump()
    call_command("export_content", str(tmp_path / "first"), verbosity=0)
    wipe()
    import_content(tmp_path / "first")
    assert dump() == before

    call_command("export_content", str(tmp_path / "second"), verbosity=0)
    for path in sorted((tmp_path / "first").rglob("*.yaml")):
        again = tmp_path / "second" / path.relative_to(tmp_path / "first")
        assert again.read_text() == path.read_text()


def test_export_writes_files_like_the_shipped_ones(sample_content, tmp_path):
    call_command("export_content", str(tmp_path), verbosity=0)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.yaml"))
    assert written == sorted(p.relative_to(SHIPPED) for p in SHIPPED.rglob("*.yaml"))
    for path in written:
        assert read_yaml((tmp_path / path).read_text()) == read_yaml((SHIPPED / path).read_text())
    seed = (tmp_path / SEED).read_text()
    # Output that starts with an empty line stays a plain literal block.
    assert "    output: |\n\n      Optimising speed and memory\n" in seed
    assert "        text: '    return bits * capacity / 1000  # GB'\n" in seed


@pytest.mark.parametrize(
    "code",
    [
        "    indented first line\nprint()\n",
        "print('no newline at the end')",
        "print('two newlines')\n\n",
        "x = 1   \nprint(x)\n",
        "\n\n# two empty lines first\n",
        "\tprint('tab first')\n",
        "print('a \"quote\" and a # hash')  # : colon\n",
    ],
)
def test_export_keeps_any_code_exactly(sample_content, tmp_path, code):
    Snippet.objects.filter(block__key="backend-latency").update(code=code)
    call_command("export_content", str(tmp_path), verbosity=0)
    wipe()
    import_content(tmp_path)
    assert Snippet.objects.get(block__key="backend-latency").code == code


@pytest.mark.parametrize("output", ["1\n\n", "1\n\n\n", "\n", "1"])
def test_a_snippet_whose_output_ends_in_an_empty_line_exports(sample_content, tmp_path, output):
    """`print()` last: the exporter crashed on it (the empty line between blocks was read
    back as part of the text)."""
    Snippet.objects.filter(block__key="backend-latency").update(
        code="print(1)\nprint()\n", expected_output=output
    )
    call_command("export_content", str(tmp_path), verbosity=0)
    wipe()
    import_content(tmp_path)
    assert Snippet.objects.get(block__key="backend-latency").expected_output == output
    # the next block is still a block of its own
    assert Snippet.objects.get(block__key="kv-cache-vram").code.startswith("def kv_cache_vram")


def test_export_removes_lesson_files_of_deleted_lessons(sample_content, tmp_path):
    call_command("export_content", str(tmp_path), verbosity=0)
    lessons = Lesson.objects.count()
    Lesson.objects.filter(slug="deploying-a-private-model-safely").delete()
    call_command("export_content", str(tmp_path), verbosity=0)
    assert not (tmp_path / DEPLOYING).exists()
    wipe()
    import_content(tmp_path)
    assert Lesson.objects.count() == lessons - 1


# --- Bad content ----------------------------------------------------------------------------

BAD_FILES = {
    "unknown run limit": (
        SEED,
        "    key: backend-latency\n",
        "    key: backend-latency\n    limits:\n      wall_secs: 20\n",
        "wall_secs: 20",
        "unknown limit 'wall_secs' (did you mean 'wall_seconds'?)",
    ),
    "raises not an exception name": (
        SEED,
        "    key: backend-latency\n",
        "    key: backend-latency\n    raises: division by zero\n",
        "raises: division by zero",
        "'raises' must be an exception's name as Python prints it, e.g. ZeroDivisionError, "
        "not 'division by zero'",
    ),
    "raises not text": (
        SEED,
        "    key: backend-latency\n",
        "    key: backend-latency\n    raises: [ValueError]\n",
        "raises: [ValueError]",
        "'raises' must be an exception's name as Python prints it, e.g. ZeroDivisionError, "
        "not a list",
    ),
    "run limit not a positive number": (
        "local-models/course.yaml",
        "order: 1\n",
        "order: 1\nlimits:\n  memory_mb: -5\n",
        "memory_mb: -5",
        "limit 'memory_mb' must be a positive number",
    ),
    "yaml syntax error": (
        SEED,
        "level: Master\n",
        "level: Master\n  oops: indented\n",
        "oops: indented",
        "YAML syntax error",
    ),
    "colon in unquoted text": (
        SEED,
        "caption: Compare backend latency across hardware.",
        "caption: Compare backend latency: across hardware.",
        "caption: Compare backend latency: across hardware.",
        "YAML syntax error: mapping values are not allowed here (a text with ': ' in it must "
        "be put in quotes, or written as a literal block after '|' on lines of its own)",
    ),
    "missing title": (
        SEED,
        "title: Optimising speed and memory\n",
        "",
        "level: Master",
        "the lesson needs 'title'",
    ),
    "unknown block kind": (
        SEED,
        "kind: data_flow",
        "kind: dataflow",
        "kind: dataflow",
        "unknown block kind 'dataflow' (did you mean 'data_flow'?)",
    ),
    "duplicate block key": (
        SEED,
        "key: kv-cache-vram\n",
        "key: backend-latency  # again\n",
        "# again",
        "block key 'backend-latency' is already used by the block on line",
    ),
    "duplicate line key": (
        SEED,
        "- key: heading",
        "- key: def  # again",
        "# again",
        "line key 'def' is already used on line",
    ),
    "unknown term": (
        SEED,
        "  - pagedattention\n",
        "  - paged-attention\n",
        "- paged-attention",
        "term 'paged-attention' is not in the glossary (did you mean 'pagedattention'?)",
    ),
    "link to no term": (
        SEED,
        "Pick the backend that matches",
        "Pick the [[backends]] that matches",
        "[[backends]]",
        "glossary link '[[backends]]' points at no term (did you mean 'backend'?)",
    ),
    "malformed link": (
        SEED,
        "Pick the backend that matches",
        "Pick the [[Backend Choice]] that matches",
        "[[Backend Choice]]",
        "bad glossary link '[[Backend Choice]]'",
    ),
    "bad link in the glossary": (
        "glossary.yaml",
        "such as [[llama-cpp]] or",
        "such as [[llamacpp]] or",
        "[[llamacpp]]",
        "glossary link '[[llamacpp]]' points at no term (did you mean 'llama-cpp'?)",
    ),
    "unknown see_also": (
        "glossary.yaml",
        "see_also: [throughput, reverse-proxy]",
        "see_also: [throughput, proxy]",
        "see_also: [throughput, proxy]",
        "see_also 'proxy' is not in the glossary",
    ),
    "depends_on cycle": (
        DEPLOYING,
        "text: 'model = \"Llama-3.1-8B-Instruct-Q4_K_M.gguf\"'\n",
        "text: 'model = \"Llama-3.1-8B-Instruct-Q4_K_M.gguf\"'\n        depends_on: [args]\n",
        "- key: model",
        "depends_on cycle: model -> args -> model",
    ),
    "depends_on a later line": (
        DEPLOYING,
        "        text: 'port = 8081'\n",
        "        text: 'port = 8081'\n        depends_on: [keys]\n",
        "depends_on: [keys]",
        "line 'port' depends on 'keys', which comes after it",
    ),
    "depends_on a distractor": (
        DEPLOYING,
        "        text: 'port = 8081'\n",
        "        text: 'port = 8081'\n        depends_on: [open-host]\n",
        "depends_on: [open-host]",
        "'open-host' is a distractor",
    ),
    "unknown field": (
        SEED,
        "caption: Compare backend",
        "captoin: Compare backend",
        "captoin:",
        "unknown field 'captoin' in a snippet block (did you mean 'caption'?)",
    ),
    "field of another kind": (
        SEED,
        "  - kind: try_it\n",
        "  - kind: try_it\n    steps: [a]\n",
        "steps: [a]",
        "unknown field 'steps' in a try_it block (its fields: kind, key, title, body)",
    ),
    "unknown grading": (
        DEPLOYING,
        "grading: dependencies",
        "grading: dependency",
        "grading: dependency",
        "unknown grading 'dependency' (did you mean 'dependencies'?)",
    ),
    "snippet without a key": (
        SEED,
        "    key: backend-latency\n",
        "",
        "kind: snippet",
        "a snippet block needs 'key'",
    ),
    "text that is a number": (
        SEED,
        "level: Master",
        "level: 3",
        "level: 3",
        "'level' must be text, not a number; put it in quotes",
    ),
    "duplicate field": (
        SEED,
        "level: Master\n",
        "level: Master\nlevel: Expert\n",
        "level: Expert",
        "field 'level' appears twice (first on line 2)",
    ),
    "course lists a missing lesson": (
        "local-models/course.yaml",
        "  - deploying-a-private-model-safely",
        "  - deploying-a-private-model",
        "- deploying-a-private-model",
        "lesson 'deploying-a-private-model' is listed but there is no",
    ),
}


def snapshot(content: Path) -> dict:
    return {str(p): p.read_bytes() for p in content.rglob("*") if p.is_file()}


@pytest.mark.parametrize("case", BAD_FILES, ids=list(BAD_FILES))
def test_bad_content_is_refused_with_file_and_line(sample_content, content, case):
    relative, old, new, marker, message = BAD_FILES[case]
    path = content / relative
    edit(path, old, new)
    before = dump()

    with pytest.raises(CommandError) as error:
        import_content(content)

    assert f"{path}:{line_of(path, marker)}: {message}" in str(error.value)
    assert "nothing was imported" in str(error.value)
    assert dump() == before


def test_every_problem_is_reported_at_once(sample_content, content):
    edit(content / SEED, "kind: data_flow", "kind: dataflow")
    edit(content / DEPLOYING, "caption: Check an API key", "captoin: Check an API key")
    edit(content / "glossary.yaml", "see_also: [throughput, reverse-proxy]", "see_also: [thruput]")
    (content / "local-models" / "stray.yaml").write_text("title: Stray\n")

    with pytest.raises(CommandError) as error:
        import_content(content)

    message = str(error.value)
    assert message.startswith("4 problems in the content files; nothing was imported.")
    for path in [content / SEED, content / DEPLOYING, content / "glossary.yaml"]:
        assert f"{path}:" in message
    assert "stray.yaml is not listed in 'lessons'" in message


def test_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(CommandError, match="no such folder"):
        import_content(tmp_path / "nowhere")


def test_the_command_exits_non_zero_on_bad_content(content):
    edit(content / SEED, "kind: data_flow", "kind: dataflow")
    result = subprocess.run(
        [sys.executable, "manage.py", "import_content", str(content)],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert (
        f"{content / SEED}:{line_of(content / SEED, 'kind: dataflow')}: unknown block kind"
        in result.stderr
    )


def test_a_broken_glossary_is_reported_once(content):
    edit(content / "glossary.yaml", "terms:\n", "terms: [\n")
    with pytest.raises(CommandError) as error:
        import_content(content)
    assert str(error.value).startswith("1 problem in the content files")
    assert f"{content / 'glossary.yaml'}:" in str(error.value)


def test_run_limits_of_a_course_and_a_snippet_are_imported_and_exported(content, tmp_path):
    edit(
        content / "local-models/course.yaml",
        "order: 1\n",
        "order: 1\nlimits:\n  wall_seconds: 20\n",
    )
    edit(
        content / SEED,
        "    key: backend-latency\n",
        "    key: backend-latency\n    limits:\n      memory_mb: 512\n      cpu_seconds: 2\n",
    )
    import_content(content)
    assert Course.objects.get(slug="local-models").run_limits == {"wall_seconds": 20}
    assert Snippet.objects.get(block__key="backend-latency").run_limits == {
        "memory_mb": 512,
        "cpu_seconds": 2,
    }
    call_command("export_content", str(tmp_path / "out"), verbosity=0)
    assert read_yaml((tmp_path / "out" / SEED).read_text())["blocks"][1]["limits"] == {
        "memory_mb": 512,
        "cpu_seconds": 2,
    }
    assert (
        "limits:\n  wall_seconds: 20\n" in (tmp_path / "out/local-models/course.yaml").read_text()
    )


def test_a_snippet_reads_its_input_and_declared_exception_from_the_files(content):
    import_content(content)
    snippet = Snippet.objects.get(block__key="refused-request")
    assert (snippet.stdin, snippet.raises) == ("change-me-7f3b\n", "PermissionError")
    assert snippet.expected_output.endswith("with the key from the input...\n")

    edit(
        content / DEPLOYING,
        "    stdin: |\n      change-me-7f3b\n",
        "    stdin: |\n      change-me-7f3a\n",
    )
    import_content(content)
    snippet.refresh_from_db()
    assert snippet.version == 2  # the learner predicts from the input too

    edit(content / DEPLOYING, "    raises: PermissionError\n", "")
    import_content(content)
    snippet.refresh_from_db()
    assert (snippet.raises, snippet.version) == ("", 2)


@pytest.mark.parametrize(
    ("text", "hinted"),
    [
        ("caption: Step 1: load it\n", True),
        ("- title: Why: the cache\n", True),
        ("level: Master\n  oops: indented\n", False),  # an indentation slip, not a colon in text
        ("caption: 'Step 1: load it'\n", None),  # quoted: no error at all
    ],
)
def test_a_colon_in_unquoted_text_says_to_quote_it(text, hinted):
    from course.content_files.yaml_lines import YamlSyntaxError, load

    if hinted is None:
        assert load(text, lambda line, message: None) == {"caption": "Step 1: load it"}
        return
    with pytest.raises(YamlSyntaxError) as error:
        load(text, lambda line, message: None)
    assert ("must be put in quotes" in error.value.message) is hinted
