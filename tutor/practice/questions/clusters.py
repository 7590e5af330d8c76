"""Questions' wrong answers, grouped: a wrong option (or set of options ticked), a wrong
number, the same wrong words in the same blanks. A student who answered right once counts
as right; otherwise their latest answer is grouped."""

from django.db.models import Q
from django.utils.translation import gettext as _

from course.models import Block
from tutor.clusters.groups import Distribution, Group, gather, group_key, quoted
from tutor.practice.questions import grading
from tutor.practice.questions.models import QuestionAnswer
from tutor.practice.questions.teaching import answer_text


def answer_group(block: Block, values: dict, answer, graded: grading.Graded) -> Group:
    text = answer_text(block.kind, values, answer)
    if block.kind == "choice":
        description = _("Chose %(option)s") % {"option": quoted(text)}
    elif block.kind == "checkboxes":
        description = _("Ticked %(options)s") % {"options": quoted(text)}
    elif block.kind == "number":
        description = _("Answered %(number)s") % {"number": graded.group[0] if graded.group else text}
        text = graded.group[0] if graded.group else text
    else:
        description = "; ".join(
            _("%(blank)s: %(words)s") % {"blank": name, "words": quoted(words)} for name, words in graded.group
        )
        text = "\n".join(f"{name}: {words}" for name, words in graded.group)
    return Group(group_key(block.kind, block.pk, graded.group), description, text, label=description)


def right_answer(block: Block, values: dict) -> str:
    if block.kind in ("choice", "checkboxes"):
        return "; ".join(option["text"] for option in values["options"] if option.get("right"))
    if block.kind == "number" and values.get("answer") is None:
        return _("computed for each learner's variant")
    if block.kind == "number":
        return f"{values['answer']:.12g}" + (f" {values['units']}" if values.get("units") else "")
    if block.kind == "code_blanks":
        return "\n".join(f"{blank['key']}: {blank['solution']}" for blank in values["blanks"])
    return "\n".join(f"{blank['key']}: {blank['answers'][0]}" for blank in values["blanks"] if blank["answers"])


def cluster_of(state) -> tuple[int, Group] | None:
    """The learner's latest answer, when it was wrong."""
    if state is None or state.last is None or state.graded is None or state.graded.right:
        return None
    block = state.block
    values = block.kind_spec.values_of(block)
    return block.pk, answer_group(block, values, state.last.answer, state.graded)


def clusters(*, in_class: Q, blocks: list, kind: str) -> dict[int, Distribution]:
    """Each student's latest answer (a student right once counts as right): two queries."""
    questions = list(Block.objects.filter(pk__in=[getattr(b, "pk", b) for b in blocks], kind=kind))
    if not questions:
        return {}
    rows = (
        QuestionAnswer.objects.filter(in_class, block__in=questions)
        .order_by("created_at", "pk")
        .values_list("block_id", "user_id", "answer", "right", "expected")
    )
    latest: dict[int, dict[int, tuple]] = {block.pk: {} for block in questions}
    right: dict[int, set[int]] = {block.pk: set() for block in questions}
    for block_id, user_id, answer, was_right, expected in rows:
        if was_right:
            right[block_id].add(user_id)
        latest[block_id][user_id] = (answer, expected)
    found = {}
    for block in questions:
        values = block.kind_spec.values_of(block)
        wrong = {}
        for user_id, (answer, expected) in latest[block.pk].items():
            if user_id in right[block.pk]:
                continue
            graded = grading.grade(block.kind, values if expected is None else {**values, "answer": expected}, answer)
            if not graded.right:
                wrong[user_id] = answer_group(block, values, answer, graded)
        found[block.pk] = gather(block.pk, right[block.pk], wrong, right_answer=right_answer(block, values))
    return found
