"""Questions brought over from a bank, written into a lesson's content file.

The teacher names the lesson file. An existing file gets the questions after its last
block, its own text left exactly as it was (comments, order, style); a new one is written
as a draft lesson, and its name added to its course.yaml's `lessons`. Either way the whole
content folder is then read as `import_content` reads it; if that refuses it, the files
are put back as they were, so a bank never leaves a content folder that cannot import.
"""

from dataclasses import dataclass
from io import StringIO
from pathlib import Path

from django.utils.text import slugify
from django.utils.translation import gettext as _
from ruamel.yaml import YAML

from course import kinds
from course.content_files.errors import ContentErrors
from course.content_files.exporter import written
from course.content_files.reader import read_content
from course.content_files.yaml_writing import Spaced, dump
from course.question_banks import BankRefused, Question

KEY_LENGTH = 40  # Block.key is a SlugField of 50; room for "-12"


@dataclass
class Written:
    path: Path
    keys: list[str]
    new_lesson: bool
    files: dict[Path, str]  # what each file will hold


def _safe_load(text: str):
    return YAML(typ="safe", pure=True).load(text)


def block_key(name: str, taken: set[str]) -> str:
    """A key for a question from its name, unique among `taken` (which it joins)."""
    base = slugify(name)[:KEY_LENGTH].strip("-") or "question"
    key, n = base, 1
    while key in taken:
        n += 1
        key = f"{base}-{n}"
    taken.add(key)
    return key


def _appended(text: str, blocks_text: str) -> str:
    """`text` (a lesson file whose last field is `blocks`, or that has none) with the
    blocks of `blocks_text` (a dumped `blocks:` list) added at its end, indented as its
    own blocks are."""
    items = blocks_text.split("\n", 1)[1]
    document = YAML(typ="rt", pure=True).load(text) or {}
    if "blocks" not in document:
        return text.rstrip("\n") + "\n" + blocks_text
    if (
        list(document)[-1] != "blocks"
        or not document["blocks"]
        or document["blocks"].fa.flow_style()
    ):
        raise BankRefused(
            _(
                "'blocks' must be the last field of the lesson file and a list written one block a line"
            )
        )
    lines = text.rstrip("\n").split("\n")
    indent = (
        next(
            len(line) - len(line.lstrip(" "))
            for line in lines[lines.index("blocks:") + 1 :]
            if line.lstrip(" ").startswith("- ")
        )
        if "blocks:" in lines
        else 2
    )
    shift = indent - 2
    moved = [
        (" " * shift + line if shift >= 0 else line[-shift:]) if line else line
        for line in items.split("\n")
    ]
    return text.rstrip("\n") + "\n\n" + "\n".join(moved)


def _with_lesson(course_text: str, slug: str) -> str:
    writer = YAML(typ="rt", pure=True)
    writer.indent(mapping=2, sequence=4, offset=2)
    writer.width = 1_000_000
    document = writer.load(course_text)
    document.setdefault("lessons", []).append(slug)
    out = StringIO()
    writer.dump(document, out)
    return out.getvalue()


def plan(path: str | Path, questions: list[Question], *, title: str = "") -> Written:
    """What writing `questions` into the lesson file `path` changes, checked: the files'
    new texts, and the key each question gets."""
    path = Path(path)
    course_file = path.parent / "course.yaml"
    if path.suffix not in (".yaml", ".yml"):
        raise BankRefused(_("a lesson file's name ends in .yaml: %(path)s") % {"path": path})
    if not course_file.is_file():
        raise BankRefused(
            _("%(folder)s has no course.yaml: name a lesson file in a course's folder")
            % {"folder": path.parent}
        )
    existing = path.read_text(encoding="utf-8") if path.is_file() else None
    old = (_safe_load(existing) or {}) if existing is not None else {}
    taken = {str(block.get("key")) for block in old.get("blocks") or [] if isinstance(block, dict)}
    keys, documents = [], []
    for question in questions:
        key = block_key(question.values.get("title") or question.name, taken)
        keys.append(key)
        documents.append(
            {
                "kind": question.kind,
                "key": key,
                **written(kinds.get(question.kind).fields, question.values),
            }
        )
    blocks_text = dump({"blocks": Spaced(documents)})
    files: dict[Path, str] = {}
    if existing is None:
        slug = path.stem
        lesson_title = title or slug.replace("-", " ").capitalize()
        files[path] = dump({"title": lesson_title, "status": "draft"}) + blocks_text
        course_text = course_file.read_text(encoding="utf-8")
        files[course_file] = _with_lesson(course_text, slug)
        if (_safe_load(files[course_file]) or {}).get("lessons", [])[-1:] != [slug]:
            raise BankRefused(
                _("could not add '%(slug)s' to %(file)s") % {"slug": slug, "file": course_file}
            )
    else:
        files[path] = _appended(existing, blocks_text)
        expected = {
            **old,
            "blocks": [*(old.get("blocks") or []), *_safe_load(blocks_text)["blocks"]],
        }
        if _safe_load(files[path]) != expected:
            raise BankRefused(
                _("could not add the questions at the end of %(path)s") % {"path": path}
            )
    return Written(path=path, keys=keys, new_lesson=existing is None, files=files)


def write(planned: Written) -> None:
    """Write the planned files; if the content folder then does not read as
    `import_content` reads it (and it did before), put them back and raise ContentErrors."""
    root = planned.path.parent.parent
    try:
        read_content(root)
        readable = True
    except ContentErrors:
        readable = False
    before = {
        path: path.read_text(encoding="utf-8") if path.is_file() else None for path in planned.files
    }
    for path, text in planned.files.items():
        path.write_text(text, encoding="utf-8")
    if not readable:
        return
    try:
        read_content(root)
    except ContentErrors:
        for path, text in before.items():
            if text is None:
                path.unlink()
            else:
                path.write_text(text, encoding="utf-8")
        raise
