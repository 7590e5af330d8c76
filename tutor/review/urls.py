"""The Review page's addresses (added to tutor/urls.py)."""

from django.urls import path

from tutor.review import views

urlpatterns = [
    path("review/", views.review, name="review"),
    path("review/<int:card_pk>/", views.review_item, name="review_item"),
    path("review/<int:card_pk>/answer/", views.review_answer, name="review_answer"),
]
