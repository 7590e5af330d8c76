from django.urls import path

from tutor import practice
from tutor.views import accounts, lessons, ordering, progress, snippets, teaching

app_name = "tutor"

urlpatterns = [
    path("", lessons.catalogue, name="catalogue"),
    path("learn/<slug:course_slug>/", lessons.course_detail, name="course_detail"),
    path("learn/<slug:course_slug>/<slug:lesson_slug>/", lessons.lesson_detail, name="lesson_detail"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("progress/", progress.my_progress, name="my_progress"),
    path("snippets/<int:snippet_id>/predict/", snippets.prediction_create, name="prediction_create"),
    path("predictions/<int:prediction_id>/", snippets.prediction_detail, name="prediction_detail"),
    path("predictions/<int:prediction_id>/retry/", snippets.reveal_retry, name="reveal_retry"),
    path("predictions/<int:prediction_id>/self-check/", snippets.self_check, name="self_check"),
    path("snippets/<int:snippet_id>/runs/", snippets.run_create, name="run_create"),
    path("runs/<int:run_id>/", snippets.run_detail, name="run_detail"),
    path("snippets/<int:snippet_id>/draft/", snippets.draft_save, name="draft_save"),
]

# Classes: students join and leave; teachers review.
urlpatterns += [
    path("classes/", teaching.class_list, name="class_list"),
    path("classes/new/", teaching.class_create, name="class_create"),
    path("classes/join/", teaching.class_join, name="class_join"),
    path("classes/join/<str:code>/", teaching.class_join, name="class_join"),
    path("classes/<int:pk>/", teaching.class_detail, name="class_detail"),
    path("classes/<int:pk>/leave/", teaching.class_leave, name="class_leave"),
    path("classes/<int:pk>/progress.csv", teaching.class_csv, name="class_csv"),
    path("classes/<int:pk>/attempts.csv", teaching.class_attempts_csv, name="class_attempts_csv"),
    path("classes/<int:pk>/lessons/<int:lesson_pk>/", teaching.class_lesson, name="class_lesson"),
    path("classes/<int:pk>/students/<int:student_pk>/", teaching.class_student, name="class_student"),
    path(
        "classes/<int:pk>/students/<int:student_pk>/remove/",
        teaching.class_remove_student,
        name="class_remove_student",
    ),
]

# Put it in order: the learner's own arrangement of each exercise's lines.
urlpatterns += [
    path("exercises/<int:exercise_id>/", ordering.ordering_practice, name="ordering_practice"),
    path("exercises/<int:exercise_id>/move/", ordering.ordering_move, name="ordering_move"),
    path("exercises/<int:exercise_id>/check/", ordering.ordering_check, name="ordering_check"),
    path("exercises/<int:exercise_id>/help/", ordering.ordering_help, name="ordering_help"),
    path("exercises/<int:exercise_id>/reset/", ordering.ordering_reset, name="ordering_reset"),
]

# Each practice kind's own endpoints, declared in its folder (tutor/practice/<kind>/).
urlpatterns += [pattern for kind in practice.every() for pattern in kind.urls]
