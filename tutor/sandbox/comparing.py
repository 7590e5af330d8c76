"""What a check's asserts compare, decided on the host, out of the learner's reach.

A check's ``assert left == right`` is split in two. The side that is a literal (``3``,
``"200 OK"``, ``[1, 2]``, ``None``: what ``ast.literal_eval`` reads) stays here: the sandbox
gets the check with that side replaced by ``None`` (``stripped``), so an expected value
never enters the process that runs the learner's code. There, every assert records what its
sides evaluated to, encoded as plain data (``grading_harness._encoder``: None, bool, int,
float, complex, Fraction, Decimal, str, bytes, bytearray, list, tuple, dict, set, frozenset,
nested 100 deep and 16 KiB at most; a subclass of one of these by its built-in content,
anything else only described), and ``judge`` compares here, with Python's own operators on plain values that no
learner code can reach. Where neither side is a literal and one is not plain data (two
objects of the learner's classes, say), or for ``is`` between two computed values, the
sandbox's own comparison is what counts (``Record.child``): that is the weaker path,
docs/grading.md says why.

Numbers compare as Python compares them, across int, float, complex, Fraction and Decimal:
``1 == 1.0 == True == Fraction(1) == Decimal(1)``. A value that is not plain data never
passes a comparison with a literal, whatever its ``__eq__`` says.
"""

import ast
import functools
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .framing import unpack as _unpack

__all__ = ["MISSING", "Described", "Record", "Site", "decode", "judge", "records", "stripped"]

OPERATORS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip
MISSING = object()


