"""django-lti's registration admin, with the values the LMS needs shown on the page."""

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from lti_tool.admin import LtiRegistrationAdmin
from lti_tool.models import LtiRegistration

from lti import launch
from lti.models import ClassLink, LineItem, ScoreSync

admin.site.unregister(LtiRegistration)


@admin.register(LtiRegistration)
class RegistrationAdmin(LtiRegistrationAdmin):
    readonly_fields = ["values_for_the_lms"]

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return [
            (
                _("Values for the LMS (paste these into its tool set-up)"),
                {"fields": ["values_for_the_lms"]},
            ),
            *fieldsets,
        ]

    def get_form(self, request, obj=None, **kwargs):
        self._request = request  # the absolute URLs need the host the admin is reached at
        return super().get_form(request, obj, **kwargs)

    @admin.display(description=_("Values"))
    def values_for_the_lms(self, obj):
        urls = launch.registration_urls(obj, self._request.build_absolute_uri)
        return format_html(
            '<dl class="lti-values">{}</dl>',
            format_html_join("", "<dt>{}</dt><dd><code>{}</code></dd>", urls.items()),
        )


@admin.register(ClassLink)
class ClassLinkAdmin(admin.ModelAdmin):
    list_display = ["context", "cohort", "roster_synced_at", "roster_failed_at"]
    raw_id_fields = ["context", "cohort"]
    readonly_fields = [
        "roster_synced_at",
        "roster_joined",
        "roster_left",
        "roster_failed_at",
        "roster_error",
    ]


@admin.register(ScoreSync)
class ScoreSyncAdmin(admin.ModelAdmin):
    list_display = [
        "user",
        "line_item",
        "score_given",
        "score_maximum",
        "status",
        "attempts",
        "sent_at",
    ]
    list_filter = ["status"]
    readonly_fields = [f.name for f in ScoreSync._meta.fields]


admin.site.register(LineItem)
