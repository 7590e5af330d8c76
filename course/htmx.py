"""The site's htmx conventions, in one place (both apps use them; course is the base).

- `wants_partial(request)`: answer with the region htmx swaps rather than the page. A
  history restore comes from htmx too but needs the whole page.
- Responses use django-htmx's helpers (`retarget`, `reswap`, `HttpResponseClientRedirect`),
  never hand-written HX-* headers.
"""

from django.http import HttpRequest


def wants_partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request
