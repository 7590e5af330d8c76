"""The topics of a course's quiz questions (each question's `topics`, course/kinds/questions.py),
and the questions on some of them: the pool a drawn quiz draws from (every question kind,
fill-in-the-code included: its program runs in the worker, as in any quiz)."""

from collections import Counter

from course.models import Block, Course, Lesson
from tutor.practice.questions import QUESTION_KINDS


def _quiz_questions(course: Course) -> list[Block]:
    lessons = Lesson.objects.published().filter(course=course)
    return list(
        Block.objects.filter(lesson__in=lessons, kind__in=QUESTION_KINDS)
        .order_by("lesson__position", "position", "pk")
        .only("pk", "lesson_id", "kind", "values")
    )


def course_topics(course: Course) -> list[tuple[str, int]]:
    """Each topic of the course's quiz questions, by name, with how many carry it (one query)."""
    counts = Counter(topic for block in _quiz_questions(course) for topic in block.values.get("topics") or [])
    return sorted(counts.items(), key=lambda pair: pair[0].casefold())


def questions_on(course: Course, topics) -> list[Block]:
    """The course's quiz questions on any of `topics`, in the course's order (one query)."""
    wanted = set(topics)
    return [block for block in _quiz_questions(course) if wanted & set(block.values.get("topics") or [])]
