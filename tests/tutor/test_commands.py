import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from course.kinds.snippet import Snippet
from course.models import Block
from tutor.practice.questions.variants import computes


def test_sandbox_run_prints_one_json_object(tmp_path, capsys):
    source = tmp_path / "hello.py"
    source.write_text("print()\nprint('hi')\nraise SystemExit(3)\n")
    call_command("sandbox_run", str(source))
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"status", "exit_code", "stdout", "stderr", "duration_ms", "truncated"}
    assert result["status"] == "error"
    assert result["exit_code"] == 3
    assert result["stdout"] == "\nhi\n"


def test_sandbox_run_reads_stdin(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"print(6 * 7)\n")))
    call_command("sandbox_run", "-")
    assert json.loads(capsys.readouterr().out)["stdout"] == "42\n"


def test_sandbox_run_names_a_missing_file():
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("sandbox_run", "/no/such/file.py")


def test_check_content_passes_on_the_shipped_course(sample_content):
    out = StringIO()
    call_command("check_content", stdout=out)
    n = Snippet.objects.count()
    assert f"All {n} snippets print what they declare, and end as declared." in out.getvalue()
    assert "optimising-speed-and-memory · backend-latency" in out.getvalue()
    assert "choosing-hardware-for-local-models · weights-of-your-model (15 variants, each computed)" in out.getvalue()
    computing = [
        block for block in Block.objects.filter(kind="number") if computes(block.kind_spec.values_of(block))
    ]
    assert len(computing) >= 2  # one in each lesson's quiz
    assert f"{len(computing)} questions that compute their answers: every variant printed a number." in out.getvalue()
    # fed its input, the sample that fails on purpose stops as it declares
    assert (
        "ok        local-models/deploying-a-private-model-safely · refused-request\n"
        in out.getvalue()
    )


def test_check_content_keeps_each_output_for_the_learners_reveal(sample_content):
    """What check_content saw a snippet print is its version's reveal: no run is needed."""
    from tutor.models import Run
    from tutor.practice.snippet.actions import reveal_run

    call_command("check_content", stdout=StringIO())

    for snippet in Snippet.objects.all():
        run = reveal_run(snippet=snippet)
        assert run.is_final and run.shows(snippet)
        assert run.stdout.rstrip() == snippet.expected_output.rstrip()
    assert not Run.objects.filter(status=Run.Status.QUEUED).exists()
    assert Run.objects.count() == Snippet.objects.count()


def test_check_content_reports_a_snippet_whose_declared_output_is_wrong(sample_content):
    snippet = Snippet.objects.get(block__key="kv-cache-vram")
    snippet.expected_output = snippet.expected_output.replace("16.00 GB", "32.00 GB")
    snippet.save()
    out = StringIO()
    with pytest.raises(CommandError, match=f"1 of {Snippet.objects.count()} snippets"):
        call_command("check_content", stdout=out)
    assert "MISMATCH  local-models/optimising-speed-and-memory · kv-cache-vram" in out.getvalue()
    assert "32.00 GB" in out.getvalue()


def check_content_output(**options) -> str:
    out = StringIO()
    with pytest.raises(CommandError, match=f"1 of {Snippet.objects.count()} snippets"):
        call_command("check_content", stdout=out, **options)
    return out.getvalue()


def test_check_content_reports_a_snippet_expected_to_succeed_that_fails(sample_content):
    snippet = Snippet.objects.get(block__key="api-key-check")
    snippet.code = snippet.code + "print(1 / 0)\n"
    snippet.save()
    out = check_content_output()
    assert (
        "MISMATCH  local-models/deploying-a-private-model-safely · api-key-check (status: error)"
        in out
    )
    assert (
        "it should finish without an error but stops with ZeroDivisionError: division by zero"
        in out
    )


def test_check_content_reports_a_snippet_that_does_not_fail_as_declared(sample_content):
    Snippet.objects.filter(block__key="refused-request").update(raises="KeyError")
    out = check_content_output()
    assert (
        "it should stop with KeyError but stops with PermissionError: 401 Unauthorized: "
        "wrong or missing API key"
    ) in out


def test_check_content_reports_a_snippet_declared_to_fail_that_finishes(sample_content):
    Snippet.objects.filter(block__key="refused-request").update(stdin="change-me-7f3a\n")
    out = check_content_output()
    assert "it should stop with PermissionError but finishes without an error" in out
    assert "Answer received" in out


def test_check_content_feeds_each_snippet_its_input(sample_content):
    Snippet.objects.filter(block__key="refused-request").update(stdin="")
    out = check_content_output()
    assert (
        "it should stop with PermissionError but stops with EOFError: EOF when reading a line"
        in out
    )


