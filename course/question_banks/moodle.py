"""Moodle XML, Moodle's own export of a question bank: read into Parsnip's question kinds,
and written from them.

The XML is parsed with defusedxml, which refuses a document type declaration (where an
"XML bomb" of nested entities or an external entity that reads a file would be declared)
before anything is expanded; Moodle's exports never have one.
"""

import xml.etree.ElementTree as ET  # noqa: S405 - only to build XML; parsing is defusedxml's
from collections.abc import Iterable

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from course.question_banks import Bank, BankRefused, LeftOut, Question, name_of, normalised_text
from course.question_banks.gift import (
    neat_number,
    option_key,
    short_answer_blank,
    wildcards_of,
    without_empty,
)
from course.question_banks.text import FORMATS, HTML, MARKDOWN, markdown_of

# Moodle's types that have no kind in Parsnip, and why.
NOT_BROUGHT = {
    "matching": gettext_lazy("Parsnip has no matching questions yet"),
    "randomsamatch": gettext_lazy("Parsnip has no matching questions yet"),
    "essay": gettext_lazy("Parsnip has no essay questions: learners' free text is not graded"),
    "description": gettext_lazy("it is text, not a question (a prose block can hold it)"),
    "multianswer": gettext_lazy(
        "embedded answers (Cloze) are not brought over: write it as separate questions"
    ),
    "calculated": gettext_lazy(
        "calculated questions are not brought over: a number question with variants will hold it"
    ),
    "calculatedsimple": gettext_lazy(
        "calculated questions are not brought over: a number question with variants will hold it"
    ),
    "calculatedmulti": gettext_lazy(
        "calculated questions are not brought over: a number question with variants will hold it"
    ),
    "ddwtos": gettext_lazy("drag-and-drop questions are not brought over"),
    "ddimageortext": gettext_lazy("drag-and-drop questions are not brought over"),
    "ddmarker": gettext_lazy("drag-and-drop questions are not brought over"),
    "gapselect": gettext_lazy("select-missing-words questions are not brought over"),
    "ordering": gettext_lazy(
        "Moodle's ordering questions are not brought over: an ordering exercise of Parsnip's can hold it"
    ),
    "random": gettext_lazy(
        "it draws a question at random from a category; Parsnip's quizzes will do that"
    ),
}


