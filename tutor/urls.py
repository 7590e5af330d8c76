from django.urls import path

from tutor.views import accounts

app_name = "tutor"

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
]
