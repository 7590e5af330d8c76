"""The student's quiz pages (added to tutor/urls.py)."""

from django.urls import path

from tutor.quizzes import views

urlpatterns = [
    path("quizzes/<int:quiz_pk>/", views.quiz_start, name="quiz_start"),
    path("quizzes/<int:quiz_pk>/start/", views.quiz_begin, name="quiz_begin"),
    path("quizzes/attempts/<int:attempt_pk>/", views.quiz_attempt, name="quiz_attempt"),
    path("quizzes/attempts/<int:attempt_pk>/save/", views.quiz_save, name="quiz_save"),
    path("quizzes/attempts/<int:attempt_pk>/submit/", views.quiz_submit, name="quiz_submit"),
    path(
        "quizzes/attempts/<int:attempt_pk>/questions/<int:block_pk>/",
        views.quiz_answer,
        name="quiz_answer",
    ),
    path(
        "quizzes/attempts/<int:attempt_pk>/questions/<int:block_pk>/result/",
        views.quiz_question,
        name="quiz_question",
    ),
    path(
        "quizzes/attempts/<int:attempt_pk>/questions/<int:block_pk>/check/",
        views.quiz_check,
        name="quiz_check",
    ),
]
