"""The Review page's addresses (added to tutor/urls.py)."""

from django.urls import path

from tutor.review import teaching, views

urlpatterns = [
    path("review/", views.review, name="review"),
    path("review/<int:card_pk>/", views.review_item, name="review_item"),
    path("review/<int:card_pk>/answer/", views.review_answer, name="review_answer"),
    path("classes/<int:pk>/review/", teaching.class_review, name="class_review"),
    path("classes/<int:pk>/review/switch/", teaching.class_review_switch, name="class_review_switch"),
]
