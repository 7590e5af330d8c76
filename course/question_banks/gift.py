"""GIFT, Moodle's plain-text format for questions: read into Parsnip's question kinds, and
written from them.

The PyPI lists hold no maintained GIFT parser that fits (gift-to-moodlexml turns an
extended dialect into XML; gift-wrapper only writes GIFT), so this is a small one that
follows Moodle's own reader (question/format/gift/format.php): a question per paragraph,
`//` comment lines, `$CATEGORY:` lines, `::Title::`, a `[html]`/`[moodle]`/`[plain]`/
`[markdown]` text format, and the answers in `{...}`, where `\\~ \\= \\# \\{ \\} \\:` are the
characters themselves, `\\\\` a backslash and `\\n` a line break.
"""

import html
import re
from collections.abc import Iterable

import nh3
from django.utils.translation import gettext as _

from course.question_banks import Bank, LeftOut, Question, name_of, normalised_text
from course.question_banks.text import FORMATS, MARKDOWN, MOODLE, PLAIN, markdown_of

SPECIALS = "~=#{}:"
# An escaped character stands in a private-use character while the question is taken apart,
# so that only unescaped ones separate its parts.
_SLOT = {char: chr(0xE100 + n) for n, char in enumerate("\\" + SPECIALS)}
_UNSLOT = {ord(slot): char for char, slot in _SLOT.items()}
_GAP = "\ue1ff"  # where the answers were, in a "missing word" question's text
_WEIGHT = re.compile(r"%(-?\d+(?:\.\d+)?)%")
_FORMAT = re.compile(r"\s*\[(html|moodle|plain|markdown)\]")
_FORMATS = {"html": FORMATS[0], "moodle": MOODLE, "plain": PLAIN, "markdown": MARKDOWN}
_TRUE, _FALSE = ("T", "TRUE"), ("F", "FALSE")


# -- escaping -------------------------------------------------------------------------------


def escape(text: str) -> str:
    """`text` as GIFT writes it: special characters and backslashes escaped, line breaks `\\n`."""
    text = text.replace("\\", "\\\\")
    for char in SPECIALS:
        text = text.replace(char, "\\" + char)
    return text.replace("\n", "\\n")


def _protected(text: str) -> str:
    """Escaped characters replaced by their private-use slots, `\\n` by a line break."""
    out, at = [], 0
    while at < len(text):
        char = text[at]
        following = text[at + 1 : at + 2]
        if char == "\\" and following in _SLOT:
            out.append(_SLOT[following])
            at += 2
        elif char == "\\" and following == "n":
            out.append("\n")
            at += 2
        else:
            out.append(char)
            at += 1
    return "".join(out)


def _restored(text: str) -> str:
    return text.translate(_UNSLOT)


def unescape(text: str) -> str:
    """The text a GIFT text stands for (the inverse of `escape`)."""
    return _restored(_protected(text))


# -- reading --------------------------------------------------------------------------------


def _paragraphs(text: str) -> Iterable[tuple[int, str]]:
    """Each question's text with the line it starts on: comment lines dropped, a blank
    line between questions."""
    lines: list[str] = []
    start = 0
    for number, line in enumerate([*text.split("\n"), ""], start=1):
        if line.lstrip().startswith("//"):
            continue
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            yield start, "\n".join(lines).strip()
            lines = []


def read_gift(data: bytes) -> Bank:
    """The questions of a GIFT file, and what cannot come over, each with its reason."""
    text = normalised_text(data)
    text = text.translate({ord(slot): None for slot in [*_SLOT.values(), _GAP]})
    bank = Bank()
    for line, paragraph in _paragraphs(text):
        if paragraph.startswith("$CATEGORY:"):
            first, _newline, paragraph = paragraph.partition("\n")
            category = first.removeprefix("$CATEGORY:").strip()
            if category and category not in bank.categories:
                bank.categories.append(category)
            paragraph = paragraph.strip()
            if not paragraph:
                continue
        _read_question(bank, _protected(paragraph), line)
    return bank


