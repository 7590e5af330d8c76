"""Rows the quiz tests share: a lesson with a question of each kind (and a snippet, which a
quiz leaves out), a class with a student, and a quiz assignment of it."""

from datetime import timedelta

from django.utils import timezone

from tests.factories import make_cohort, make_lesson, make_snippet, make_teacher, make_user
from tests.tutor.question_world import make_question
from tutor.assignments.models import Assignment
from tutor.practice.questions.answers import option_token

KINDS = ("choice", "checkboxes", "number", "blanks")


def quiz_lesson():
    lesson = make_lesson()
    make_snippet(lesson)
    questions = {kind: make_question(kind, lesson, key=f"q-{kind}") for kind in KINDS}
    return lesson, questions


def make_quiz(cohort=None, lesson=None, *, blocks=(), opens=None, due=None, **settings) -> Assignment:
    now = timezone.now()
    if lesson is None:
        lesson, _questions = quiz_lesson()
    settings.setdefault("quiz", True)
    quiz = Assignment.objects.create(
        cohort=cohort or make_cohort(make_teacher(), students=[make_user()]),
        lesson=lesson,
        whole_lesson=not blocks,
        opens_at=opens or now - timedelta(days=1),
        due_at=due or now + timedelta(days=1),
        **settings,
    )
    quiz.blocks.set(blocks)
    return quiz


def right_answers(student, questions: dict) -> dict:
    """The form's fields that answer every question right (names prefixed per question)."""
    choice, boxes, number, blanks = (questions[k] for k in KINDS)
    return {
        f"q{choice.pk}-option": option_token(student.pk, choice.pk, "llama"),
        f"q{boxes.pk}-option": [option_token(student.pk, boxes.pk, "llama"), option_token(student.pk, boxes.pk, "ollama")],
        f"q{number.pk}-number": "12.5 GB",
        f"q{blanks.pk}-blank-bits": "8",
        f"q{blanks.pk}-blank-format": "fp16",
    }


def wrong_choice(student, choice) -> dict:
    return {f"q{choice.pk}-option": option_token(student.pk, choice.pk, "wrong-vllm")}