class Described:
    """A value that was not plain data, known only by its description: equal to nothing
    but itself."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"<{self.text}>"

    def __eq__(self, other) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


@dataclass(frozen=True)
class Site:
    """One assert of a check, in source order: its operator (None for ``assert x``), its
    literal sides (``MISSING`` where the sandbox computes the side) and its line."""

    op: str | None
    left: Any
    right: Any
    line: int

    @property
    def literal_side(self) -> bool:
        return self.left is not MISSING or self.right is not MISSING


@dataclass(frozen=True)
class Record:
    """What one assert's execution sent: the site, both sides encoded, and the sandbox's
    own verdict (True/False) where it computed one, else None."""

    site: int
    left: bytes
    right: bytes
    child: bool | None


def _asserts(tree: ast.AST) -> list[ast.Assert]:
    """Every assert of a check, in source order (the harness numbers them so too)."""
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    return sorted(found, key=lambda node: (node.lineno, node.col_offset))


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


@functools.lru_cache(maxsize=512)  # an exercise's checks, graded again and again by a worker
def stripped(source: str) -> tuple[str, tuple[Site, ...]]:
    """The check as the sandbox gets it (every literal side of an assert's comparison
    replaced by ``None``, lines kept where they were) and its sites. A check that does not
    parse here is sent as it is: the harness reports it as a broken test."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return source, ()
    sites, cuts = [], []
    for node in _asserts(tree):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = OPERATORS[type(test.ops[0])]
            left, right = _literal(test.left), _literal(test.comparators[0])
            if left is not MISSING and right is not MISSING:
                right = MISSING  # two literals: the sandbox computes one side, as written
            for side, value in ((test.left, left), (test.comparators[0], right)):
                if value is not MISSING:
                    cuts.append(side)
            sites.append(Site(op, left, right, node.lineno))
        else:
            sites.append(Site(None, MISSING, MISSING, node.lineno))
    if not cuts:
        return source, tuple(sites)
    lines = source.encode("utf-8").split(b"\n")
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    data = source.encode("utf-8")
    for node in sorted(cuts, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        begin = starts[node.lineno - 1] + node.col_offset
        end = starts[node.end_lineno - 1] + node.end_col_offset
        data = data[:begin] + b"(None" + b"\n" * (node.end_lineno - node.lineno) + b")" + data[end:]
    return data.decode("utf-8"), tuple(sites)


def records(data: bytes) -> list[Record]:
    """The records of one test, as the harness framed them; [] for anything malformed."""
    found = []
    try:
        for item in _unpack(data):
            site, left, right, child = _unpack(item)
            found.append(Record(int(site), left, right,
                                {b"": None, b"1": True, b"0": False}[child]))  # fmt: skip
    except (ValueError, KeyError):
        return []
    return found


def decode(data: bytes, depth: int = 0) -> Any:
    """A value as the harness encoded it: plain data, or a Described."""
    try:
        return _decode(data, depth)
    except (ValueError, IndexError, KeyError, TypeError, UnicodeDecodeError, ArithmeticError,
            RecursionError):  # fmt: skip  (ArithmeticError: a Decimal's, a zero denominator)
        return Described("a value the grader could not read")


def _decode(data: bytes, depth: int) -> Any:
    tag, body = data[:1], data[1:]
    if depth > 110:
        raise ValueError("too deep")
    if tag == b"N":
        return None
    if tag in (b"T", b"F"):
        return tag == b"T"
    if tag == b"i":
        return int(body, 16)
    if tag == b"f":
        return float.fromhex(body.decode("ascii"))
    if tag == b"c":
        real, imag = _unpack(body)
        return complex(float.fromhex(real.decode("ascii")), float.fromhex(imag.decode("ascii")))
    if tag == b"q":
        top, bottom = _unpack(body)
        return Fraction(int(top, 16), int(bottom, 16))
    if tag == b"D":
        return Decimal(body.decode("ascii"))
    if tag == b"s":
        return body.decode("utf-8", "surrogatepass")
    if tag == b"b":
        return bytes(body)
    if tag == b"y":
        return bytearray(body)
    if tag == b"?":
        return Described(body.decode("utf-8", "replace") or "an object")
    items = [_decode(item, depth + 1) for item in _unpack(body)]
    if tag == b"l":
        return items
    if tag == b"t":
        return tuple(items)
    if tag == b"S":
        return set(items)
    if tag == b"z":
        return frozenset(items)
    if tag == b"d":
        if len(items) % 2:
            raise ValueError("odd")
        return dict(zip(items[::2], items[1::2], strict=True))
    raise ValueError("unknown tag")


def plain(value: Any, depth: int = 0) -> bool:
    """Whether a decoded value holds no Described anywhere."""
    if isinstance(value, Described) or depth > 110:
        return False
    if isinstance(value, dict):
        return all(plain(k, depth + 1) and plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return all(plain(item, depth + 1) for item in value)
    return True


_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}  # fmt: skip
_SINGLETONS = (None, True, False, Ellipsis)


def judge(site: Site, record: Record) -> tuple[bool, Any, Any]:
    """Whether one execution of an assert held, and its two sides (the literal ones as
    written, the computed ones decoded) for feedback."""
    left = site.left if site.left is not MISSING else decode(record.left)
    right = site.right if site.right is not MISSING else decode(record.right)
    both_plain = plain(left) and plain(right)
    if site.op is None:
        ok = bool(left) if plain(left) else record.child is True
    elif site.op in ("is", "is not"):
        if site.literal_side:
            literal = site.left if site.left is not MISSING else site.right
            other = right if site.left is not MISSING else left
            if any(literal is singleton for singleton in _SINGLETONS):
                same = other is literal
            else:
                same = plain(other) and type(other) is type(literal) and other == literal
            ok = same if site.op == "is" else not same
        else:
            ok = record.child is True
    elif both_plain:
        try:
            ok = bool(_COMPARE[site.op](left, right))
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            ok = False  # ArithmeticError: decimal's InvalidOperation (a NaN ordered)
    elif site.literal_side:
        ok = False  # what is not plain data equals (is in, less than...) no expected value
    else:
        ok = record.child is True
    return ok, left, right


def shown(value: Any, cap: int = 2000) -> str:
    """A value as feedback shows it: its repr, cut at ``cap`` characters."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        text = "<a value too big to show>"
    if isinstance(value, float) and math.isnan(value):
        text = "nan"
    return text if len(text) <= cap else text[: cap - 1] + "\u2026"
