"""Which block kinds there are, by name: the registry itself, and nothing else.

The models ask it for a block's kind (`Block.kind_spec`, search), and the kinds
(course/kinds/) register themselves in it when the app is ready; it imports neither, so
the kinds may import the models they are made of and the models never import the kinds.
"""

from collections.abc import Iterable
from typing import Any

_kinds: dict[str, Any] = {}  # name -> course.kinds.BlockKind


class UnknownKind(LookupError):
    pass


def register(kind: Any) -> Any:
    if kind.name in _kinds and _kinds[kind.name] != kind:
        raise ValueError(f"two block kinds are called {kind.name!r}")
    _kinds[kind.name] = kind
    return kind


def get(name: str) -> Any:
    try:
        return _kinds[name]
    except KeyError:
        raise UnknownKind(name) from None


def names() -> list[str]:
    return list(_kinds)


def every() -> Iterable[Any]:
    return list(_kinds.values())