def test_check_content_asks_every_kind_through_the_registry(sample_content, monkeypatch):
    # a kind that checks its content is checked by the command without the command
    # naming it: here the ordering exercises, which say each of theirs is wrong
    from dataclasses import dataclass

    from tutor import practice

    @dataclass
    class Wrong:
        where: str
        ok = False
        ok_note = ""
        mismatch_note = " (the lines)"

        @property
        def report(self):
            return [f"  {self.where} cannot be solved"]

    ordering = practice.get("ordering")

    class Checked(type(ordering)):
        checks_content = True

        def check_content(self, *, lessons):
            blocks = Block.objects.filter(kind="ordering", lesson__in=lessons).order_by("pk")
            return [Wrong(block.key) for block in blocks]

        def check_summary(self, *, wrong, total):
            return f"{wrong} of {total} ordering exercises cannot be solved."

    monkeypatch.setitem(practice._kinds, "ordering", Checked())
    out = StringIO()
    with pytest.raises(CommandError, match=r"^\d+ of \d+ ordering exercises cannot be solved\.$"):
        call_command("check_content", stdout=out)
    report = out.getvalue()
    assert (
        "MISMATCH  kv-cache-vram-order (the lines)\n  kv-cache-vram-order cannot be solved"
        in report
    )
    # the other kinds are checked as before, each kind's items together, in the
    # registry's order of kinds
    first = {"snippet": "backend-latency", "ordering": "kv-cache-vram-order",
             "code_exercise": "write-kv-cache-vram"}  # fmt: skip
    order = [kind.name for kind in practice.every() if kind.name in first]
    assert sorted(order, key=lambda name: report.index(first[name])) == order


def test_check_content_reports_a_preview_copied_from_a_snippet_with_a_slip(sample_content):
    from course.models import Lesson

    lesson = Lesson.objects.get(slug="kv-cache-and-long-contexts")
    lesson.what_you_will_see = lesson.what_you_will_see.replace("     8192 tokens", "   8192 tokens")
    lesson.save()
    assert lesson.block_shown_in_preview() is None  # so the page shows it unfolded
    out = StringIO()

    with pytest.raises(CommandError, match="'What you will see' differs from its snippet's output"):
        call_command("check_content", "--lesson", lesson.slug, stdout=out)

    assert (
        "MISMATCH  local-models/kv-cache-and-long-contexts: 'What you will see' is almost the "
        "output of snippet 'kv-cache-size', but its line 2 is '   8192 tokens:  1.00 GiB' where "
        "the snippet prints '     8192 tokens:  1.00 GiB'"
    ) in out.getvalue()


def test_check_content_leaves_a_preview_of_its_own_alone(sample_content):
    from course.models import Lesson

    lesson = Lesson.objects.get(slug="kv-cache-and-long-contexts")
    lesson.what_you_will_see = "A table of memory sizes, one line per context length.\n"
    lesson.save()
    out = StringIO()

    call_command("check_content", "--lesson", lesson.slug, stdout=out)

    assert "MISMATCH" not in out.getvalue()


def test_check_content_runs_each_ordering_exercise_graded_by_output(sample_content):
    out = StringIO()
    call_command("check_content", "--lesson", "kv-cache-and-long-contexts", stdout=out)

    assert "ok        local-models/kv-cache-and-long-contexts · kv-cache-size-order\n" in out.getvalue()
    assert "All 1 ordering exercises graded by output: the solution's order prints what it must." in (
        out.getvalue()
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"text": "    return layers * kv_heads  *"}, "the lines in the solution's order end with status error"),
        ({"expected_output": "Llama 3.1 8B: 64 KiB per token\n"}, "declares 'Llama 3.1 8B: 64 KiB per token\\n' but"),
        ({"every_text": "x = 1"}, "print nothing, so any order that prints nothing passes"),
    ],
)
def test_check_content_reports_an_ordering_exercise_no_learner_could_solve(sample_content, change, problem):
    from course.kinds.ordering import OrderingExercise

    exercise = OrderingExercise.objects.get(block__key="kv-cache-size-order")
    if "text" in change:
        exercise.lines.filter(key="return").update(text=change["text"])
    elif "every_text" in change:
        exercise.lines.update(text=change["every_text"])
    else:
        exercise.expected_output = change["expected_output"]
        exercise.save()
    out = StringIO()

    with pytest.raises(CommandError, match="1 of 1 ordering exercises graded by output cannot be solved"):
        call_command("check_content", "--lesson", "kv-cache-and-long-contexts", stdout=out)

    assert "MISMATCH  local-models/kv-cache-and-long-contexts · kv-cache-size-order" in out.getvalue()
    assert problem in out.getvalue()
