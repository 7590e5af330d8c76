from django.urls import path

from operations.health import ParsnipHealthView

app_name = "operations"

urlpatterns = [
    path("health/", ParsnipHealthView.as_view(), name="health"),
]
