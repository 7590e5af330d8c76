"""A lesson's translations in the content files: `<lesson>.<language>.yaml` beside the lesson,
`course.<language>.yaml` beside the course and `glossary.<language>.yaml` beside the glossary, holding only prose, keyed by the blocks'
and items' keys. They import, export back as they were written, are refused with the file
and line when they do not fit the lesson, and check_content says what is stale or missing."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from course import translations
from course.content_files.reader import COURSE_FIELDS, LESSON_FIELDS
from course.models import Block, Course, GlossaryTerm, Lesson

pytestmark = pytest.mark.django_db

SHIPPED = Path(settings.BASE_DIR) / "content"
SEED = "local-models/optimising-speed-and-memory"


@pytest.fixture
def content(tmp_path) -> Path:
    return Path(shutil.copytree(SHIPPED, tmp_path / "content"))


def import_content(directory: Path) -> None:
    call_command("import_content", str(directory), verbosity=0)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1))


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def seed() -> Lesson:
    return Lesson.objects.get(slug="optimising-speed-and-memory")


def test_the_seed_lessons_translations_import(sample_content):
    lesson = seed()
    assert sorted(lesson.translations) == ["de", "es"]
    spanish = lesson.translations["es"]
    assert spanish["title"] == "Optimizar la velocidad y la memoria"
    assert spanish["blocks"]["backend-latency"] == {
        "caption": "Compara la latencia de los backends en distinto hardware."
    }
    assert spanish["blocks"]["write-kv-cache-vram"]["tests"]["sixteen-bit"] == {
        "name": "16 bits para 1000 unidades son 16 GB"
    }
    assert lesson.translations["de"]["blocks"]["data-flow-1"]["steps"][0] == "Backend wählen"
    # Code and outputs are the English lesson's: a translation never holds them.
    assert "code" not in str(spanish["blocks"]["backend-latency"])
    assert GlossaryTerm.objects.get(slug="kv-cache").translations == {
        "es": {"term": "caché KV", "definition": translations_of("es", "kv-cache")},
        "de": {"term": "KV-Cache", "definition": translations_of("de", "kv-cache")},
    }


def test_the_seed_courses_translations_import(sample_content):
    course = Course.objects.get(slug="local-models")
    assert sorted(course.translations) == ["de", "es"]
    assert course.translations["es"]["title"] == "Ejecutar modelos en local"
    assert course.translations["de"]["title"] == "Modelle lokal ausführen"
    assert course.translations["de"]["summary"].startswith("Führe große Sprachmodelle")
    # Its order, limits and lessons are the English course's: no translation holds them.
    assert set(course.translations["es"]) == {"title", "summary"}
    assert translations.course_problems(course, COURSE_FIELDS) == []


def translations_of(language: str, slug: str) -> str:
    from ruamel.yaml import YAML

    document = YAML(typ="safe").load((SHIPPED / f"glossary.{language}.yaml").read_text())
    return document["terms"][slug]["definition"]


def test_the_seed_is_translated_completely(sample_content):
    lesson = Lesson.objects.prefetch_related("blocks").get(slug="optimising-speed-and-memory")
    assert [problem for problem in translations.lesson_problems(lesson, LESSON_FIELDS)] == []


def test_export_writes_the_translation_files_back_as_written(sample_content, tmp_path):
    call_command("export_content", str(tmp_path), verbosity=0)
    for name in [
        f"{SEED}.es.yaml",
        f"{SEED}.de.yaml",
        "local-models/course.es.yaml",
        "local-models/course.de.yaml",
        "glossary.es.yaml",
        "glossary.de.yaml",
    ]:
        assert (tmp_path / name).read_text() == (SHIPPED / name).read_text(), name


def test_a_translation_removed_from_the_database_is_removed_from_the_files(
    sample_content, tmp_path
):
    call_command("export_content", str(tmp_path), verbosity=0)
    lesson = seed()
    del lesson.translations["de"]
    lesson.save()
    GlossaryTerm.objects.update(translations={})
    course = Course.objects.get(slug="local-models")
    del course.translations["es"]
    course.save()
    call_command("export_content", str(tmp_path), verbosity=0)
    assert not (tmp_path / "local-models/course.es.yaml").exists()
    assert (tmp_path / "local-models/course.de.yaml").exists()
    assert not (tmp_path / f"{SEED}.de.yaml").exists()
    assert (tmp_path / f"{SEED}.es.yaml").exists()
    assert not (tmp_path / "glossary.es.yaml").exists()


def test_reimporting_a_changed_translation_updates_only_it(content):
    import_content(content)
    blocks = dict(Block.objects.values_list("key", "pk"))
    edit(content / f"{SEED}.es.yaml", "title: Ahora escríbelo tú", "title: Escríbelo tú")
    import_content(content)
    assert seed().translations["es"]["blocks"]["write-kv-cache-vram"]["title"] == "Escríbelo tú"
    assert dict(Block.objects.values_list("key", "pk")) == blocks
    edit(content / "local-models/course.de.yaml", "title: Modelle lokal", "title: Modelle daheim")
    import_content(content)
    assert Course.objects.get().translations["de"]["title"] == "Modelle daheim ausführen"


def test_an_empty_field_is_no_translation(content):
    edit(
        content / f"{SEED}.es.yaml",
        "    caption: Compara la latencia",
        "    caption: ''\n    # Compara la latencia",
    )
    import_content(content)
    assert "backend-latency" not in seed().translations["es"]["blocks"]


BAD_TRANSLATIONS = {
    "code in a translation": (
        f"{SEED}.es.yaml",
        "    caption: Compara la latencia de los backends en distinto hardware.",
        "    code: print('hola')",
        "code: print",
        "'code' is not translated in a snippet block: code, outputs, keys and settings are the "
        "English lesson's, shared by every language (its translated fields: title, body, caption)",
    ),
    "steps that are not a list": (
        f"{SEED}.de.yaml",
        "    steps:\n      - Backend wählen\n      - KV-Cache abstimmen\n      - Anfragen bündeln\n      - Durchsatz messen",
        "    steps: Backend wählen",
        "steps: Backend",
        "'steps' must be a list, not text",
    ),
    "a link to no term": (
        f"{SEED}.es.yaml",
        "Antes de escribir nada,",
        "Antes de escribir [[cache]] nada,",
        "[[cache]]",
        "glossary link '[[cache]]' points at no term",
    ),
    "a course's lesson list in its translation": (
        "local-models/course.es.yaml",
        "title: Ejecutar modelos en local",
        "title: Ejecutar modelos en local\nlessons: [what-a-local-model-is]",
        "lessons:",
        "'lessons' is not translated in the course: code, outputs, keys and settings are the "
        "English lesson's, shared by every language (its translated fields: title, summary)",
    ),
    "a misspelt course field": (
        "local-models/course.de.yaml",
        "summary: |",
        "sumary: |",
        "sumary:",
        "unknown field 'sumary' in the course (did you mean 'summary'?)",
    ),
    "a glossary term that does not exist": (
        "glossary.de.yaml",
        "  vllm:",
        "  vlm:",
        "vlm:",
        "term 'vlm' is not in the glossary (did you mean 'vllm'?)",
    ),
}


@pytest.mark.parametrize("case", BAD_TRANSLATIONS, ids=list(BAD_TRANSLATIONS))
def test_a_translation_that_does_not_fit_is_refused_with_file_and_line(content, case):
    relative, old, new, marker, message = BAD_TRANSLATIONS[case]
    path = content / relative
    edit(path, old, new)
    with pytest.raises(CommandError) as error:
        import_content(content)
    assert f"{path}:{line_of(path, marker)}: {message}" in str(error.value)
    assert not Lesson.objects.exists()


def test_a_translation_of_a_block_the_lesson_no_longer_has_is_kept_and_reported(content, tmp_path):
    # The author removes a block: the import does not wait for the translators.
    edit(
        content / f"{SEED}.yaml",
        "  - kind: try_it\n    title: Pick a backend and tune the KV cache\n\n",
        "",
    )
    import_content(content)
    assert seed().translations["es"]["blocks"]["try-it-1"] == {
        "title": "Elige un backend y ajusta la caché KV"
    }
    out, failed = check_content_output()
    assert failed
    assert (
        "STALE  local-models/optimising-speed-and-memory (de): block 'try-it-1': the lesson has no such block"
        in out
    )
    # Exported as it was written, after the blocks the lesson has.
    call_command("export_content", str(tmp_path / "out"), verbosity=0)
    written = (tmp_path / "out" / f"{SEED}.es.yaml").read_text()
    assert written.endswith("  try-it-1:\n    title: Elige un backend y ajusta la caché KV\n")


def test_a_translation_of_no_lesson_or_into_no_language_of_the_site_is_refused(content):
    folder = content / "local-models"
    shutil.copy(folder / "optimising-speed-and-memory.es.yaml", folder / "optimising-speed.es.yaml")
    shutil.copy(
        folder / "optimising-speed-and-memory.es.yaml",
        folder / "optimising-speed-and-memory.fr.yaml",
    )
    with pytest.raises(CommandError) as error:
        import_content(content)
    assert (
        f"{folder / 'optimising-speed.es.yaml'}: a translation of no lesson: there is no "
        "optimising-speed.yaml in local-models/"
    ) in str(error.value)
    assert (f"{folder / 'optimising-speed-and-memory.fr.yaml'}: the site speaks no 'fr'") in str(
        error.value
    )


def test_a_course_translation_into_no_language_of_the_site_is_refused(content):
    folder = content / "local-models"
    shutil.copy(folder / "course.es.yaml", folder / "course.fr.yaml")
    with pytest.raises(CommandError) as error:
        import_content(content)
    assert f"{folder / 'course.fr.yaml'}: the site speaks no 'fr'" in str(error.value)


def check_content_output() -> tuple[str, bool]:
    """What check_content says about translations (its sandbox checks are other tests')."""
    out = StringIO()
    failed = False
    try:
        call_command("check_content", "--translations-only", stdout=out)
    except CommandError:
        failed = True
    return out.getvalue(), failed


def test_check_content_reports_stale_and_missing_translations(sample_content):
    out, failed = check_content_output()
    assert "TRANSLATION" not in out and not failed
    assert "(es)" not in out and "(de)" not in out  # the seed course and lesson, complete

    # The course's German summary is not written yet; a French title was added by hand.
    course = Course.objects.get(slug="local-models")
    del course.translations["de"]["summary"]
    course.translations["fr"] = {"title": "Faire tourner des modèles"}
    course.save()
    out, failed = check_content_output()
    assert failed
    assert "UNTRANSLATED  local-models (de): summary" in out
    assert "STALE  local-models (fr): 'fr' is not a language of the site" in out

    lesson = seed()
    # The author removes a block and adds a step; a translator has not caught up.
    Block.objects.filter(lesson=lesson, key="backend-latency").delete()
    data_flow = Block.objects.get(lesson=lesson, key="data-flow-1")
    data_flow.items = [*data_flow.items, "Repeat"]
    data_flow.save()
    lesson.refresh_from_db()
    del lesson.translations["de"]["blocks"]["explanations-1"]
    lesson.save()

    # And a translator mistypes a test's key.
    spanish = lesson.translations["es"]["blocks"]["write-kv-cache-vram"]["tests"]
    spanish["other-sizes"] = spanish.pop("other-capacities")
    lesson.save()

    out, failed = check_content_output()
    assert failed
    assert (
        "STALE  local-models/optimising-speed-and-memory (es): block 'write-kv-cache-vram' tests "
        "'other-sizes': the English has no such test"
    ) in out
    assert (
        "STALE  local-models/optimising-speed-and-memory (es): block 'backend-latency': the lesson has no such block"
    ) in out
    assert (
        "STALE  local-models/optimising-speed-and-memory (de): block 'data-flow-1' steps: 4 translated, the English has 5"
        in out
    )
    assert (
        "UNTRANSLATED  local-models/optimising-speed-and-memory (de): block 'explanations-1' items"
        in out
    )
