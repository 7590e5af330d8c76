"""What teachers see of questions: how the class answered each question of a lesson (each
option's share of first answers, the common wrong numbers and blanks), a student's answers
in their timeline, and the attempts CSV rows."""

import statistics
from collections import Counter
from collections.abc import Iterator
from datetime import datetime

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from course.models import Block
from tutor import teaching
from tutor.practice.questions.models import QuestionAnswer, QuestionTries

PERSON = ("user__username", "user__first_name", "user__last_name")


def answer_text(kind: str, values: dict, answer) -> str:
    """An answer as a teacher reads it: the options' texts, the number typed, the blanks."""
    if kind in ("choice", "checkboxes"):
        texts = {option["key"]: option["text"] for option in values["options"]}
        return "; ".join(texts.get(key, f"[{key}]") for key in answer)
    if kind == "number":
        return answer.get("text", "")
    if kind == "blanks":
        return "; ".join(f"{name}: {text}" for name, text in answer.items())
    if kind == "code_blanks":
        return "; ".join(f"{name}: {text}" for name, text in answer.get("fills", {}).items())
    return str(answer)


def variant_text(variant: dict, expected: float | None) -> str:
    """A learner's variant beside their answer: "bits=8, units=3000 (answer 24)"."""
    if not variant and expected is None:
        return ""
    values = ", ".join(f"{name}={value}" for name, value in variant.items())
    if expected is None:  # a question whose variant's answer is not a number
        return _("variant %(values)s") % {"values": values or "—"}
    return _("variant %(values)s (its answer %(answer)s)") % {
        "values": values or "—", "answer": f"{expected:.12g}" if expected is not None else "?",
    }


def _percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def analyse(block: Block, answers: list[tuple], tries: list[tuple]) -> teaching.ItemAnalysis:
    """answers: (user pk, answer, right, try number) oldest first; tries: (user pk, tries,
    right) per student."""
    values = block.kind_spec.values_of(block)
    item = teaching.ItemAnalysis(f"{block.kind}-{block.key}", block.title or block.key)
    answered = len(tries)
    right = sum(1 for _, _, was_right in tries if was_right)
    if answered:
        item.headline = _("%(right)d of %(answered)d who answered got it right (%(share)s)") % {
            "right": right, "answered": answered, "share": _percent(right, answered)
        }
        first = [(user, answer, ok) for user, answer, ok, number in answers if number == 1]
        first_right = sum(1 for _, _, ok in first if ok)
        item.figures = [
            (_("Right on the first try"), _percent(first_right, len(first))),
            (_("Tries (median)"), f"{statistics.median(n for _, n, _ in tries):g}"),
        ]
        if block.kind in ("choice", "checkboxes"):
            chosen = Counter(key for _, answer, _ in first for key in answer)
            shares = []
            for option in values["options"]:
                mark = _(" (right)") if option.get("right") else ""
                shares.append((
                    f"{option['text']}{mark} — {_percent(chosen[option['key']], len(first))}",
                    chosen[option["key"]],
                ))
            item.rankings.append((_("Each option's share of first answers"), shares))
        else:
            wrong = Counter(
                answer_text(block.kind, values, answer) for _, answer, ok, _n in answers if not ok
            )
            item.rankings.append(
                (_("Most common wrong answers"), wrong.most_common(5))
            )
    return item


def analyses(*, in_class: Q, lesson, kind: str) -> list[teaching.ItemAnalysis]:
    blocks = list(Block.objects.filter(lesson=lesson, kind=kind).order_by("position", "pk"))
    answers = teaching.grouped(
        QuestionAnswer.objects.filter(in_class, block__in=blocks)
        .order_by("created_at", "pk")
        .values_list("block_id", "user_id", "answer", "right", "try_number"),
        lambda row: row[1:],
    )
    tries = teaching.grouped(
        QuestionTries.objects.filter(in_class, block__in=blocks, tries__gt=0)
        .values_list("block_id", "user_id", "tries", "right_at"),
        lambda row: (row[1], row[2], row[3] is not None),
    )
    return [analyse(block, answers.get(block.pk, []), tries.get(block.pk, [])) for block in blocks]


