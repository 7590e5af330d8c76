from django.urls import path

from tutor.views import accounts, progress, snippets

app_name = "tutor"

urlpatterns = [
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
