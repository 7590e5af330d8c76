"""YAML that remembers lines, for readers that report `file:line: message`.

The text is composed into ruamel.yaml's node tree (not loaded straight to Python), so that
each mapping knows the line of every field, a field given twice is caught, and a literal
block (`|`) can say on which file line each of its characters stands. Scalars follow YAML
1.2 (`yes` and `no` are text, not booleans).
"""

import re
from collections.abc import Callable

from ruamel.yaml import YAML, nodes
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError

STR_TAG = "tag:yaml.org,2002:str"


class YamlSyntaxError(Exception):
    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


class YamlMap(dict):
    """A mapping that knows its own line and the line of each field (1-based)."""

    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.key_lines: dict[str, int] = {}
        self.nodes: dict[str, nodes.Node] = {}

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)

    def text_line(self, key: str, offset: int) -> int:
        """The file line of character `offset` of field `key`'s text: exact inside a literal
        block, the field's own line otherwise."""
        node = self.nodes.get(key)
        if node is None or getattr(node, "style", None) != "|":
            return self.line_of(key)
        return node.start_mark.line + 2 + str(self[key]).count("\n", 0, offset)


class YamlList(list):
    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.lines: list[int] = []


def load(text: str, error: Callable[[int, str], None]) -> YamlMap | YamlList | object | None:
    """The document in `text` as YamlMap/YamlList/scalars; None for an empty document.

    Raises YamlSyntaxError for text that is not YAML; calls `error(line, message)` for a
    field given twice or a field name that is not a word (and skips that field).
    """
    reader = YAML(typ="safe", pure=True)
    try:
        node = reader.compose(text)
        if node is None:
            return None
        return _Converter(SafeConstructor(loader=reader), error).convert(node)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        detail = exc.problem or ""
        if exc.context:
            detail = f"{exc.context}, {detail}" if detail else exc.context
        if mark and (hint := _syntax_hint(detail, text.split("\n")[mark.line])):
            detail = f"{detail} ({hint})"
        raise YamlSyntaxError(mark.line + 1 if mark else None, detail) from None
    except YAMLError as exc:
        raise YamlSyntaxError(None, str(exc)) from None


# `caption: Step 1: load it` -- a field's unquoted text with ": " in it -- is the slip every
# author makes; YAML's own words for it ("mapping values are not allowed here") say nothing.
_COLON_IN_TEXT = re.compile(r"^\s*(?:- )?[\w-]+: +[^'\"|>\s].*?: ")


def _syntax_hint(problem: str, line: str) -> str:
    if "mapping values are not allowed" in problem and _COLON_IN_TEXT.match(line):
        return (
            "a text with ': ' in it must be put in quotes, or written as a literal block "
            "after '|' on lines of its own"
        )
    return ""


class _Converter:
    def __init__(self, constructor: SafeConstructor, error: Callable[[int, str], None]):
        self.constructor = constructor
        self.error = error

    def convert(self, node: nodes.Node):
        if isinstance(node, nodes.MappingNode):
            mapping = YamlMap(node.start_mark.line + 1)
            for key_node, value_node in node.value:
                line = key_node.start_mark.line + 1
                if not isinstance(key_node, nodes.ScalarNode) or key_node.tag != STR_TAG:
                    self.error(line, f"a field name must be a word, not {key_node.value!r}")
                    continue
                key = key_node.value
                if key in mapping:
                    self.error(
                        line, f"field '{key}' appears twice (first on line {mapping.key_lines[key]})"
                    )
                    continue
                mapping[key] = self.convert(value_node)
                mapping.key_lines[key] = line
                mapping.nodes[key] = value_node
            return mapping
        if isinstance(node, nodes.SequenceNode):
            sequence = YamlList(node.start_mark.line + 1)
            for item in node.value:
                sequence.append(self.convert(item))
                sequence.lines.append(item.start_mark.line + 1)
            return sequence
        return self.constructor.construct_object(node, deep=True)
