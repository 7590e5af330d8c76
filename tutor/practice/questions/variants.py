"""Variants of a question that computes its answer: a number, blanks, choice or checkboxes
question with a `program` (what each prints is read by `read_output`).

Each learner's variant is chosen by learner and question (the same on every visit, in every
tab: reloading never draws another). Its answer is what the program prints when run in the
sandbox with the variant's values as variables: run once per variant, by the worker (a Run
of no learner, purpose CONTENT) or by `manage.py check_content`, and kept in a
QuestionVariant row that every learner with that variant is graded against. The web
process never runs the program itself.
"""

import json
import random
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from course.kinds.questions import variants
from tutor import sandbox
from tutor.actions.runs import queue_run
from tutor.models import Run, code_digest
from tutor.practice.questions.models import QuestionVariant


class VariantNotReady(Exception):
    """The variant's answer is being computed (or could not be): the message says which."""


def computes(values: dict) -> bool:
    return bool((values.get("program") or "").strip())


def variants_of(block, values: dict) -> list[dict]:
    return variants(values, key=f"{block.lesson_id}:{block.key}")


def learner_variant(block, values: dict, *, user_id: int | None) -> dict:
    """The variant this learner answers; a reader who is not logged in sees the first."""
    every = variants_of(block, values)
    if user_id is None or len(every) == 1:
        return every[0]
    return every[random.Random(f"variant:{user_id}:{block.pk}").randrange(len(every))]


def program_for(values: dict, chosen: dict) -> str:
    """The program as it runs for one variant: each parameter assigned, then the author's code."""
    lines = [f"{name} = {value!r}" for name, value in chosen.items()]
    return "\n".join([*lines, values["program"]]) if lines else values["program"]


def answer_from(result_status: str, stdout: str, stderr: str, *, kind: str = "number", values: dict | None = None):
    """What a variant's run printed on its last line that is not empty, as the question's
    kind reads it (a number; a blank's answers; the right options' keys), or why nothing."""
    if result_status != "ok":
        last = (stderr.strip().splitlines() or [result_status])[-1]
        return None, _("the program stopped: %(why)s") % {"why": last}
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None, _("the program printed nothing: it must print the answer")
    if kind == "blanks":
        return _blank_answers(lines[-1], values or {})
    if kind in ("choice", "checkboxes"):
        return _right_keys(lines[-1], values or {}, one=kind == "choice")
    try:
        number = float(lines[-1])
    except ValueError:
        return None, _("the program's last line is not a number: %(line)s") % {"line": lines[-1][:80]}
    if number != number or number in (float("inf"), float("-inf")):
        return None, _("the program printed %(line)s, not a number to compare with") % {"line": lines[-1]}
    return number, ""


def _blank_answers(line: str, values: dict) -> tuple[dict | None, str]:
    """{blank name: [accepted answers]} from a line of JSON, each blank of the text given."""
    try:
        printed = json.loads(line)
    except ValueError:
        printed = None
    if not isinstance(printed, dict):
        return None, _('the program\'s last line is not a JSON object of blanks, e.g. {"size": "4"}: %(line)s') % {
            "line": line[:80]}
    answers = {}
    for blank in values.get("blanks", []):
        given = printed.get(blank["key"])
        given = given if isinstance(given, list) else [given]
        texts = [str(answer) for answer in given if isinstance(answer, str | int | float) and not isinstance(answer, bool)]
        if given == [None] or not texts or len(texts) != len(given) or not all(text.strip() for text in texts):
            return None, _("the program gives blank '%(blank)s' no answer (a text, or a list of texts)") % {
                "blank": blank["key"]}
        pattern = blank.get("pattern")
        if pattern:
            from course.kinds.blanks import accepts

            for text in texts:
                if not accepts({**blank, "answers": []}, text, spaces=values.get("spaces") or "collapse"):
                    return None, _("the pattern of blank '%(blank)s' does not match the answer '%(answer)s'") % {
                        "blank": blank["key"], "answer": text[:80]}
        answers[blank["key"]] = texts
    unknown = sorted(set(printed) - set(answers))
    if unknown:
        return None, _("the program gives '%(name)s', which is not a blank of the text") % {"name": unknown[0]}
    return answers, ""


