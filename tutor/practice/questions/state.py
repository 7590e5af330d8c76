"""What one learner's question shows: the options in their order, what they answered last
and how it was graded, the tries left, and once the question is finished (answered right,
or every try used) the right answer with every option's feedback. Until then nothing on
the page tells which option is right."""

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.urls import reverse

from course import htmx
from course.kinds.blanks import pieces
from course.kinds.questions import with_parameters
from tutor.assignments.closing import quiz_holding
from tutor.practice.questions import grading, variants
from tutor.practice.questions.actions import allowed_tries, values_graded
from tutor.practice.questions.answers import option_order, option_token
from tutor.practice.questions.models import QuestionAnswer, QuestionTries


@dataclass
class ShownOption:
    token: str
    text: str
    chosen: bool = False
    right: bool | None = None  # told only once the question is finished
    feedback: str = ""  # the author's words, once chosen or finished


@dataclass
class ShownPiece:
    text: str = ""
    blank: str = ""  # the blank's name, for a blank
    number: int = 0  # the blank's place among the blanks, from 1
    value: str = ""  # what the learner typed in it last
    right: bool | None = None  # told once answered
    accepted: str = ""  # a right answer, once finished


@dataclass
class QuestionPractice:
    block: object
    kind: str
    signed_in: bool
    login_url: str = ""
    options: list[ShownOption] = field(default_factory=list)
    pieces: list[ShownPiece] = field(default_factory=list)
    units: str = ""
    number: str = ""  # the number the learner typed last
    right_number: str = ""  # once finished
    tries: int = 0
    allowed: int = 1
    finished: bool = False
    right: bool = False
    score: float = 0.0
    last: QuestionAnswer | None = None
    graded: grading.Graded | None = None
    # A question that computes its answer: the learner's variant, and the body with its values.
    variant: dict = field(default_factory=dict)
    stem: str = ""
    # Fill in the code: what the program must print, what the last answer's printed, and
    # whether fills are waiting for their program's run (not yet a try).
    expected_output: str = ""
    tests: list[dict] = field(default_factory=list)  # graded by tests: the visible ones
    hidden_tests: int = 0
    output: str = ""
    error: str = ""
    pending: bool = False
    # A quiz of the learner's class holds the question now: answered there, not here.
    quiz: object = None

    @property
    def quiz_url(self) -> str:
        return reverse("tutor:quiz_start", args=[self.quiz.pk]) if self.quiz else ""

    @property
    def tries_left(self) -> int:
        return max(0, self.allowed - self.tries)

    @property
    def can_answer(self) -> bool:
        return self.signed_in and not self.finished

    @property
    def feedback(self) -> tuple[str, ...]:
        """The author's words for the last answer (a number's mistake)."""
        if self.graded is None or self.kind in ("choice", "checkboxes"):
            return ()
        return self.graded.feedback

    @property
    def percent(self) -> int:
        return round(100 * self.score)

    @property
    def answer_url(self) -> str:
        return reverse("tutor:question_answer", args=[self.block.pk])

    @property
    def anchor(self) -> str:
        return f"question-{self.block.key}"


def _number_text(value: float) -> str:
    return f"{value:.12g}"


