"""Items with hint ladders for tests: a code exercise, an ordering exercise and questions."""

from course.kinds.code_exercise import CodeExercise, CodeTest
from course.models import Block
from tests.factories import make_block, make_exercise, make_lesson
from tests.tutor.question_world import make_question

CODE_HINTS = ["Start with a `def`.", "Halve with `//`."]
SOLUTION = "def half(n):\n\n    return n // 2\n"


def code_with_hints(lesson=None, *, hints=CODE_HINTS, key="halves") -> Block:
    block = make_block(lesson or make_lesson(), "code_exercise", key=key, values={"hints": list(hints)})
    exercise = CodeExercise.objects.create(block=block, solution=SOLUTION)
    CodeTest.objects.create(exercise=exercise, key="t", name="halves 4", check_code="assert half(4) == 2")
    return reloaded(block)


def ordering_with_hints(lesson=None, *, hints=("Print comes last.",)) -> Block:
    exercise = make_exercise(lesson, lines=["x = 1", "y = x + 1", "print(y)"], distractors=["print(x"], key="order-me")
    Block.objects.filter(pk=exercise.block_id).update(values={"hints": list(hints)})
    return reloaded(exercise.block)


def question_with_hints(kind="choice", lesson=None, *, hints=("Which is written in C++?",), **values) -> Block:
    return make_question(kind, lesson, hints=list(hints), **values)


def reloaded(block) -> Block:
    return Block.objects.select_related("lesson__course", "code_exercise", "ordering_exercise").get(pk=block.pk)
