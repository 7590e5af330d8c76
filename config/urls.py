from django.apps import apps
from django.contrib import admin
from django.urls import include, path

# The admin speaks the site's language: Parsnip, classes, lessons (not "Django", "cohorts").
admin.site.site_header = "Parsnip administration"
admin.site.site_title = "Parsnip admin"
admin.site.index_title = "Content, classes and learners' work"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("tutor.urls")),
    path("", include("course.urls")),
]

if apps.is_installed("lti"):  # LMS integration (LTI 1.3): Parsnip works without it
    urlpatterns.append(path("", include("lti.urls")))

# A database or Redis outage is answered "busy, try again", never a server error page.
handler500 = "tutor.outages.server_error"
