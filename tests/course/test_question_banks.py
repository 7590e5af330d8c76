"""A teacher's question bank from Moodle XML and GIFT: each supported type brought over as
the question it is, each one not brought over (or changed) listed with why, hostile XML
refused, the questions written back as Moodle XML and GIFT (round trips, Hypothesis for
GIFT's escaping), and the command that puts them into a lesson file import_content reads."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from course import kinds
from course.content_files.exporter import written
from course.content_files.importer import import_content
from course.content_files.reader import check_block, read_content
from course.kinds.fields import plain
from course.markup import render_markdown
from course.models import Block, Lesson
from course.question_banks import BankRefused, Question, checked, questions_of
from course.question_banks.gift import escape, read_gift, unescape, write_gift
from course.question_banks.moodle import read_moodle, write_moodle

BANKS = Path(__file__).parent / "banks"
GIFT = (BANKS / "bank.gift").read_bytes()
MOODLE = (BANKS / "bank.xml").read_bytes()


def as_files(questions: list[Question]) -> list[tuple[str, dict]]:
    """Questions as the content files write them (defaults filled in the same way)."""
    return [(q.kind, plain(written(kinds.get(q.kind).fields, q.values))) for q in questions]


def by_name(questions: list[Question]) -> dict[str, Question]:
    return {question.name: question for question in questions}


# -- what each format brings over ---------------------------------------------------------


def test_gift_brings_over_every_supported_type_as_its_question():
    bank = checked(read_gift(GIFT))
    found = by_name(bank.questions)
    assert {name: q.kind for name, q in found.items()} == {
        "Backend on a CPU": "choice",
        "Which fit": "checkboxes",
        "Weights": "choice",
        "Bigger is faster": "choice",
        "M2 ceiling": "number",
        "Layers": "number",
        "Bandwidth": "number",
        "Escapes": "choice",
        "Short": "blanks",
        "Two plus two is": "blanks",
        "Stop": "blanks",
        "Gap": "choice",
    }
    assert found["Gap"].values["body"] == r"llama.cpp runs \_\_\_\_\_ as well as on a Mac."
    assert "runs _____ as well" in str(render_markdown(found["Gap"].values["body"]))
    assert found["Weights"].values["options"] == [
        {"key": "true", "text": "True", "right": True, "feedback": "Yes."},
        {"key": "false", "text": "False", "feedback": "Check the formula again."},
    ]
    assert [o.get("right", False) for o in found["Bigger is faster"].values["options"]] == [
        False,
        True,
    ]
    assert found["M2 ceiling"].values | {} == {
        "title": "M2 ceiling",
        "body": "What is the ceiling, in tokens/s, for an 8 GB model at 400 GB/s?",
        "answer": 50,
        "tolerance": 0.5,
    }
    assert (found["Layers"].values["answer"], found["Layers"].values["tolerance"]) == (32, 2)
    assert found["Bandwidth"].values["mistakes"] == [
        {"answer": 4000, "feedback": "That is ten times too much."}
    ]
    escapes = found["Escapes"].values
    assert escapes["body"] == "Which is a GIFT special character: ~, =, # or { and }?"
    assert escapes["options"][0]["text"] == "All of ~ = # { }"
    assert escapes["options"][0]["feedback"] == "Each needs a backslash: \\ before it."
    assert found["Two plus two is"].values["text"] == "Two plus two is {{answer}} in base ten."
    short = found["Short"].values["blanks"][0]
    assert short["answers"] == ["llama.cpp", "llamacpp"]
    assert "llama-cpp" not in short["answers"]  # the wildcard is a pattern, not an answer
    assert [o.get("right", False) for o in found["Which fit"].values["options"]] == [
        True,
        True,
        False,
    ]
    assert bank.categories == ["$course$/top/Local models"]


def test_gift_lists_what_it_does_not_bring_over_and_what_it_changes():
    bank = checked(read_gift(GIFT))
    assert [(item.name, item.type) for item in bank.left_out] == [
        ("Match", "matching"),
        ("Essay", "essay"),
        ("Intro", "description"),
        ("Broken", "short answer"),
    ]
    report = "\n".join(bank.report())
    assert "Not brought over (4):" in report
    assert "'Match' (matching): Parsnip has no matching questions yet" in report
    assert "'Broken' (short answer): it accepts no answer" in report
    assert "'Backend on a CPU': the weight 50% of 'Ollama' is not kept" in report
    assert "'Bandwidth': the answer 300 worth 50% is not kept" in report
    assert "'Stop': the answer 'HEAD' worth 50% is not kept" in report


def test_moodle_brings_over_every_supported_type_as_its_question():
    bank = checked(read_moodle(MOODLE))
    found = by_name(bank.questions)
    assert {name: q.kind for name, q in found.items()} == {
        "Backend on a CPU": "choice",
        "Which fit": "checkboxes",
        "Weighted": "checkboxes",
        "Bigger is faster": "choice",
        "M2 ceiling": "number",
        "Short": "blanks",
    }
    cpu = found["Backend on a CPU"].values
    assert cpu["body"] == "Which backend runs well on a **laptop's CPU**?"
    assert cpu["options"][0] == {
        "key": "a",
        "text": "llama.cpp",
        "right": True,
        "feedback": "Built for CPUs: it runs *quantised* models.",
    }
    assert found["Which fit"].values["shuffle"] is False
    assert (
        found["Bigger is faster"].values["body"]
        == "A bigger model writes tokens faster on the same card & memory."
    )
    number = found["M2 ceiling"].values
    assert (number["answer"], number["tolerance"], number["units"]) == (50, 0.5, "tokens/s")
    assert number["mistakes"] == [{"answer": 0.02, "feedback": "That is upside down."}]
    blank = found["Short"].values["blanks"][0]
    assert blank["case_sensitive"] is True
    assert blank["answers"] == ["llama.cpp"]
    assert blank["pattern"] == r"(?:llama\.cpp)|(?:llama.*cpp)"


def test_moodle_lists_what_it_does_not_bring_over_with_the_kinds_own_words():
    bank = checked(read_moodle(MOODLE))
    assert {item.name: item.type for item in bank.left_out} == {
        "Match": "matching",
        "Essay": "essay",
        "Intro": "description",
        "Cloze": "multianswer",
        "Calculated": "calculated",
        "A plug-in's": "coderunner",
        "Two right in a single": "choice",
    }
    why = {item.name: item.why for item in bank.left_out}
    assert why["Two right in a single"].startswith("options 'a' and 'b' are both right")
    assert why["A plug-in's"] == "Parsnip does not know Moodle's type 'coderunner'"
    report = "\n".join(bank.report())
    assert "'Backend on a CPU': its <img> could not come along" in report
    assert "'Backend on a CPU': its general feedback is not kept" in report
    assert "'Weighted': the weights 66.667%, 33.333% of the right options are not kept" in report
    assert "'M2 ceiling': the unit 'tokens/min' (× 60) is not kept" in report


@pytest.mark.parametrize(
    "read, data", [(read_gift, GIFT), (read_moodle, MOODLE)], ids=["gift", "moodle"]
)
def test_every_question_brought_over_passes_its_kinds_check(read, data):
    bank = checked(read(data))
    assert bank.questions
    for question in bank.questions:
        assert check_block(kinds.get(question.kind), question.values, glossary=()) == {}


def test_moodles_html_becomes_markdown_that_renders_without_script_or_handlers():
    bank = checked(read_moodle(MOODLE))
    every_text = repr([question.values for question in bank.questions])
    for hostile in ("<script", "alert", "onerror", "<img", "@@PLUGINFILE@@", "<p>"):
        assert hostile not in every_text
    body = by_name(bank.questions)["Backend on a CPU"].values["body"]
    assert (
        str(render_markdown(body))
        == "<p>Which backend runs well on a <strong>laptop's CPU</strong>?</p>"
    )


def test_a_glossary_link_in_a_bank_is_shown_as_written_not_linked():
    data = b"::Links::[markdown]See [[vram]] and <b>[[x]]</b>{T}"
    question = checked(read_gift(data)).questions[0]
    assert "[[" not in question.values["body"]
    assert "[[vram]]" in str(render_markdown(question.values["body"]))


# -- hostile and broken files ----------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
]>
<quiz><question type="essay"><name><text>&lol9;</text></name></question></quiz>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="shortanswer"><name><text>&secret;</text></name>
<questiontext><text>&secret;</text></questiontext>
<answer fraction="100"><text>x</text></answer></question></quiz>"""

