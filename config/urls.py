from django.apps import apps
from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from config.csp import csp_report
from tutor import languages

# The admin speaks the site's language: Parsnip, classes, lessons (not "Django", "cohorts").
admin.site.site_header = _("Parsnip administration")
admin.site.site_title = _("Parsnip admin")
admin.site.index_title = _("Content, classes and learners' work")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("csp-report/", csp_report, name="csp_report"),
    # The translations static/js/*.js asks for (gettext, ngettext, interpolate), in the page's language.
    path("jsi18n/<str:language>/", languages.javascript_catalog, name="javascript_catalog"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("tutor.urls")),
    path("", include("course.urls")),
]

if apps.is_installed("lti"):  # LMS integration (LTI 1.3): Parsnip works without it
    urlpatterns.append(path("", include("lti.urls")))
if apps.is_installed("operations"):  # backups, health, a learner's data (docs/operations.md)
    urlpatterns.append(path("", include("operations.urls")))

# A database or Redis outage is answered "busy, try again", never a server error page.
handler500 = "tutor.outages.server_error"