def read_moodle(data: bytes) -> Bank:
    """The questions of a Moodle XML file, and what cannot come over, each with its reason."""
    text = normalised_text(data)
    try:
        root = fromstring(
            text.encode("utf-8"), forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
    except DefusedXmlException:
        raise BankRefused(
            _(
                "the file declares a document type or entities (<!DOCTYPE …>, <!ENTITY …>), which can hide "
                "an XML bomb or read files from the server; Moodle's exports have none, so it is refused"
            )
        ) from None
    except ParseError as error:
        line = error.position[0] if error.position else 0
        raise BankRefused(
            _("line %(line)d: not well-formed XML (%(error)s)") % {"line": line, "error": error}
        ) from None
    if root.tag != "quiz":
        raise BankRefused(
            _("this is not Moodle XML: its root element is <%(tag)s>, not <quiz>")
            % {"tag": root.tag}
        )
    bank = Bank()
    for element in root.findall("question"):
        kind = element.get("type", "")
        if kind == "category":
            category = _text(element.find("category"))
            if category and category not in bank.categories:
                bank.categories.append(category)
            continue
        name = " ".join(_text(element.find("name")).split())
        name = name or name_of(_text(element.find("questiontext")))
        reader = _READERS.get(kind)
        if reader is None:
            why = str(
                NOT_BROUGHT.get(
                    kind, _("Parsnip does not know Moodle's type '%(type)s'") % {"type": kind}
                )
            )
            bank.left_out.append(LeftOut(name, kind, why))
            continue
        question = Question(name=name, kind="", values={"title": name[:200]} if name else {})
        if len(name) > 200:
            question.changes.append(_("its name is cut to 200 characters for its title"))
        reader(bank, question, element)
    return bank


def _text(element: ET.Element | None) -> str:
    if element is None:
        return ""
    inner = element.find("text")
    return (inner.text or "") if inner is not None else (element.text or "")


def _markdown(
    element: ET.Element | None, changes: list[str], *, one_line: bool = False, within: str = HTML
) -> str:
    if element is None:
        return ""
    text_format = element.get("format", within)
    return markdown_of(
        _text(element).strip(),
        text_format if text_format in FORMATS else HTML,
        changes,
        one_line=one_line,
    )


def _fraction(answer: ET.Element) -> float:
    try:
        return float(answer.get("fraction", "0"))
    except ValueError:
        return 0.0


def _body(question: Question, element: ET.Element) -> None:
    question.values["body"] = _markdown(element.find("questiontext"), question.changes)
    if _text(element.find("generalfeedback")).strip():
        question.changes.append(
            _("its general feedback is not kept: a Parsnip question has feedback per answer")
        )


def _multichoice(bank: Bank, question: Question, element: ET.Element) -> None:
    single = (element.findtext("single") or "true").strip().lower() in ("true", "1")
    _body(question, element)
    options, weights = [], []
    for n, answer in enumerate(element.findall("answer")):
        fraction = _fraction(answer)
        right = fraction >= 100 if single else fraction > 0
        text_format = answer.get("format", HTML)
        text = _markdown(answer, question.changes, one_line=True, within=text_format)
        if single and 0 < fraction < 100:
            question.changes.append(
                _(
                    "the weight %(weight)g%% of '%(option)s' is not kept: a multiple-choice option is right or wrong"
                )
                % {"weight": fraction, "option": text}
            )
        if right:
            weights.append(round(fraction, 3))
        feedback = _markdown(answer.find("feedback"), question.changes)
        options.append(
            without_empty(
                {"key": option_key(n), "text": text, "right": right, "feedback": feedback}
            )
        )
    if not single and len(set(weights)) > 1:
        question.changes.append(
            _(
                "the weights %(weights)s of the right options are not kept: each right option counts the same"
            )
            % {"weights": ", ".join(f"{weight:g}%" for weight in weights)}
        )
    question.kind = "choice" if single else "checkboxes"
    question.values["options"] = options
    shuffle = (element.findtext("shuffleanswers") or "1").strip().lower() in ("1", "true")
    if not shuffle:
        question.values["shuffle"] = False
    bank.questions.append(question)


def _truefalse(bank: Bank, question: Question, element: ET.Element) -> None:
    _body(question, element)
    options = []
    for answer in element.findall("answer"):
        word = _text(answer).strip().lower()
        if word not in ("true", "false"):
            continue
        options.append(
            without_empty(
                {
                    "key": word,
                    "text": _("True") if word == "true" else _("False"),
                    "right": _fraction(answer) >= 100,
                    "feedback": _markdown(answer.find("feedback"), question.changes),
                }
            )
        )
    question.kind = "choice"
    question.values |= {
        "options": sorted(options, key=lambda option: option["key"] != "true"),
        "shuffle": False,
    }
    bank.questions.append(question)


def _number(text: str) -> float | int | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return neat_number(value)


def _numerical(bank: Bank, question: Question, element: ET.Element) -> None:
    _body(question, element)
    right, mistakes = None, []
    for answer in element.findall("answer"):
        fraction, text = _fraction(answer), _text(answer).strip()
        feedback = _markdown(answer.find("feedback"), question.changes)
        if text == "*":
            if feedback:
                question.changes.append(_("the feedback for any other answer (*) is not kept"))
            continue
        value = _number(text)
        if value is None:
            bank.left_out.append(
                LeftOut(
                    question.name, "numerical", _("'%(text)s' is not a number") % {"text": text}
                )
            )
            return
        tolerance = _number(answer.findtext("tolerance") or "0") or 0
        if fraction >= 100 and right is None:
            right = (value, abs(tolerance))
            if feedback:
                question.changes.append(
                    _("the right answer's feedback is not kept: a number question shows the answer")
                )
        elif fraction > 0:
            question.changes.append(
                _(
                    "the answer %(answer)g worth %(weight)g%% is not kept: a number is right or wrong"
                )
                % {"answer": value, "weight": fraction}
            )
        elif feedback:
            mistakes.append({"answer": value, "feedback": feedback})
        else:
            question.changes.append(
                _("the wrong answer %(answer)g has no feedback, so it is not kept")
                % {"answer": value}
            )
    if right is None:
        bank.left_out.append(
            LeftOut(question.name, "numerical", _("no answer is worth full marks"))
        )
        return
    question.kind = "number"
    question.values["answer"] = right[0]
    if right[1]:
        question.values["tolerance"] = right[1]
    for unit in element.findall("units/unit"):
        multiplier = _number(unit.findtext("multiplier") or "1")
        unit_name = (unit.findtext("unit_name") or "").strip()
        if multiplier == 1 and unit_name and "units" not in question.values:
            question.values["units"] = unit_name
        elif unit_name:
            question.changes.append(
                _(
                    "the unit '%(unit)s' (× %(multiplier)s) is not kept: a number question has one unit"
                )
                % {"unit": unit_name, "multiplier": multiplier}
            )
    if mistakes:
        question.values["mistakes"] = mistakes
    bank.questions.append(question)


def _shortanswer(bank: Bank, question: Question, element: ET.Element) -> None:
    _body(question, element)
    accepted = []
    for answer in element.findall("answer"):
        fraction, text = _fraction(answer), " ".join(_text(answer).split())
        if not text:
            continue
        if fraction < 100:
            if fraction > 0:
                question.changes.append(
                    _(
                        "the answer '%(answer)s' worth %(weight)g%% is not kept: a blank is right or wrong"
                    )
                    % {"answer": text, "weight": fraction}
                )
            elif _text(answer.find("feedback")).strip():
                question.changes.append(
                    _(
                        "the wrong answer '%(answer)s' and its feedback are not kept: a blank has no feedback of its own"
                    )
                    % {"answer": text}
                )
            continue
        if _text(answer.find("feedback")).strip():
            question.changes.append(
                _(
                    "the feedback of the answer '%(answer)s' is not kept: a blank has none of its own"
                )
                % {"answer": text}
            )
        accepted.append(text)
    case_sensitive = (element.findtext("usecase") or "0").strip() == "1"
    blank = short_answer_blank(accepted, case_sensitive=case_sensitive)
    if blank is None:
        why = (
            _("every answer it accepts has a * wildcard: add one a learner could type")
            if accepted
            else _("no answer is worth full marks")
        )
        bank.left_out.append(LeftOut(question.name, "shortanswer", why))
        return
    question.kind = "blanks"
    question.values |= {"text": "{{answer}}", "blanks": [blank]}
    bank.questions.append(question)


_READERS = {
    "multichoice": _multichoice,
    "truefalse": _truefalse,
    "numerical": _numerical,
    "shortanswer": _shortanswer,
}


# -- writing --------------------------------------------------------------------------------


def _add_text(
    parent: ET.Element, tag: str, text: str, *, text_format: str | None = MARKDOWN
) -> ET.Element:
    element = ET.SubElement(parent, tag)
    if text_format:
        element.set("format", text_format)
    ET.SubElement(element, "text").text = text
    return element


def _answer(
    parent: ET.Element,
    fraction: float,
    text: str,
    feedback: str = "",
    *,
    text_format: str | None = MARKDOWN,
) -> ET.Element:
    answer = ET.SubElement(parent, "answer", fraction=f"{fraction:.7g}")
    if text_format:
        answer.set("format", text_format)
    ET.SubElement(answer, "text").text = text
    if feedback:
        _add_text(answer, "feedback", feedback)
    return answer


def _number_text(value: float) -> str:
    value = neat_number(float(value))
    return str(value) if isinstance(value, int) else repr(value)


def write_moodle(questions: Iterable[Question]) -> tuple[str, list[str]]:
    """Moodle XML for Parsnip's questions (texts in Moodle's Markdown format), and a line
    for each question that Moodle cannot hold as it is."""
    quiz = ET.Element("quiz")
    notes = []
    for question in questions:
        values, said = question.values, []
        kind = question.kind
        if kind == "blanks" and (
            len(values["blanks"]) != 1
            or values["text"].strip() != "{{" + values["blanks"][0]["key"] + "}}"
        ):
            notes.append(
                f"'{question.name}': "
                + _("left out: Moodle's short answer has one blank and no text around it")
            )
            continue
        if kind not in ("choice", "checkboxes", "number", "blanks"):
            notes.append(
                f"'{question.name}': "
                + _("left out: Moodle XML has no %(kind)s questions") % {"kind": kind}
            )
            continue
        options = values.get("options", [])
        true_false = kind == "choice" and sorted(option["key"] for option in options) == [
            "false",
            "true",
        ]
        moodle_type = {
            "choice": "multichoice",
            "checkboxes": "multichoice",
            "number": "numerical",
            "blanks": "shortanswer",
        }[kind]
        element = ET.SubElement(quiz, "question", type="truefalse" if true_false else moodle_type)
        _add_text(element, "name", values.get("title") or question.name, text_format=None)
        _add_text(element, "questiontext", values.get("body", ""))
        ET.SubElement(element, "defaultgrade").text = "1"
        if true_false:
            for option in options:
                _answer(
                    element,
                    100 if option.get("right") else 0,
                    option["key"],
                    option.get("feedback", ""),
                    text_format=None,
                )
        elif kind in ("choice", "checkboxes"):
            ET.SubElement(element, "single").text = "true" if kind == "choice" else "false"
            ET.SubElement(element, "shuffleanswers").text = (
                "1" if values.get("shuffle", True) else "0"
            )
            rights = sum(1 for option in options if option.get("right"))
            wrongs = len(options) - rights
            for option in options:
                if kind == "choice":
                    fraction = 100 if option.get("right") else 0
                else:
                    fraction = 100 / rights if option.get("right") else -100 / wrongs
                _answer(element, fraction, option["text"], option.get("feedback", ""))
            if (
                kind == "checkboxes"
                and values.get("scoring", "right-minus-wrong") != "right-minus-wrong"
            ):
                said.append(
                    _("its scoring '%(scoring)s' (Moodle scores right minus wrong)")
                    % {"scoring": values["scoring"]}
                )
        elif kind == "number":
            tolerance = values.get("tolerance") or 0
            if values.get("relative_tolerance") and not tolerance:
                tolerance = abs(values["answer"]) * values["relative_tolerance"]
                said.append(_("its relative tolerance, written as the same absolute one"))
            elif values.get("relative_tolerance"):
                said.append(_("its relative tolerance"))
            answer = _answer(element, 100, _number_text(values["answer"]), text_format=None)
            ET.SubElement(answer, "tolerance").text = _number_text(tolerance)
            for mistake in values.get("mistakes") or []:
                wrong = _answer(
                    element,
                    0,
                    _number_text(mistake["answer"]),
                    mistake["feedback"],
                    text_format=None,
                )
                ET.SubElement(wrong, "tolerance").text = "0"
            if values.get("units"):
                unit = ET.SubElement(ET.SubElement(element, "units"), "unit")
                ET.SubElement(unit, "multiplier").text = "1"
                ET.SubElement(unit, "unit_name").text = values["units"]
        else:
            blank = values["blanks"][0]
            ET.SubElement(element, "usecase").text = "1" if blank.get("case_sensitive") else "0"
            written = wildcards_of(blank)
            if blank.get("pattern") and written == blank["answers"]:
                said.append(_("its pattern"))
            if values.get("spaces", "collapse") != "collapse":
                said.append(_("how spaces count"))
            for answer in written:
                _answer(element, 100, answer, text_format=None)
        if said:
            notes.append(
                f"'{question.name}': " + _("written without %(what)s") % {"what": ", ".join(said)}
            )
    ET.indent(quiz)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(
        quiz, encoding="unicode"
    ) + "\n", notes
