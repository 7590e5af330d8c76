"""What a learner sends for a question, read once where it comes in: options named by
tokens of their own (an HMAC of the learner, the question and the option's key, so the page
never says which key an option has: a key may read `wrong-gpu`), a number as people write
one, blanks as typed (Unicode NFC, no line breaks, at most MAX_ANSWER_CHARS each).

A refusal (nothing chosen, not a number) is not a try: the learner is told why and answers
again.
"""

import random
import re
import unicodedata

from django.utils.crypto import salted_hmac
from django.utils.formats import get_format
from django.utils.translation import gettext as _

from course.kinds.blanks import MAX_ANSWER_CHARS, blank_names, parameter_names

MAX_NUMBER_CHARS = 100
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# "1.500" where a decimal is written with a comma: fifteen hundred to the reader, one and a
# half to Python.
_POINT_THOUSANDS = re.compile(r"[+-]?\d{1,3}(\.\d{3})+")


class Malformed(ValueError):
    """The answer cannot be graded as sent; the message tells the learner what to send."""


def option_token(user_id: int | None, block_id: int, key: str) -> str:
    digest = salted_hmac(
        "parsnip.question.option", f"{user_id}:{block_id}:{key}", algorithm="sha256"
    )
    return "option-" + digest.hexdigest()[:16]


def option_order(values: dict, *, user_id: int | None, block_id: int) -> list[str]:
    """The option keys in the order this learner sees them: the file's order, or (`shuffle`)
    a shuffle of their own, the same on every visit and in every tab."""
    keys = [option["key"] for option in values["options"]]
    if not values.get("shuffle", True) or user_id is None:
        return keys
    keys.sort()
    random.Random(f"question:{user_id}:{block_id}").shuffle(keys)
    return keys


def _keys_by_token(values: dict, *, user_id: int, block_id: int) -> dict[str, str]:
    return {
        option_token(user_id, block_id, option["key"]): option["key"]
        for option in values["options"]
    }


def read_number(text: str, *, units: str = "") -> float:
    """A number as people type it in the page's language: spaces allowed, the question's
    units after it allowed; in English thousands commas allowed and a comma that could be a
    decimal comma refused, not guessed; where decimals take a comma, a decimal comma or
    point allowed and a thousands separator refused (`_with_decimal_comma`)."""
    text = unicodedata.normalize("NFKC", text).strip()
    if len(text) > MAX_NUMBER_CHARS:
        raise Malformed(_("That is too long for a number."))
    if units and text.casefold().endswith(units.casefold()):
        text = text[: -len(units)].strip()
    text = text.replace(" ", "").replace("_", "").replace("\u2212", "-")
    if not text:
        raise Malformed(_("Type a number first."))
    if get_format("DECIMAL_SEPARATOR") == ",":
        text = _with_decimal_comma(text)
    elif "," in text:
        if not _THOUSANDS.fullmatch(text):
            raise Malformed(
                _("Write decimals with a point, e.g. 3.5 (a comma only between thousands).")
            )
        text = text.replace(",", "")
    if not _NUMBER.fullmatch(text):
        if units:
            raise Malformed(_("Type a number, in %(units)s.") % {"units": units})
        raise Malformed(_("Type a number, e.g. 42 or 3.5."))
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise Malformed(_("That number is too large."))
    return value


def _with_decimal_comma(text: str) -> str:
    """The number for Python, typed where the page's language writes decimals with a comma
    (Spanish, German): 3,5 and Python's own 3.5 both read as three and a half. A thousands
    separator is refused, not guessed: 1.500 is fifteen hundred to the reader, 1.5 to Python."""
    if "," in text and ("." in text or text.count(",") > 1):
        raise Malformed(_("Write the number without a thousands separator, e.g. 1500 or 3,5."))
    if _POINT_THOUSANDS.fullmatch(text):
        raise Malformed(
            _(
                "“%(number)s” reads two ways: write 1500 for fifteen hundred, 1,5 for one and a half."
            )
            % {"number": text}
        )
    return text.replace(",", ".")


def _one_line(text: str) -> str:
    text = unicodedata.normalize("NFC", text.replace("\r", " ").replace("\n", " "))
    if "\x00" in text:
        raise Malformed(_("An answer cannot hold a NUL character."))
    return text


def read_answer(kind: str, values: dict, data, *, user_id: int, block_id: int):
    """The answer in `data` (a QueryDict: the form's fields), normalised for grading."""
    if kind in ("choice", "checkboxes"):
        keys = _keys_by_token(values, user_id=user_id, block_id=block_id)
        tokens = data.getlist("option")
        if any(token not in keys for token in tokens) or len(tokens) > len(keys):
            raise Malformed(
                _("That is not one of this question's options. Reload the page to see them.")
            )
        chosen = list(dict.fromkeys(keys[token] for token in tokens))
        if not chosen:
            raise Malformed(
                _("Choose an answer first.")
                if kind == "choice"
                else _("Tick at least one answer first.")
            )
        if kind == "choice" and len(chosen) > 1:
            raise Malformed(_("Choose one answer."))
        return chosen
    if kind == "number":
        text = _one_line(data.get("number", ""))
        value = read_number(text, units=values.get("units") or "")
        return {"text": text.strip(), "value": value}
    if kind in ("blanks", "code_blanks"):
        typed = {}
        for name in blank_names(
            values["text" if kind == "blanks" else "code"], parameters=parameter_names(values)
        ):
            raw = data.get(f"blank-{name}", "")
            if kind == "code_blanks" and ("\n" in raw or "\r" in raw):
                raise Malformed(_("A blank in a program takes one line: no line breaks."))
            text = _one_line(raw)
            if len(text) > MAX_ANSWER_CHARS:
                raise Malformed(
                    _("An answer in a blank may be at most %(n)d characters.")
                    % {"n": MAX_ANSWER_CHARS}
                )
            typed[name] = text
        if kind == "code_blanks" and not all(text.strip() for text in typed.values()):
            raise Malformed(_("Fill in every blank first: the program runs with all of them."))
        if not any(text.strip() for text in typed.values()):
            raise Malformed(_("Fill in a blank first."))
        return typed
    raise Malformed(_("This block is not a question."))
