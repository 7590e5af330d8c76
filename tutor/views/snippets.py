"""Predict, reveal, run and change a snippet."""

from django.http import HttpRequest

from course.models import Lesson


def lesson_context(request: HttpRequest, lesson: Lesson) -> dict:
    """The learner's state for each snippet on a lesson page."""
    return {}
