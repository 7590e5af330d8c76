"""Write content documents as YAML that reads like an author's file, with ruamel.yaml.

A document is plain dicts, lists and scalars; a few marker types ask for a style:
`Literal` text becomes a literal block (`|`) when it has line breaks and a literal block
can hold it exactly, `Quoted` text is single-quoted (code lines: their indentation shows),
a `Flow` list is written on one line (`[a, b]`) and a `Spaced` list has an empty line
between its items. Whatever the style, the YAML reads back as exactly the document.
"""

import functools
import io

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

WIDTH = 1_000_000  # never fold a long line


class Literal(str):
    """Text written as a literal block when it has line breaks."""


class Quoted(str):
    """Text written in single quotes."""


class Flow(list):
    """A short list written on one line."""


class Spaced(list):
    """A list written with an empty line between its items."""


class _AuthorEmitter(RoundTripEmitter):
    """ruamel.yaml gives every literal block that starts with an empty line an explicit
    indentation indicator (`|2`); YAML finds the indentation from the first line with text
    anyway, so, as an author would, write `|` unless that line starts with a space."""

    def determine_block_hints(self, text):
        hints, indent, indicator = super().determine_block_hints(text)
        first = next((line for line in text.split("\n") if line), "")
        leading_empty = text.startswith("\n") and first[:1] not in (" ", "\t", "")
        if indent and leading_empty:
            return indicator, 0, indicator
        return hints, indent, indicator


@functools.cache
def _writer() -> YAML:
    writer = YAML(typ="rt", pure=True)
    writer.Emitter = _AuthorEmitter
    writer.width = WIDTH
    writer.indent(mapping=2, sequence=4, offset=2)
    writer.allow_unicode = True
    return writer


@functools.cache
def _reader() -> YAML:
    return YAML(typ="safe", pure=True)


def _holds(scalar: str) -> bool:
    """Whether `scalar`, in its style, reads back as exactly its text. Not every style can
    hold every text: a literal block cannot say a carriage return, and ruamel.yaml writes
    some Unicode line breaks (NEL) into quoted scalars as they are, where YAML folds them."""
    stream = io.StringIO()
    _writer().dump({"k": scalar}, stream)
    written = stream.getvalue()
    if isinstance(scalar, LiteralScalarString) and not written.startswith("k: |"):
        return False
    try:
        return _reader().load(written) == {"k": str(scalar)}
    except Exception:  # noqa: BLE001 - any failure to read back means "not in this style"
        return False


def _scalar(value: str) -> str:
    if isinstance(value, Literal) and "\n" in value:
        preferred = LiteralScalarString(value)
    elif isinstance(value, Quoted):
        preferred = SingleQuotedScalarString(value)
    else:
        preferred = str(value)
    # Double quotes, with escapes, can say any text.
    return preferred if _holds(preferred) else DoubleQuotedScalarString(value)


def _styled(value):
    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = _styled(item)
        return mapping
    if isinstance(value, list):
        sequence = CommentedSeq(_styled(item) for item in value)
        if isinstance(value, Flow):
            sequence.fa.set_flow_style()
        if isinstance(value, Spaced):
            for n in range(1, len(value)):
                # An empty line after text that keeps its final empty lines (`|+`) would be
                # read as one more of them: the item then follows it directly.
                if not _ends_with_kept_lines(sequence[n - 1]):
                    sequence.yaml_set_comment_before_after_key(n, before="\n")
        return sequence
    if isinstance(value, str):
        return _scalar(value)
    return value


def _ends_with_kept_lines(value) -> bool:
    while isinstance(value, CommentedMap | CommentedSeq) and value:
        value = value[next(reversed(value))] if isinstance(value, CommentedMap) else value[-1]
    # ruamel.yaml keeps them (`|+`) for text that ends with an empty line, or is one.
    return isinstance(value, LiteralScalarString) and (value == "\n" or value.endswith("\n\n"))


def _plain(value):
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return str(value)
    return value


def dump(document: dict) -> str:
    stream = io.StringIO()
    _writer().dump(_styled(document), stream)
    text = stream.getvalue()
    if _reader().load(text) != _plain(document):
        raise AssertionError("the exported YAML does not read back as the database content")
    return text