def _right_keys(line: str, values: dict, *, one: bool) -> tuple[list | None, str]:
    """The right options' keys the line names (separated by spaces or commas)."""
    keys = [option["key"] for option in values.get("options", [])]
    printed = list(dict.fromkeys(line.replace(",", " ").split()))
    unknown = [key for key in printed if key not in keys]
    if unknown:
        return None, _("the program printed '%(key)s', which is not an option's key (the keys: %(keys)s)") % {
            "key": unknown[0][:40], "keys": ", ".join(keys)}
    if one and len(printed) != 1:
        return None, _("the program printed %(count)d keys: a choice has one right option") % {"count": len(printed)}
    return printed, ""


def keep(*, block, chosen: dict, code: str, status: str, stdout: str, stderr: str, run: Run | None = None) -> QuestionVariant:
    answer, problem = answer_from(status, stdout, stderr, kind=block.kind, values=block.kind_spec.values_of(block))
    number = answer if block.kind == "number" else None
    row, _created = QuestionVariant.objects.update_or_create(
        block=block, code_hash=code_digest(code),
        defaults={"parameters": chosen, "answer": number, "computed": answer, "problem": problem, "run": run,
                  "computed_at": timezone.now()},
    )
    return row


def kept_answer(block, values: dict, chosen: dict):
    """The variant's kept answer (see `answer_of`), or None when none is kept yet."""
    row = kept([(block.pk, program_for(values, chosen))]).get((block.pk, program_for(values, chosen)))
    return None if row is None else row.value


def kept(blocks_and_codes: list[tuple[int, str]]) -> dict[tuple[int, str], QuestionVariant]:
    """The kept variants of (block pk, program as run) pairs: one query."""
    hashes = {code_digest(code) for _, code in blocks_and_codes}
    rows = QuestionVariant.objects.filter(block__in={pk for pk, _ in blocks_and_codes}, code_hash__in=hashes)
    by_key = {(row.block_id, row.code_hash): row for row in rows}
    return {(pk, code): by_key[(pk, code_digest(code))] for pk, code in blocks_and_codes if (pk, code_digest(code)) in by_key}


def answer_of(block, values: dict, chosen: dict, *, wait_seconds: float):
    """The variant's answer (a number; {blank: [answers]}; the right options' keys): kept,
    or computed by the worker now (waiting up to `wait_seconds`). Raises VariantNotReady
    when it is still being computed or failed."""
    code = program_for(values, chosen)
    row = QuestionVariant.objects.filter(block=block, code_hash=code_digest(code)).first()
    if row is None or (row.value is None and not row.problem):
        run = _computing(block, chosen, code)
        if not run.is_final and wait_seconds:
            run.wait_until_final(wait_seconds)
            run.refresh_from_db()
        if not run.is_final or run.status == Run.Status.FAILED:  # FAILED: Parsnip lost the run
            raise VariantNotReady(_("Your question is still being prepared. Answer again in a moment."))
        row = keep(block=block, chosen=chosen, code=code, status=run.status, stdout=run.stdout, stderr=run.stderr, run=run)
    if row.value is None:
        raise VariantNotReady(_("This question cannot be graded now: its program failed. Your teacher can see why."))
    return row.value


def _computing(block, chosen: dict, code: str) -> Run:
    """The worker's run of this variant: the one under way, or a new one."""
    runs = Run.objects.filter(code_hash=code_digest(code), purpose=Run.Purpose.CONTENT, user=None, snippet=None)
    latest = runs.order_by("-created_at", "-pk").first()
    if latest is not None and latest.status != Run.Status.FAILED:
        return latest
    run = queue_run(code=code, purpose=Run.Purpose.CONTENT)
    try:
        with transaction.atomic():
            QuestionVariant.objects.get_or_create(block=block, code_hash=code_digest(code), defaults={"parameters": chosen, "run": run})
    except IntegrityError:
        pass
    return run


def settle(run: Run) -> int:
    """The worker finished a run: keep the answer of every variant waiting for it."""
    if (run.purpose != Run.Purpose.CONTENT or run.user_id is not None or run.snippet_id is not None
            or run.status == Run.Status.FAILED):
        return 0
    waiting = (
        QuestionVariant.objects.filter(code_hash=run.code_hash)
        .filter(Q(run=run) | Q(answer=None, problem=""))
        .select_related("block")
    )
    for row in waiting:
        keep(block=row.block, chosen=row.parameters, code=run.code, status=run.status,
             stdout=run.stdout, stderr=run.stderr, run=run)
    return len(waiting)


# The author's check: every variant computes an answer ------------------------------------


