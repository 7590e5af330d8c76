"""Finds what a translator would miss: words in a template outside {% translate %} and
{% blocktranslate %}, and catalog entries left untranslated or fuzzy (tests/test_translations.py).

A template is read with Django's own Lexer: its text tokens, joined with a mark where each tag
or variable stood, are read as HTML; every text node and every attribute a person reads
(`READ_ATTRIBUTES`) must hold no word. What a {% blocktranslate %} encloses is marked; so is
whatever a {% comment %} encloses. Code (<code>, <pre>, <kbd>, <script>, <style>) is not prose.
"""

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

# Attributes whose values a person reads (or hears, through a screen reader).
READ_ATTRIBUTES = {
    "title",
    "placeholder",
    "alt",
    "aria-label",
    "aria-description",
    "aria-roledescription",
    "aria-valuetext",
}
# Elements whose text is code, not prose: it stays as written in every language.
CODE_ELEMENTS = {"code", "pre", "kbd", "samp", "script", "style"}
# Words every language writes the same (the product's name).
SAME_IN_EVERY_LANGUAGE = {"Parsnip", "JSON", "OpenMetrics"}
MARK = "\x1f"  # where a tag or variable stood: not a word
WORD = re.compile(r"[^\W\d_]{2,}")


def _html_of(source: str) -> str:
    """The template's text, a MARK for each tag and variable; marked and commented text gone."""
    parts, skipping_until = [], None
    for token in Lexer(source).tokenize():
        if skipping_until:
            if token.token_type == TokenType.BLOCK and token.contents.split()[0] == skipping_until:
                skipping_until = None
            parts.append(MARK)
            continue
        if token.token_type == TokenType.TEXT:
            parts.append(token.contents)
            continue
        name = (
            token.contents.split()[0]
            if token.token_type == TokenType.BLOCK and token.contents
            else ""
        )
        if name in ("blocktranslate", "blocktrans"):
            skipping_until = "end" + name
        elif name == "comment":
            skipping_until = "endcomment"
        parts.append(MARK)
    return "".join(parts)


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.unmarked: list[str] = []
        self.open_code = 0

    def handle_starttag(self, tag, attrs):
        if tag in CODE_ELEMENTS:
            self.open_code += 1
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self._check(value)

    def handle_startendtag(self, tag, attrs):
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self._check(value)

    def handle_endtag(self, tag):
        if tag in CODE_ELEMENTS and self.open_code:
            self.open_code -= 1

    def handle_data(self, data):
        if not self.open_code:
            self._check(data)

    def _check(self, text: str) -> None:
        words = [
            w for w in WORD.findall(text.replace(MARK, " ")) if w not in SAME_IN_EVERY_LANGUAGE
        ]
        if words:
            self.unmarked.append(" ".join(text.strip(MARK + " \n\t").replace(MARK, "…").split()))


def unmarked_strings(template_source: str) -> list[str]:
    """The text a person would read in this template that no translation tag encloses."""
    reader = _Reader()
    reader.feed(_html_of(template_source))
    reader.close()
    return reader.unmarked


@dataclass
class Entry:
    msgid: str = ""
    msgstrs: list[str] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    fuzzy: bool = False
    plural: bool = False


def _unquote(line: str) -> str:
    return (
        line[line.index('"') + 1 : line.rindex('"')]
        .encode()
        .decode("unicode_escape")
        .encode("latin-1")
        .decode()
    )


def catalog_entries(po_text: str) -> list[Entry]:
    """The entries of a gettext catalog (the header, msgid "", left out)."""
    entries, entry, current = [], Entry(), None
    for line in [*po_text.splitlines(), ""]:
        if not line.strip():
            if entry.msgid:
                entries.append(entry)
            entry, current = Entry(), None
        elif line.startswith("#:"):
            entry.locations += [ref.split(":")[0] for ref in line[2:].split()]
        elif line.startswith("#,"):
            entry.fuzzy = entry.fuzzy or "fuzzy" in line
        elif line.startswith("#"):
            continue
        elif line.startswith("msgid_plural"):
            entry.plural, current = True, None
        elif line.startswith("msgid"):
            entry.msgid, current = _unquote(line), "msgid"
        elif line.startswith("msgstr"):
            entry.msgstrs.append(_unquote(line))
            current = "msgstr"
        elif line.startswith('"') and current == "msgid":
            entry.msgid += _unquote(line)
        elif line.startswith('"') and current == "msgstr":
            entry.msgstrs[-1] += _unquote(line)
    return entries


def unfinished_entries(po_text: str, under: list[str]) -> list[str]:
    """The entries used by a file under one of `under` that are untranslated or fuzzy."""
    # A plural entry needs a form for each of the language's plural forms (Spanish has three).
    forms = re.search(r"nplurals=(\d+)", po_text)
    plurals = int(forms.group(1)) if forms else 2
    return [
        f"{'fuzzy' if entry.fuzzy else 'untranslated'}: {entry.msgid!r} ({', '.join(entry.locations)})"
        for entry in catalog_entries(po_text)
        if any(location.startswith(tuple(under)) for location in entry.locations)
        and (
            entry.fuzzy or not all(entry.msgstrs) or (entry.plural and len(entry.msgstrs) < plurals)
        )
    ]


def templates_under(base: Path, under: list[str]) -> list[Path]:
    return sorted(
        path
        for place in under
        if place.startswith("templates/")
        for path in ([base / place] if place.endswith(".html") else (base / place).rglob("*.html"))
    )
