from django.urls import path

from course import views

app_name = "course"

urlpatterns = [
    path("", views.catalogue, name="catalogue"),
    path("search/", views.search, name="search"),
    path("glossary/", views.glossary, name="glossary"),
    path("glossary/<slug:slug>/", views.term_detail, name="term_detail"),
    path("glossary/<slug:slug>/preview/", views.term_preview, name="term_preview"),
    path("learn/<slug:course_slug>/", views.course_detail, name="course_detail"),
    path("learn/<slug:course_slug>/<slug:lesson_slug>/", views.lesson_detail, name="lesson_detail"),
]
