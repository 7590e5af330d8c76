from django.urls import path

from lti import views

app_name = "lti"

urlpatterns = [
    path("lti/login/<uuid:registration_uuid>/", views.oidc_login, name="login"),
    path("lti/launch/", views.launch_view, name="launch"),
    path("lti/jwks.json", views.jwks, name="jwks"),
    path("lti/deep-link/", views.deep_link, name="deep_link"),
    path("lti/setup/", views.setup, name="setup"),
    path("lti/link-account/", views.link_account, name="link_account"),
    path("classes/<int:pk>/lms-grades/", views.class_grades, name="class_grades"),
    path("classes/<int:pk>/lms-grades/resync/", views.resync_class, name="resync_class"),
    path("classes/<int:pk>/lms-grades/<int:sync_pk>/resync/", views.resync_one, name="resync_one"),
    path("classes/<int:pk>/lms-roster/sync/", views.sync_roster, name="sync_roster"),
]