def build(
    block, values: dict, *, user, tries: QuestionTries | None, last: QuestionAnswer | None,
    lesson_url: str, variant_answer=None, variant: dict | None = None,
) -> QuestionPractice:
    """`variant_answer`: the variant's kept answer, when the caller has it (else looked up
    here for a question that needs it); `variant`: another variant than the learner's own
    (a review's)."""
    signed_in = user.is_authenticated
    state = QuestionPractice(
        block=block, kind=block.kind, signed_in=signed_in,
        login_url=htmx.login_url(f"{lesson_url}#question-{block.key}"),
        allowed=allowed_tries(values),
    )
    if tries is not None:
        state.tries, state.finished = tries.tries, tries.finished
        state.right, state.score = tries.right_at is not None, tries.score
    if variants.computes(values):
        state.variant = variant if variant is not None else variants.learner_variant(
            block, values, user_id=user.pk if signed_in else None)
        state.stem = with_parameters(block.body, state.variant)
        if block.kind != "number":  # its texts, and once answered its right options or blanks
            if variant_answer is None and signed_in and (last is not None or state.finished):
                variant_answer = variants.kept_answer(block, values, state.variant)
            values = block.kind_spec.for_variant(values, state.variant, variant_answer)
    if last is not None:
        state.last = last
        state.graded = grading.grade(block.kind, values_graded(values, last), last.answer)
    finished = state.finished
    if block.kind in ("choice", "checkboxes"):
        by_key = {option["key"]: option for option in values["options"]}
        chosen = set(last.answer) if last is not None else set()
        user_id = user.pk if signed_in else None
        for key in option_order(values, user_id=user_id, block_id=block.pk):
            option = by_key[key]
            shown = key in chosen or finished
            known = finished and not (variants.computes(values) and variant_answer is None)
            state.options.append(
                ShownOption(
                    option_token(user_id, block.pk, key), option["text"], chosen=key in chosen,
                    right=bool(option.get("right")) if known else None,
                    feedback=option.get("feedback", "") if shown else "",
                )
            )
    elif block.kind == "number":
        state.units = values.get("units") or ""
        if last is not None:
            state.number = last.answer.get("text", "")
        right = variant_answer if state.variant or variants.computes(values) else values.get("answer")
        if finished and right is not None:
            state.right_number = _number_text(right)
    elif block.kind in ("blanks", "code_blanks"):
        blanks = {blank["key"]: blank for blank in values["blanks"]}
        typed = last.answer if last is not None else {}
        parts = state.graded.parts if state.graded is not None else {}
        if block.kind == "code_blanks":
            state.expected_output = values["expected_output"]
            tests = values.get("tests") or []
            state.tests = [test for test in tests if test.get("shown") != "hidden"]
            state.hidden_tests = len(tests) - len(state.tests)
            typed = typed.get("fills", {})
            if last is not None and not state.graded.right:
                state.output, state.error = last.answer.get("output", ""), last.answer.get("error", "")
            if tries is not None and tries.pending and not finished:
                typed, state.pending = tries.pending, True
            # The solution, once earned: shown in the blank's place as a right answer.
            blanks = {key: {"answers": [blank["solution"]]} for key, blank in blanks.items()}
        number = 0
        for what, text in pieces(values["text" if block.kind == "blanks" else "code"]):
            if what == "text":
                state.pieces.append(ShownPiece(text=text))
                continue
            number += 1
            answers = blanks.get(text, {}).get("answers", [])
            state.pieces.append(
                ShownPiece(
                    blank=text, number=number, value=typed.get(text, ""), right=parts.get(text),
                    accepted=answers[0] if finished and answers else "",
                )
            )
    return state


def states(blocks: list, *, user: AbstractBaseUser | AnonymousUser) -> dict[int, QuestionPractice]:
    """Each question's state for this learner: two queries for any number of questions."""
    if not blocks:
        return {}
    tries: dict[int, QuestionTries] = {}
    last: dict[int, QuestionAnswer] = {}
    if user.is_authenticated:
        tries = {row.block_id: row for row in QuestionTries.objects.filter(user=user, block__in=blocks)}
        # A quiz's answers are not this question's practice (tutor/quizzes/).
        practised = QuestionAnswer.objects.filter(user=user, block__in=blocks, attempt__isnull=True)
        for answer in practised.order_by("created_at", "pk"):
            last[answer.block_id] = answer
    lesson_url = blocks[0].lesson.get_absolute_url()
    values = {block.pk: block.kind_spec.values_of(block) for block in blocks}
    # The kept answers of the variants finished questions show: one query.
    shown = {}
    for block in blocks:
        row = tries.get(block.pk)
        answered = row is not None and (row.finished or (block.pk in last and block.kind != "number"))
        if answered and variants.computes(values[block.pk]):
            chosen = variants.learner_variant(block, values[block.pk], user_id=user.pk)
            shown[block.pk] = variants.program_for(values[block.pk], chosen)
    kept = variants.kept(list(shown.items())) if shown else {}
    found = {
        block.pk: build(
            block, values[block.pk], user=user, tries=tries.get(block.pk),
            last=last.get(block.pk), lesson_url=lesson_url,
            variant_answer=getattr(kept.get((block.pk, shown.get(block.pk))), "value", None),
        )
        for block in blocks
    }
    for pk, quiz in quiz_holding(user, blocks).items():
        found[pk].quiz = quiz
    return found