def _items(answers: str) -> list[tuple[str, float | None, str, str]]:
    """The answers of a `{...}`: (mark, weight or None, text, feedback), mark `=` or `~`."""
    found = []
    for piece in re.split(r"(?=[=~])", answers.strip()):
        if not piece.strip():
            continue
        mark, rest = piece[0], piece[1:]
        weight = None
        if match := _WEIGHT.match(rest):
            weight, rest = float(match.group(1)), rest[match.end() :]
        text, _hash, feedback = rest.partition("#")
        found.append((mark, weight, text, feedback))
    return found


def _number(text: str) -> tuple[float, float] | None:
    """A numerical answer, `3.5`, `3.5:0.1` or `1..5`, as (answer, tolerance)."""
    text = text.strip()
    try:
        if ".." in text:
            low, high = (float(part) for part in text.split("..", 1))
            return neat_number((low + high) / 2), neat_number(abs(high - low) / 2)
        value, _colon, tolerance = text.partition(":")
        return neat_number(float(value)), neat_number(abs(float(tolerance or 0)))
    except ValueError:
        return None


def neat_number(value: float) -> float | int:
    """A whole number as an int, so the file says 50, not 50.0."""
    if value != value or value in (float("inf"), float("-inf")):
        return value
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _shown(weight: float) -> str:
    return f"{weight:g}%"


def _read_question(bank: Bank, raw: str, line: int) -> None:
    title = ""
    if raw.startswith("::"):
        end = raw.find("::", 2)
        if end < 0:
            bank.left_out.append(
                LeftOut(
                    name_of(_restored(raw)),
                    "?",
                    _("line %(line)d: the title has no closing ::") % {"line": line},
                )
            )
            return
        title, raw = " ".join(_restored(raw[2:end]).split()), raw[end + 2 :].lstrip()
    text_format = MOODLE
    if match := _FORMAT.match(raw):
        text_format, raw = _FORMATS[match.group(1)], raw[match.end() :]
    start = raw.find("{")
    end = raw.find("}", start + 1)
    name = title or name_of(_restored(raw[: start if start >= 0 else None]))
    if start < 0:
        bank.left_out.append(
            LeftOut(
                name,
                "description",
                _(
                    "it has no answers in {…}: it is text, not a question (a prose block can hold it)"
                ),
            )
        )
        return
    if end < 0:
        bank.left_out.append(
            LeftOut(name, "?", _("line %(line)d: the answers' { has no closing }") % {"line": line})
        )
        return
    before, answers, after = raw[:start].strip(), raw[start + 1 : end], raw[end + 1 :].strip()
    answers, _hashes, general = answers.partition("####")
    answers = answers.strip()
    changes: list[str] = []
    if general.strip():
        changes.append(
            _("its general feedback is not kept: a Parsnip question has feedback per answer")
        )
    question = Question(
        name=name, kind="", values={"title": title} if title else {}, changes=changes
    )

    def markdown(piece: str, *, one_line: bool = False) -> str:
        return markdown_of(_restored(piece).strip(), text_format, changes, one_line=one_line)

    def body() -> str:
        asked = f"{before} {_GAP} {after}" if after else before
        return markdown(asked).replace(_GAP, r"\_\_\_\_\_")

    if not answers:
        bank.left_out.append(
            LeftOut(
                name,
                "essay",
                _("Parsnip has no essay questions: learners' free text is not graded"),
            )
        )
    elif answers.startswith("#"):
        _numerical(bank, question, answers[1:], body(), markdown)
    elif re.fullmatch(r"(T|TRUE|F|FALSE)(#.*)?", answers, re.DOTALL):
        word, *feedback = answers.split("#")
        right, wrong = (feedback + ["", ""])[1], (feedback + [""])[0]
        truth = word in _TRUE
        question.values |= {
            "body": body(),
            "options": _true_false(truth, markdown(right), markdown(wrong)),
            "shuffle": False,
        }
        question.kind = "choice"
        bank.questions.append(question)
    elif "~" in answers:
        _multichoice(bank, question, answers, body(), markdown)
    elif answers.startswith("=") and "->" in answers:
        bank.left_out.append(LeftOut(name, "matching", _("Parsnip has no matching questions yet")))
    elif answers.startswith("="):
        _short_answer(bank, question, answers, before, after, text_format, markdown)
    else:
        bank.left_out.append(
            LeftOut(
                name,
                "?",
                _("line %(line)d: its answers {%(answers)s} are none of GIFT's kinds of question")
                % {"line": line, "answers": _restored(answers)[:40]},
            )
        )


