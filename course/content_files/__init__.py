"""Content as files: read and check a content folder, import it, export the database back.

    content = read_content(path)        # raises ContentErrors listing every problem found
    summary = import_content(content)   # one transaction; rows kept by their stable keys
    export_content(path)                # the database as files, in the same format

The format is described in docs/content-format.md.
"""

from course.content_files.errors import ContentError, ContentErrors
from course.content_files.exporter import export_content
from course.content_files.importer import ImportSummary, import_content
from course.content_files.reader import read_content

__all__ = [
    "ContentError",
    "ContentErrors",
    "ImportSummary",
    "export_content",
    "import_content",
    "read_content",
]
