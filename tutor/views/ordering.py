"""Put the lines in order: a Parsons problem."""

from django.http import HttpRequest

from course.models import Lesson


def lesson_context(request: HttpRequest, lesson: Lesson) -> dict:
    """The learner's state for each ordering exercise on a lesson page."""
    return {}
