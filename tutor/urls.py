from django.urls import path

from tutor import languages, practice
from tutor.assignments.urls import urlpatterns as assignment_urls
from tutor.clusters import views as cluster_views
from tutor.live import views as live
from tutor.practice.hints import views as hint_views
from tutor.quizzes.urls import urlpatterns as quiz_urls
from tutor.review.urls import urlpatterns as review_urls
from tutor.trail.urls import urlpatterns as trail_urls
from tutor.views import accounts, lessons, progress, teaching

app_name = "tutor"

urlpatterns = [
    path("", lessons.catalogue, name="catalogue"),
    path("learn/<slug:course_slug>/", lessons.course_detail, name="course_detail"),
    path("learn/<slug:course_slug>/<slug:lesson_slug>/", lessons.lesson_detail, name="lesson_detail"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("progress/", progress.my_progress, name="my_progress"),
    path("language/", languages.choose, name="set_language"),
]

# Classes: students join and leave; teachers review.
urlpatterns += [
    path("classes/", teaching.class_list, name="class_list"),
    path("classes/new/", teaching.class_create, name="class_create"),
    path("classes/join/", teaching.class_join, name="class_join"),
    path("classes/join/<str:code>/", teaching.class_join, name="class_join"),
    path("classes/<int:pk>/", teaching.class_detail, name="class_detail"),
    path("classes/<int:pk>/leave/", teaching.class_leave, name="class_leave"),
    path("classes/<int:pk>/time-zone/", teaching.class_time_zone, name="class_time_zone"),
    path("classes/<int:pk>/language/", teaching.class_language, name="class_language"),
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

# One comment for a whole cluster, and the projector (tutor/clusters/).
urlpatterns += [
    path(
        "classes/<int:pk>/items/<int:block_pk>/groups/<slug:key>/comment/",
        cluster_views.group_comment,
        name="cluster_comment",
    ),
    path(
        "classes/<int:pk>/comments/<int:comment_pk>/delete/",
        cluster_views.comment_delete,
        name="cluster_comment_delete",
    ),
    path(
        "classes/<int:pk>/items/<int:block_pk>/projector/",
        cluster_views.projector,
        name="cluster_projector",
    ),
    # A student saw their teacher's comment.
    path("comments/<int:comment_pk>/read/", cluster_views.comment_read, name="comment_read"),
]
# The live view of a class in a lesson (teachers), and the hand a learner raises.
urlpatterns += [
    path("classes/<int:pk>/lessons/<int:lesson_pk>/live/", live.live_view, name="live_view"),
    path(
        "classes/<int:pk>/lessons/<int:lesson_pk>/live/hands/clear/",
        live.hands_clear,
        name="live_hands_clear",
    ),
    path(
        "classes/<int:pk>/lessons/<int:lesson_pk>/live/settings/",
        live.live_settings,
        name="live_settings",
    ),
    path("lessons/<int:lesson_pk>/hand/", live.hand, name="hand"),
]

# Assignments: a teacher sets lessons for a class, with due dates (tutor/assignments/).
urlpatterns += assignment_urls
# Quizzes: a quiz assignment's attempts, the student's pages (tutor/quizzes/).
urlpatterns += quiz_urls


# Spaced review: what learners practised, brought back (tutor/review/).
urlpatterns += review_urls

# How the work was made: trails, their replay, a student's code live (tutor/trail/).
urlpatterns += trail_urls

# Each practice kind's (and panel's) own endpoints, declared in its folder (tutor/practice/<kind>/).
urlpatterns += [pattern for kind in practice.every_with_panels() for pattern in kind.urls]

# The next rung of a hint ladder, on any kind that has hints (tutor/practice/hints/).
urlpatterns += [path("hints/<int:block_pk>/next/", hint_views.hint_next, name="hint_next")]
