"""Every page listed here is fully translatable and fully translated into each language:
no template text outside a translation tag, no catalog entry they use untranslated or fuzzy.

The list grows as pages are done (docs/translating.md). The catalogs are the ones `make setup`
last made (`makemessages`): `make test` runs it first, so a newly marked string missing from
a catalog is found there.
"""

from pathlib import Path

import pytest
from django.conf import settings

from tests.i18n_check import catalog_entries, templates_under, unfinished_entries, unmarked_strings

BASE = Path(settings.BASE_DIR)

# Templates (a file, or a folder and everything in it) and the Python that feeds them.
TRANSLATED = [
    "templates/base.html",
    "templates/registration/",
    "templates/course/",
    "templates/busy.html",
    "templates/refusal.html",
    "templates/tutor/catalogue.html",
    "templates/tutor/course_detail.html",
    "templates/tutor/lesson.html",
    "templates/tutor/my_progress.html",
    "templates/tutor/progress_badge.html",
    "templates/tutor/practice/",
    "templates/tutor/snippet_practice.html",
    "templates/tutor/ordering_practice.html",
    "templates/tutor/code_exercise_practice.html",
    "templates/tutor/question_practice.html",
    "templates/tutor/question_fields.html",
    "templates/tutor/stepping/",
    "templates/tutor/quizzes/",
    "templates/tutor/review/review.html",
    "templates/tutor/review/item.html",
    "templates/tutor/review/items/",
    "templates/tutor/review/closed.html",
    "templates/tutor/assignments/assigned_list.html",
    "templates/tutor/assignments/due_line.html",
    "templates/tutor/assignments/lesson_banner.html",
    "templates/tutor/assignments/closed_book_refusal.html",
    "templates/tutor/clusters/teacher_comment.html",
    "static/js/",
    "tutor/feedback.py",
    "tutor/models.py",
    "tutor/grading.py",
    "tutor/forms.py",
    "tutor/time_zones.py",
    "tutor/assignments/status.py",
    "tutor/templatetags/assignments.py",
    "tutor/views/accounts.py",
    "tutor/views/progress.py",
    "tutor/practice/snippet/",
    "tutor/practice/ordering/__init__.py",
    "tutor/practice/ordering/actions.py",
    "tutor/practice/ordering/board.py",
    "tutor/practice/ordering/views.py",
    "tutor/practice/code_exercise/forms.py",
    "tutor/practice/code_exercise/views.py",
    "tutor/practice/stepping/steps.py",
    "tutor/practice/questions/__init__.py",
    "tutor/practice/code_exercise/__init__.py",
    "tutor/practice/stepping/__init__.py",
    "tutor/course_overview.py",
    "tutor/practice/hints/__init__.py",
    "tutor/practice/hints/views.py",
    "tutor/trail/models.py",
    "templates/tutor/trail/figures.html",
    # The messages a learner reads as they answer, take a quiz, review and edit code, and
    # what their teacher reads of it (the class's answers, a student's timeline, a quiz's analysis).
    "tutor/practice/questions/answers.py",
    "tutor/practice/questions/teaching.py",
    "tutor/practice/questions/variants.py",
    "tutor/practice/questions/code_runs.py",
    "tutor/practice/questions/clusters.py",
    "tutor/practice/questions/views.py",
    "tutor/practice/hints/teaching.py",
    "tutor/practice/hints/actions.py",
    "tutor/review/items.py",
    "tutor/review/today.py",
    "tutor/quizzes/actions.py",
    "tutor/quizzes/views.py",
    "tutor/quizzes/results.py",
    "tutor/quizzes/analysis.py",
    "tutor/trail/encoding.py",
    "tutor/trail/actions.py",
    "tutor/outages.py",
    # An LTI launch's refusal, and the question import/export commands an admin runs.
    "lti/claims.py",
    "course/management/commands/import_questions.py",
    "course/management/commands/export_questions.py",
    # What an admin sees in the admin (Django's own words come from Django's catalogs).
    "templates/admin/",
    "templates/health_check/index.html",
    "config/urls.py",
    "course/apps.py",
    "course/models.py",
    "course/kinds/",
    "course/admin.py",
    "course/admin_errors.py",
    "course/forms.py",
    "course/learner_work.py",
    "course/question_banks/",
    "tutor/apps.py",
    "tutor/admin.py",
    "tutor/assignments/models.py",
    "tutor/quizzes/models.py",
    "tutor/review/models.py",
    "tutor/clusters/models.py",
    "tutor/live/models.py",
    "tutor/practice/code_exercise/models.py",
    "tutor/practice/hints/models.py",
    "tutor/practice/ordering/models.py",
    "tutor/practice/questions/models.py",
    "tutor/practice/stepping/models.py",
    "lti/apps.py",
    "lti/admin.py",
    "lti/models.py",
    "operations/apps.py",
    "operations/admin.py",
    "operations/models.py",
    "operations/health.py",
    # What a teacher sees: classes, a class, a student, a lesson's item analysis, the live
    # view, assignments, comment groups and the projector, replays, the class review, the LMS.
    "templates/tutor/teaching/",
    "templates/tutor/live/",
    "templates/tutor/assignments/assignment_detail.html",
    "templates/tutor/assignments/assignment_form.html",
    "templates/tutor/assignments/assignment_list.html",
    "templates/tutor/assignments/quiz_cells.html",
    "templates/tutor/clusters/comment_form.html",
    "templates/tutor/clusters/group_changed.html",
    "templates/tutor/clusters/groups.html",
    "templates/tutor/clusters/projector.html",
    "templates/tutor/clusters/teacher_notes.html",
    "templates/tutor/trail/class_figures.html",
    "templates/tutor/trail/replay.html",
    "templates/tutor/trail/watch.html",
    "templates/tutor/review/class_review.html",
    "templates/lti/",
    "tutor/views/teaching.py",
    "tutor/teaching.py",
    "tutor/actions/classes.py",
    "tutor/live/actions.py",
    "tutor/live/board.py",
    "tutor/live/forms.py",
    "tutor/live/views.py",
    "tutor/clusters/forms.py",
    "tutor/clusters/groups.py",
    "tutor/clusters/views.py",
    "tutor/practice/ordering/clusters.py",
    "tutor/practice/snippet/clusters.py",
    "tutor/assignments/forms.py",
    "tutor/assignments/views.py",
    "tutor/assignments/actions.py",
    "tutor/assignments/closing.py",
    "tutor/assignments/closed_book.py",
    "tutor/trail/views.py",
    "tutor/review/teaching.py",
    "tutor/review/views.py",
    "lti/views.py",
    "lti/accounts.py",
    "lti/launch.py",
    "tutor/trail/replay.py",
]
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]


