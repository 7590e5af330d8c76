from django.urls import path

from tutor.trail import views

urlpatterns = [
    path("trail/<int:block_pk>/record/", views.trail_record, name="trail_record"),
    path("trail/<int:block_pk>/", views.my_trail, name="my_trail"),
    path(
        "classes/<int:pk>/students/<int:student_pk>/trail/<int:block_pk>/",
        views.class_trail,
        name="class_trail",
    ),
    path(
        "classes/<int:pk>/students/<int:student_pk>/trail/<int:block_pk>/live/",
        views.trail_watch,
        name="trail_watch",
    ),
]
