"""Usernames that read like someone else's are refused.

Django already stores usernames NFKC-normalised and refuses one that differs from an
existing one only in case. On top of that, a name is compared with every existing name by
its *skeleton*: each character replaced by the one that represents all the characters it
can be mistaken for (Unicode's confusables, as published by the confusable_homoglyphs
package), after NFKC and case folding. "studеnt" with a Cyrillic е has the skeleton of
"student", so it is refused while "student" exists.
"""

import functools
import unicodedata

from confusable_homoglyphs import confusables
from django.contrib.auth.models import User


@functools.lru_cache(maxsize=4096)
def _prototype(char: str) -> str:
    glyphs = [glyph["c"] for glyph in confusables.confusables_data.get(char, ()) if len(glyph["c"]) == 1]
    return min([char, *glyphs])


@functools.lru_cache(maxsize=65536)
def skeleton(name: str) -> str:
    """What `name` looks like: equal skeletons are names a reader cannot tell apart."""
    return "".join(_prototype(char) for char in unicodedata.normalize("NFKC", name).casefold())


def look_alike(name: str) -> str | None:
    """An existing username that reads like `name` without being it, or None.

    Compared with every username, a few thousand a second: it runs at sign-up only."""
    target = skeleton(name)
    for other in User.objects.values_list("username", flat=True).iterator(chunk_size=2000):
        if other != name and skeleton(other) == target:
            return other
    return None


def mixes_look_alike_scripts(name: str) -> bool:
    """Letters from several alphabets, some of which pass for another's (e.g. Latin with a
    Cyrillic о): made to deceive, even when no existing name is copied yet."""
    return bool(confusables.is_dangerous(name))
