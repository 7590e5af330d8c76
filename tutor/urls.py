from django.urls import path

from tutor import views

app_name = "tutor"

urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
]