EXTERNAL_DTD = b"""<?xml version="1.0"?>
<!DOCTYPE quiz SYSTEM "http://127.0.0.1:9/quiz.dtd">
<quiz></quiz>"""


@pytest.mark.parametrize(
    "data", [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_DTD], ids=["laughs", "entity", "dtd"]
)
def test_hostile_xml_is_refused_with_a_clear_error(data):
    with pytest.raises(BankRefused, match=r"declares a document type or entities .* refused"):
        read_moodle(data)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"<quiz><question", r"line 1: not well-formed XML"),
        (
            b"<html><body/></html>",
            r"this is not Moodle XML: its root element is <html>, not <quiz>",
        ),
        ("<quiz/>".encode("utf-16"), r"the file is not UTF-8 text"),
    ],
)
def test_a_file_that_is_no_moodle_bank_is_refused_saying_why(data, message):
    with pytest.raises(BankRefused, match=message):
        read_moodle(data)


def test_the_command_refuses_hostile_xml_and_writes_nothing(tmp_path):
    content = copy_content(tmp_path)
    bank = tmp_path / "bank.xml"
    bank.write_bytes(BILLION_LAUGHS)
    before = snapshot(content)
    with pytest.raises(CommandError, match="refused"):
        call_command(
            "import_questions", str(bank), lesson=str(content / "course-one" / "bank.yaml")
        )
    assert snapshot(content) == before