@pytest.mark.parametrize(
    "template", templates_under(BASE, TRANSLATED), ids=lambda path: str(path.relative_to(BASE))
)
def test_a_translated_template_has_no_unmarked_text(template):
    assert unmarked_strings(template.read_text()) == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_each_language_translates_every_string_of_the_translated_pages(language, domain):
    catalog = BASE / "locale" / language / "LC_MESSAGES" / f"{domain}.po"
    assert unfinished_entries(catalog.read_text(), TRANSLATED) == []


# The check itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, found",
    [
        ("<p>Hello there</p>", ["Hello there"]),
        ('<p>{% translate "Hello" %} world</p>', ["world"]),
        ('<input placeholder="Search lessons">', ["Search lessons"]),
        ('<img alt="A parsnip" src="x.png">', ["A parsnip"]),
        ('<button aria-label="Close">×</button>', ["Close"]),
        ("{% if x %}Done{% endif %}", ["Done"]),
        ("<p>{{ count }} lessons</p>", ["lessons"]),
        ("{% partialdef p inline %}<span>Saved</span>{% endpartialdef %}", ["Saved"]),
    ],
)
def test_the_check_finds_an_unmarked_string(source, found):
    assert unmarked_strings(source) == found


@pytest.mark.parametrize(
    "source",
    [
        '{% load i18n %}<p>{% translate "Hello there" %}</p>',
        "<p>{% blocktranslate count n=3 %}One lesson{% plural %}{{ n }} lessons{% endblocktranslate %}</p>",
        '<p class="hello world" data-kind="prose" hx-get="/x/">{{ title }} · 3</p>',
        "<pre>print('hello')</pre> <code>len</code>",
        "{% comment %}Notes for developers{% endcomment %}{# also a note #}",
        '<span title="{% translate "Close" %}">Parsnip</span>',
        "<script>const hello = 1;</script>",
    ],
)
def test_the_check_passes_what_is_marked_code_or_no_words(source):
    assert unmarked_strings(source) == []


CATALOG = r"""
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

#: templates/base.html
msgid "Log out"
msgstr "Abmelden"

#: templates/base.html tutor/views/lessons.py
msgid "Lessons"
msgstr ""

#: templates/base.html
#, fuzzy
msgid "My progress"
msgstr "Mein Fortschritt"

#: templates/base.html
msgid "One lesson"
msgid_plural "%(n)s lessons"
msgstr[0] "Eine Lektion"
msgstr[1] ""

#: templates/tutor/teaching/class_list.html
msgid "Classes"
msgstr ""

#: templates/base.html
msgid ""
"A long "
"line: \"quoted\" – ß"
msgstr ""
"Eine lange "
"Zeile: „zitiert“ – ß"
"""


def test_the_check_finds_a_plural_entry_missing_one_of_the_languages_plural_forms():
    catalog = CATALOG.replace(
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=3; plural=n == 1 ? 0 : 2;\\n"',
    ).replace('msgstr[1] ""', 'msgstr[1] "%(n)s Lektionen"')
    assert "untranslated: 'One lesson' (templates/base.html)" in unfinished_entries(
        catalog, ["templates/base.html"]
    )


def test_the_check_finds_untranslated_and_fuzzy_entries_of_the_translated_pages():
    assert unfinished_entries(CATALOG, ["templates/base.html"]) == [
        "untranslated: 'Lessons' (templates/base.html, tutor/views/lessons.py)",
        "fuzzy: 'My progress' (templates/base.html)",
        "untranslated: 'One lesson' (templates/base.html)",
    ]
    entries = {entry.msgid: entry for entry in catalog_entries(CATALOG)}
    assert entries['A long line: "quoted" – ß'].msgstrs == ["Eine lange Zeile: „zitiert“ – ß"]
