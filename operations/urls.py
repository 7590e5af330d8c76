from django.urls import path

from operations.health import ParsnipHealthView
from operations.metrics import metrics

app_name = "operations"

urlpatterns = [
    path("health/", ParsnipHealthView.as_view(), name="health"),
    path("metrics/", metrics, name="metrics"),
]
