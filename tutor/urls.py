from django.urls import path

from tutor.views import accounts, progress

app_name = "tutor"

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("progress/", progress.my_progress, name="my_progress"),
]