def _true_false(truth: bool, right_feedback: str, wrong_feedback: str) -> list[dict]:
    options = [
        {
            "key": "true",
            "text": _("True"),
            "right": truth,
            "feedback": right_feedback if truth else wrong_feedback,
        },
        {
            "key": "false",
            "text": _("False"),
            "right": not truth,
            "feedback": wrong_feedback if truth else right_feedback,
        },
    ]
    return [without_empty(option) for option in options]


def without_empty(option: dict) -> dict:
    return {key: value for key, value in option.items() if value not in ("", False, None)}


def option_key(n: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[n] if n < len(letters) else f"option-{n + 1}"


def _multichoice(bank: Bank, question: Question, answers: str, body: str, markdown) -> None:
    # Moodle's rule: with an `=` answer there is one right answer, without, several.
    single = any(mark == "=" for mark, *_rest in _items(answers))
    options, weights = [], []
    for n, (mark, weight, text, feedback) in enumerate(_items(answers)):
        weight = weight if weight is not None else (100.0 if mark == "=" else 0.0)
        right = mark == "=" if single else weight > 0
        shown = markdown(text, one_line=True)
        if single and not right and weight:
            question.changes.append(
                _(
                    "the weight %(weight)s of '%(option)s' is not kept: a multiple-choice option is right or wrong"
                )
                % {"weight": _shown(weight), "option": shown}
            )
        if right:
            weights.append(weight)
        options.append(
            without_empty(
                {
                    "key": option_key(n),
                    "text": shown,
                    "right": right,
                    "feedback": markdown(feedback),
                }
            )
        )
    if not single and len(set(weights)) > 1:
        question.changes.append(
            _(
                "the weights %(weights)s of the right options are not kept: each right option counts the same"
            )
            % {"weights": ", ".join(_shown(weight) for weight in weights)}
        )
    question.kind = "choice" if single else "checkboxes"
    question.values |= {"body": body, "options": options}
    bank.questions.append(question)


def _numerical(bank: Bank, question: Question, answers: str, body: str, markdown) -> None:
    if answers.strip().startswith(("=", "~")):
        items = _items(answers)
    else:
        text, _hash, feedback = answers.partition("#")
        items = [("=", None, text, feedback)]
    right, mistakes = None, []
    for mark, weight, text, feedback in items:
        weight = weight if weight is not None else (100.0 if mark == "=" else 0.0)
        number = _number(_restored(text))
        if number is None:
            bank.left_out.append(
                LeftOut(
                    question.name,
                    "numerical",
                    _("'%(text)s' is not a number, a number:tolerance or a range low..high")
                    % {"text": _restored(text).strip()},
                )
            )
            return
        if weight >= 100 and right is None:
            right = number
            if feedback.strip():
                question.changes.append(
                    _("the right answer's feedback is not kept: a number question shows the answer")
                )
        elif weight > 0:
            question.changes.append(
                _("the answer %(answer)g worth %(weight)s is not kept: a number is right or wrong")
                % {"answer": number[0], "weight": _shown(weight)}
            )
        elif feedback.strip():
            mistakes.append({"answer": number[0], "feedback": markdown(feedback)})
        else:
            question.changes.append(
                _("the wrong answer %(answer)g has no feedback, so it is not kept")
                % {"answer": number[0]}
            )
    if right is None:
        bank.left_out.append(
            LeftOut(question.name, "numerical", _("no answer is worth full marks"))
        )
        return
    question.kind = "number"
    question.values |= {"body": body, "answer": right[0]}
    if right[1]:
        question.values["tolerance"] = right[1]
    if mistakes:
        question.values["mistakes"] = mistakes
    bank.questions.append(question)


def _wildcard(answer: str) -> str:
    return ".*".join(re.escape(part) for part in answer.split("*"))


def short_answer_blank(answers: list[str], *, case_sensitive: bool) -> dict | None:
    """The blank that takes a short-answer question's answers; Moodle's `*` wildcard
    becomes a pattern. None when every answer is a wildcard (a blank needs one answer)."""
    plain = [answer for answer in answers if "*" not in answer]
    if not plain:
        return None
    blank: dict = {"key": "answer", "answers": plain}
    if len(plain) < len(answers):
        blank["pattern"] = "|".join(f"(?:{_wildcard(answer)})" for answer in answers)
    if case_sensitive:
        blank["case_sensitive"] = True
    return blank


def wildcards_of(blank: dict) -> list[str]:
    """The answers, `*` wildcards among them, that `short_answer_blank` made `blank` from
    (so a bank's wildcards go back as they came); its plain answers when it was not."""
    pattern = blank.get("pattern")
    if pattern:
        parts = re.findall(r"\(\?:((?:\\.|[^\\)])*)\)", pattern)
        answers = [re.sub(r"\\(.)", r"\1", part.replace(".*", "*")) for part in parts]
        made = short_answer_blank(answers, case_sensitive=bool(blank.get("case_sensitive")))
        if (
            made is not None
            and made.get("pattern") == pattern
            and made["answers"] == blank["answers"]
        ):
            return answers
    return list(blank["answers"])


def _short_answer(bank, question, answers, before, after, text_format, markdown) -> None:
    accepted = []
    for _mark, weight, text, feedback in _items(answers):
        answer = " ".join(_restored(text).split())
        if text_format != MARKDOWN and text_format != PLAIN:
            answer = html.unescape(nh3.clean(answer, tags=set()))
        if not answer:
            question.changes.append(_("an empty answer is not kept"))
            continue
        if weight is not None and weight < 100:
            question.changes.append(
                _("the answer '%(answer)s' worth %(weight)s is not kept: a blank is right or wrong")
                % {"answer": answer, "weight": _shown(weight)}
            )
            continue
        if feedback.strip():
            question.changes.append(
                _(
                    "the feedback of the answer '%(answer)s' is not kept: a blank has none of its own"
                )
                % {"answer": answer}
            )
        accepted.append(answer)
    blank = short_answer_blank(accepted, case_sensitive=False)
    if blank is None:
        why = (
            _("every answer it accepts has a * wildcard: add one a learner could type")
            if accepted
            else _("it accepts no answer")
        )
        bank.left_out.append(LeftOut(question.name, "short answer", why))
        return
    question.kind = "blanks"
    if after:
        # "Missing word": the answer goes where the {…} was, in the text shown as written.
        def plain(piece: str) -> str:
            piece = _restored(piece)
            return (
                piece
                if text_format in (MARKDOWN, PLAIN)
                else html.unescape(nh3.clean(piece, tags=set()))
            )

        question.values |= {"text": f"{plain(before)} {{{{answer}}}} {plain(after)}".strip()}
    else:
        question.values |= {"body": markdown(before), "text": "{{answer}}"}
    question.values["blanks"] = [blank]
    bank.questions.append(question)


# -- writing --------------------------------------------------------------------------------


def _number_text(value: float) -> str:
    value = neat_number(float(value))
    return str(value) if isinstance(value, int) else repr(value)


def _weight_text(weight: float) -> str:
    return f"{weight:.5f}".rstrip("0").rstrip(".")


def write_gift(questions: Iterable[Question]) -> tuple[str, list[str]]:
    """GIFT for Parsnip's questions, and a line for each question that GIFT cannot hold as
    it is (left out, or written without something)."""
    paragraphs, notes = [], []
    for question in questions:
        values, said = question.values, []
        head = f"::{escape(values['title'])}::" if values.get("title") else ""
        if question.kind in ("choice", "checkboxes"):
            options = values["options"]
            if question.kind == "choice" and sorted(option["key"] for option in options) == [
                "false",
                "true",
            ]:
                true = next(option for option in options if option["key"] == "true")
                false = next(option for option in options if option["key"] == "false")
                right, wrong = (true, false) if true.get("right") else (false, true)
                letter = "T" if true.get("right") else "F"
                feedback = ""
                if right.get("feedback") or wrong.get("feedback"):
                    feedback = (
                        f"#{escape(wrong.get('feedback', ''))}#{escape(right.get('feedback', ''))}"
                    )
                paragraphs.append(f"{head}[markdown]{escape(values['body'])}{{{letter}{feedback}}}")
                continue
            rights = [option for option in options if option.get("right")]
            wrongs = len(options) - len(rights)
            lines = []
            for option in options:
                if question.kind == "choice":
                    mark = "=" if option.get("right") else "~"
                elif option.get("right"):
                    mark = f"~%{_weight_text(100 / len(rights))}%"
                else:
                    mark = f"~%-{_weight_text(100 / wrongs)}%"
                text = escape(option["text"])
                if mark == "=" and _WEIGHT.match(text):
                    mark = "=%100%"
                feedback = f"#{escape(option['feedback'])}" if option.get("feedback") else ""
                lines.append(f"\t{mark}{text}{feedback}")
            if values.get("scoring", "right-minus-wrong") != "right-minus-wrong":
                said.append(
                    _("its scoring '%(scoring)s' (GIFT scores right minus wrong)")
                    % {"scoring": values["scoring"]}
                )
            paragraphs.append(
                f"{head}[markdown]{escape(values['body'])}{{\n" + "\n".join(lines) + "\n}"
            )
        elif question.kind == "number":
            tolerance = values.get("tolerance") or 0
            if values.get("relative_tolerance") and not tolerance:
                tolerance = abs(values["answer"]) * values["relative_tolerance"]
                said.append(_("its relative tolerance, written as the same absolute one"))
            elif values.get("relative_tolerance"):
                said.append(_("its relative tolerance"))
            if values.get("units"):
                said.append(_("its units '%(units)s'") % {"units": values["units"]})
            answer = (
                f"{_number_text(values['answer'])}:{_number_text(tolerance)}"
                if tolerance
                else _number_text(values["answer"])
            )
            mistakes = values.get("mistakes") or []
            if mistakes:
                lines = [f"\t={answer}"] + [
                    f"\t=%0%{_number_text(mistake['answer'])}#{escape(mistake['feedback'])}"
                    for mistake in mistakes
                ]
                paragraphs.append(
                    f"{head}[markdown]{escape(values['body'])}{{#\n" + "\n".join(lines) + "\n}"
                )
            else:
                paragraphs.append(f"{head}[markdown]{escape(values['body'])}{{#{answer}}}")
        elif question.kind == "blanks":
            blanks = values["blanks"]
            if len(blanks) != 1:
                notes.append(
                    f"'{question.name}': " + _("left out: GIFT has one blank per question")
                )
                continue
            blank = blanks[0]
            written = wildcards_of(blank)
            if blank.get("pattern") and written == blank["answers"]:
                said.append(_("its pattern"))
            if blank.get("case_sensitive"):
                said.append(_("that case counts"))
            if values.get("spaces", "collapse") != "collapse":
                said.append(_("how spaces count"))
            accepted = " ".join(f"={escape(answer)}" for answer in written)
            parts = re.split(r"\{\{\s*[^{}\s]*\s*\}\}", values["text"], maxsplit=1)
            before, after = parts[0].strip(), parts[1].strip()
            if before or after:
                if values.get("body"):
                    said.append(_("its body (a missing-word question is its text)"))
                paragraphs.append(
                    f"{head}[plain]{escape(before)} {{{accepted}}} {escape(after)}".rstrip()
                )
            else:
                paragraphs.append(f"{head}[markdown]{escape(values.get('body', ''))}{{{accepted}}}")
        else:
            notes.append(
                f"'{question.name}': "
                + _("left out: GIFT has no %(kind)s questions") % {"kind": question.kind}
            )
            continue
        if said:
            notes.append(
                f"'{question.name}': " + _("written without %(what)s") % {"what": ", ".join(said)}
            )
    return "\n\n".join(paragraphs) + "\n", notes
