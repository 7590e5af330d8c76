"""The teacher's assignment pages, under their class (added to tutor/urls.py)."""

from django.urls import path

from tutor.assignments import views

urlpatterns = [
    path("classes/<int:pk>/assignments/", views.assignment_list, name="assignment_list"),
    path("classes/<int:pk>/assignments/new/", views.assignment_create, name="assignment_create"),
    path(
        "classes/<int:pk>/assignments/<int:assignment_pk>/",
        views.assignment_detail,
        name="assignment_detail",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_pk>/edit/",
        views.assignment_edit,
        name="assignment_edit",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_pk>/close/",
        views.assignment_close,
        name="assignment_close",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_pk>/delete/",
        views.assignment_delete,
        name="assignment_delete",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_pk>/extensions/",
        views.extension_grant,
        name="extension_grant",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_pk>/extensions/<int:student_pk>/withdraw/",
        views.extension_withdraw,
        name="extension_withdraw",
    ),
]