def events(*, student, limit: int, kind: str) -> list[teaching.Event]:
    answers = (
        QuestionAnswer.objects.filter(user=student, block__kind=kind)
        .select_related("block__lesson__course")
        .order_by("-created_at", "-pk")[:limit]
    )
    found = []
    for answer in answers:
        block = answer.block
        values = block.kind_spec.values_of(block)
        verdict = _("Right") if answer.right else (
            _("%(share)s right") % {"share": _percent(round(answer.score * 100), 100)} if answer.score else _("Wrong")
        )
        found.append(
            teaching.Event(
                kind, answer.created_at, answer,
                detail="\n".join(
                    part for part in (answer_text(kind, values, answer.answer),
                                      variant_text(answer.variant, answer.expected)) if part
                ),
                title=_("Answered “%(question)s” (try %(n)d)") % {"question": block.title or block.key, "n": answer.try_number},
                link=f"{block.lesson.get_absolute_url()}#question-{block.key}",
                place=block.lesson.title,
                verdict=verdict,
                tone="right" if answer.right else "wrong",
            )
        )
    return found


def attempt_rows(*, in_class: Q, chunk: int, kind: str) -> list[Iterator[tuple[datetime, list]]]:
    """Every answer of the class's students to this kind of question, oldest first."""
    blocks = {block.pk: block for block in Block.objects.filter(kind=kind)}

    def rows():
        answers = (
            QuestionAnswer.objects.filter(in_class, block__kind=kind)
            .order_by("created_at", "pk")
            .values_list(
                "created_at", *PERSON, "block__lesson__course__title", "block__lesson__title",
                "block_id", "answer", "right", "score", "variant", "expected",
            )
            .iterator(chunk_size=chunk)
        )
        for when, username, first, last, course, lesson, block_id, answer, right, score, variant, expected in answers:
            block = blocks.get(block_id)
            values = block.kind_spec.values_of(block) if block is not None else {}
            text = answer_text(kind, values, answer) if block is not None else str(answer)
            if variant or expected is not None:
                text = f"{text} [{variant_text(variant, expected)}]"
            verdict = "right" if right else f"{score:.0%}"
            yield when, [
                kind, username, f"{first} {last}".strip(), when.isoformat(), course, lesson,
                (block.title or block.key) if block else "", "", verdict, "", text, "", "", "",
            ]

    return [rows()]


def progress_words(kind: str, counts: dict[str, int]) -> str:
    """A lesson's questions of one kind on My progress, the kind named: a lesson with
    several kinds lists each, and "1 of 1 question answered" twice read as a repeat."""
    words = {
        "choice": ngettext(
            "%(done)d of %(total)d multiple choice question answered (%(right)d right)",
            "%(done)d of %(total)d multiple choice questions answered (%(right)d right)",
            counts["total"],
        ),
        "checkboxes": ngettext(
            "%(done)d of %(total)d checkbox question answered (%(right)d right)",
            "%(done)d of %(total)d checkbox questions answered (%(right)d right)",
            counts["total"],
        ),
        "number": ngettext(
            "%(done)d of %(total)d number question answered (%(right)d right)",
            "%(done)d of %(total)d number questions answered (%(right)d right)",
            counts["total"],
        ),
        "code_blanks": ngettext(
            "%(done)d of %(total)d fill-in-the-code question answered (%(right)d right)",
            "%(done)d of %(total)d fill-in-the-code questions answered (%(right)d right)",
            counts["total"],
        ),
    }.get(kind) or ngettext(
        "%(done)d of %(total)d fill-in-the-blanks question answered (%(right)d right)",
        "%(done)d of %(total)d fill-in-the-blanks questions answered (%(right)d right)",
        counts["total"],
    )
    return words % {"done": counts["done"], "total": counts["total"], "right": counts.get("right", 0)}
