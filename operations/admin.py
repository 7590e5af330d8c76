"""The accounts admin gains a learner's data on request: export it, erase it (logged)."""

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from operations import learner_data
from tutor.admin import AccountAdmin


@admin.action(description=gettext_lazy("Export the selected accounts' data (zip)"),
              permissions=["change"])
def export_data(modeladmin, request, queryset):
    if queryset.count() != 1:
        modeladmin.message_user(
            request, _("Choose one account to export at a time."), messages.WARNING
        )
        return None
    user = queryset.get()
    response = HttpResponse(learner_data.archive(user), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="parsnip-{user.pk}-data.zip"'
    modeladmin.log_change(request, user, _("Exported the account's data."))
    return response


@admin.action(description=gettext_lazy("Erase the selected accounts' data"),
              permissions=["delete"])
def erase_data(modeladmin, request, queryset):
    if request.POST.get("confirmed") != "yes":
        return TemplateResponse(
            request,
            "admin/operations/erase_confirmation.html",
            {
                **modeladmin.admin_site.each_context(request),
                "title": _("Erase these accounts' data?"),
                "accounts": queryset,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
                "opts": modeladmin.model._meta,
            },
        )
    erased = 0
    for user in queryset:
        if user.pk == request.user.pk:
            modeladmin.message_user(request, _("You cannot erase your own account."),
                                    messages.ERROR)
            continue
        name = user.get_username()
        deleted = learner_data.erase(user)
        modeladmin.log_change(
            request, user,
            _("Erased the data of %(name)s: %(deleted)s.") % {
                "name": name, "deleted": ", ".join(f"{k} {v}" for k, v in deleted.items())},
        )
        erased += 1
    if erased:
        modeladmin.message_user(
            request,
            ngettext("Erased %(n)d account.", "Erased %(n)d accounts.", erased) % {"n": erased},
        )
    return None


admin.site.unregister(User)


@admin.register(User)
class AccountAdminWithData(AccountAdmin):
    actions = [*(AccountAdmin.actions or []), export_data, erase_data]