@dataclass(frozen=True)
class VariantsCheck:
    block: object
    total: int
    failures: tuple[tuple[dict, str], ...]

    @property
    def where(self) -> str:
        lesson = self.block.lesson
        return f"{lesson.course.slug}/{lesson.slug} · {self.block.key}"

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def ok_note(self) -> str:
        return f" ({self.total} variant{'' if self.total == 1 else 's'}, each computed)"

    mismatch_note = ""
    pending = False

    @property
    def report(self) -> list[str]:
        lesson = self.block.lesson
        return [
            *("  " + (", ".join(f"{name}={value!r}" for name, value in chosen.items()) or "the question") + f": {problem}"
              for chosen, problem in self.failures),
            f"  fix: in {lesson.course.slug}/{lesson.slug}.yaml, the block with key '{self.block.key}': "
            f"make its program {FIXES.get(self.block.kind, FIXES['number'])} for every variant",
        ]


FIXES = {  # what a variant's program must print, as check_content tells an author
    "number": "print the answer, a number, on its last line",
    "blanks": 'print on its last line a JSON object of each blank\'s answers, e.g. print(json.dumps({"size": "4"}))',
    "choice": "print the right option's key on its last line",
    "checkboxes": "print the right options' keys, separated by spaces, on its last line",
}


def check_question(block) -> VariantsCheck:
    """Run the program for every variant here and now, keep each answer, and report those that
    give none. Raises sandbox.SandboxUnavailable when code cannot run here."""
    values = block.kind_spec.values_of(block)
    failures = []
    every = variants_of(block, values)
    for chosen in every:
        code = program_for(values, chosen)
        result = sandbox.run(code)
        row = keep(block=block, chosen=chosen, code=code, status=result.status,
                   stdout=result.stdout, stderr=result.stderr)
        if row.value is None:
            failures.append((chosen, row.problem))
    return VariantsCheck(block, len(every), tuple(failures))


# The admin's Check outputs: every variant computed again, by the worker ------------------


def queue_checks(blocks) -> list[Run]:
    """One Run per variant of each question that computes its answer, for the worker; the
    kept answers stay until the runs replace them."""
    runs = []
    with transaction.atomic():
        for block in blocks:
            values = block.kind_spec.values_of(block)
            if not computes(values):
                continue
            for chosen in variants_of(block, values):
                code = program_for(values, chosen)
                run = queue_run(code=code, purpose=Run.Purpose.CONTENT)
                QuestionVariant.objects.update_or_create(
                    block=block, code_hash=code_digest(code), defaults={"parameters": chosen, "run": run}
                )
                runs.append(run)
    return runs


@dataclass(frozen=True)
class QueuedVariantsCheck:
    block: object
    total: int
    waiting: int
    failures: tuple[tuple[dict, str], ...]

    @property
    def where(self) -> str:
        lesson = self.block.lesson
        return f"{lesson.course.slug}/{lesson.slug} · {self.block.key}"

    @property
    def pending(self) -> bool:
        return self.waiting > 0

    @property
    def ok(self) -> bool:
        return not self.pending and not self.failures

    @property
    def problems(self) -> list[str]:
        return [
            (", ".join(f"{name}={value!r}" for name, value in chosen.items()) or "the question") + f": {problem}"
            for chosen, problem in self.failures
        ]


def queued_checks(run_ids) -> list[QueuedVariantsCheck]:
    """The questions' checks among these runs, one per question, in the course's order."""
    rows = (
        QuestionVariant.objects.filter(run__in=list(run_ids))
        .select_related("run", "block__lesson__course")
        .order_by("block__lesson__course__position", "block__lesson__position", "block__position", "pk")
    )
    found: dict[int, dict] = {}
    for row in rows:
        entry = found.setdefault(row.block_id, {"block": row.block, "total": 0, "waiting": 0, "failures": []})
        entry["total"] += 1
        run = row.run.as_seen()
        if not run.is_final:
            entry["waiting"] += 1
            continue
        block = entry["block"]
        answer, problem = answer_from(run.status, run.stdout, run.stderr, kind=block.kind,
                                      values=block.kind_spec.values_of(block))
        if answer is None:
            entry["failures"].append((row.parameters, problem))
    return [
        QueuedVariantsCheck(entry["block"], entry["total"], entry["waiting"], tuple(entry["failures"]))
        for entry in found.values()
    ]