# -- written back: round trips ---------------------------------------------------------------


@pytest.mark.parametrize(
    "read, write, data",
    [(read_gift, write_gift, GIFT), (read_moodle, write_moodle, MOODLE)],
    ids=["gift", "moodle"],
)
def test_what_a_bank_brings_over_is_written_back_and_reads_the_same(read, write, data):
    bank = checked(read(data))
    text, notes = write(bank.questions)
    again = checked(read(text.encode()))
    assert notes == []
    assert again.left_out == []
    assert [q.name for q in again.questions] == [q.name for q in bank.questions]
    assert as_files(again.questions) == as_files(bank.questions)


def test_what_a_format_cannot_hold_is_listed_when_written():
    number = Question(
        "Speed",
        "number",
        {"body": "How fast?", "answer": 20, "relative_tolerance": 0.1, "units": "tokens/s"},
    )
    blanks = Question(
        "Two",
        "blanks",
        {
            "text": "{{a}} and {{b}}",
            "blanks": [{"key": "a", "answers": ["x"]}, {"key": "b", "answers": ["y"]}],
        },
    )
    gift, gift_notes = write_gift([number, blanks])
    assert gift_notes == [
        "'Speed': written without its relative tolerance, written as the same absolute one, its units 'tokens/s'",
        "'Two': left out: GIFT has one blank per question",
    ]
    assert "{#20:2}" in gift
    _xml, moodle_notes = write_moodle([number, blanks])
    assert moodle_notes == [
        "'Speed': written without its relative tolerance, written as the same absolute one",
        "'Two': left out: Moodle's short answer has one blank and no text around it",
    ]


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_gift_escaping_round_trips_any_text(text):
    assert unescape(escape(text)) == text


gift_text = (
    st.text(
        alphabet=st.sampled_from(list("abc XYZ019.,;!?'\"()") + list("~=#{}:\\%[]$/*_-")),
        min_size=1,
        max_size=30,
    )
    .map(lambda text: " ".join(text.split()))
    .filter(lambda text: text and "[[" not in text and text[0] not in "*_-")
)


def _options(texts: list[str], rights: list[bool], feedback: list[str]) -> list[dict]:
    options = []
    for n, (text, right, said) in enumerate(zip(texts, rights, feedback, strict=False)):
        option = {"key": "abcdef"[n], "text": text}
        if right:
            option["right"] = True
        if said:
            option["feedback"] = said
        options.append(option)
    return options


@st.composite
def gift_questions(draw):
    title, body = draw(gift_text), "\n".join(draw(st.lists(gift_text, min_size=1, max_size=3)))
    kind = draw(st.sampled_from(["choice", "checkboxes", "number", "blanks"]))
    values = {"title": title, "body": body}
    if kind in ("choice", "checkboxes"):
        count = draw(st.integers(2, 5))
        texts = draw(st.lists(gift_text, min_size=count, max_size=count))
        feedback = draw(st.lists(st.one_of(st.just(""), gift_text), min_size=count, max_size=count))
        if kind == "choice":
            right = draw(st.integers(0, count - 1))
            rights = [n == right for n in range(count)]
        else:
            rights = draw(st.lists(st.booleans(), min_size=count, max_size=count).filter(any))
        values["options"] = _options(texts, rights, feedback)
    elif kind == "number":
        values["answer"] = draw(
            st.integers(-(10**6), 10**6)
            | st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 3))
        )
        tolerance = draw(st.sampled_from([0, 0.5, 2]))
        if tolerance:
            values["tolerance"] = tolerance
    else:
        answers = draw(
            st.lists(
                gift_text.filter(lambda t: "*" not in t and "->" not in t), min_size=1, max_size=3
            )
        )
        values |= {"text": "{{answer}}", "blanks": [{"key": "answer", "answers": answers}]}
    return Question(title, kind, values)


