from django.urls import path

from course import views

app_name = "course"

urlpatterns = [
    path("search/", views.search, name="search"),
    path("glossary/", views.glossary, name="glossary"),
    path("glossary/<slug:slug>/", views.term_detail, name="term_detail"),
    path("glossary/<slug:slug>/preview/", views.term_preview, name="term_preview"),
]
