"""Static files, served by WhiteNoise, with one addition: Pyodide's files (settings.PYODIDE_STATIC)
are cached for good like a hashed file, as the folder they are in is named by their version."""

from django.conf import settings
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    def immutable_file_test(self, path: str, url: str) -> bool:
        return super().immutable_file_test(path, url) or url.startswith(
            self.static_prefix + settings.PYODIDE_STATIC
        )
