"""Content as files: read and check a content folder, import it, export the database back.

    content = reader.read_content(path)     # raises ContentErrors listing every problem found
    summary = importer.import_content(content)  # one transaction; rows kept by their stable keys
    exporter.export_content(path)           # the database as files, in the same format

The fields of every file are declared once, in course.kinds (blocks, by kind) and in
reader (courses, lessons, glossary terms). The format is described in docs/content-format.md.
"""