@pytest.mark.parametrize(
    "read, write", [(read_gift, write_gift), (read_moodle, write_moodle)], ids=["gift", "moodle"]
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(questions=st.lists(gift_questions(), min_size=1, max_size=4))
def test_any_question_written_as_gift_or_moodle_xml_reads_back_the_same(read, write, questions):
    questions = [q for q in questions if not check_block(kinds.get(q.kind), q.values, glossary=())]
    assume(questions)
    text, notes = write(questions)
    again = read(text.encode())
    assert again.left_out == []
    assert notes == []
    assert as_files(again.questions) == as_files(questions)


# -- into a lesson file, then the database, then out again -----------------------------------


def copy_content(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    (content / "course-one").mkdir(parents=True)
    (content / "glossary.yaml").write_text("terms: []\n")
    (content / "course-one" / "course.yaml").write_text(
        "title: One\n# the lessons, in order\nlessons:\n  - lesson-one\n"
    )
    (content / "course-one" / "lesson-one.yaml").write_text(
        "title: Lesson\nblocks:\n  # what comes first\n  - kind: prose\n    body: Read this first.\n"
    )
    return content


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, read, data", [("bank.gift", read_gift, GIFT), ("bank.xml", read_moodle, MOODLE)]
)
def test_a_bank_becomes_a_draft_lesson_that_imports_and_exports_back(tmp_path, name, read, data):
    content = copy_content(tmp_path)
    out = StringIO()
    call_command(
        "import_questions",
        str(BANKS / name),
        lesson=str(content / "course-one" / "quiz.yaml"),
        title="Bank quiz",
        stdout=out,
    )
    bank = checked(read(data))
    said = out.getvalue()
    assert f"Brought {len(bank.questions)} questions into" in said and "a new draft lesson" in said
    assert "Not brought over" in said and "'Match' (matching)" in said
    assert "# the lessons, in order" in (content / "course-one" / "course.yaml").read_text()

    import_content(read_content(content))
    lesson = Lesson.objects.get(slug="quiz")
    assert (lesson.title, lesson.status) == ("Bank quiz", "draft")
    assert lesson.blocks.count() == len(bank.questions)

    fmt = "gift" if name.endswith("gift") else "moodle"
    exported = tmp_path / f"out.{fmt}"
    call_command(
        "export_questions", "course-one/quiz", format=fmt, output=str(exported), stderr=StringIO()
    )
    again = checked(read(exported.read_bytes()))
    assert as_files(again.questions) == as_files(bank.questions)
    assert as_files(questions_of(lesson)) == as_files(bank.questions)


@pytest.mark.django_db
def test_questions_go_after_an_existing_lessons_blocks_leaving_its_text_as_it_was(tmp_path):
    content = copy_content(tmp_path)
    lesson_file = content / "course-one" / "lesson-one.yaml"
    before = lesson_file.read_text()
    call_command("import_questions", str(BANKS / "bank.gift"), lesson=str(lesson_file), verbosity=0)
    call_command("import_questions", str(BANKS / "bank.gift"), lesson=str(lesson_file), verbosity=0)
    after = lesson_file.read_text()
    assert after.startswith(before.rstrip("\n"))
    import_content(read_content(content))
    keys = list(
        Block.objects.filter(lesson__slug="lesson-one")
        .order_by("position")
        .values_list("key", flat=True)
    )
    assert keys[1:3] == ["backend-on-a-cpu", "which-fit"]
    assert "backend-on-a-cpu-2" in keys and len(keys) == len(set(keys)) == 1 + 2 * 12


def test_a_dry_run_reports_and_writes_nothing(tmp_path):
    content = copy_content(tmp_path)
    before = snapshot(content)
    out = StringIO()
    call_command(
        "import_questions",
        str(BANKS / "bank.xml"),
        lesson=str(content / "course-one" / "q.yaml"),
        dry_run=True,
        stdout=out,
    )
    assert "Would bring 6 questions" in out.getvalue()
    assert snapshot(content) == before


def test_a_bank_with_nothing_to_bring_over_says_so_and_writes_nothing(tmp_path):
    content = copy_content(tmp_path)
    bank = tmp_path / "essays.gift"
    bank.write_text("::Essay::Why?{}\n\n::Match::Pair them.{=a -> b =c -> d}\n")
    before = snapshot(content)
    with pytest.raises(
        CommandError, match=r"(?s)Nothing in .* could be brought over.*'Essay' \(essay\)"
    ):
        call_command("import_questions", str(bank), lesson=str(content / "course-one" / "q.yaml"))
    assert snapshot(content) == before


def test_a_lesson_file_outside_a_course_folder_is_refused(tmp_path):
    shutil.copy(BANKS / "bank.gift", tmp_path / "bank.gift")
    with pytest.raises(CommandError, match="has no course.yaml"):
        call_command(
            "import_questions", str(tmp_path / "bank.gift"), lesson=str(tmp_path / "q.yaml")
        )
