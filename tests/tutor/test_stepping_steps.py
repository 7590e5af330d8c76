"""One step as the page shows it, the screen reader's words, and where a stepping opens:
plain functions over the tracer's dict (tutor/practice/stepping/steps.py)."""

from tests.tutor.stepping_data import (
    ALIASING_CODE,
    NESTING_CODE,
    aliasing_trace,
    nesting_trace,
    printing_trace,
)
from tutor.practice.stepping import steps


def test_the_description_says_what_ran_what_changed_and_what_is_shared():
    data = aliasing_trace()
    words = [steps.describe(data["steps"], n, data["stdout"], total=6) for n in range(1, 7)]
    assert words[0] == "Step 1 of 6. The program starts: line 1 runs first."
    assert words[1] == "Step 2 of 6. Line 1 ran; line 2 is next. `items` is now a list of 2 items."
    assert words[2].endswith(
        "`copy` is now a list of 2 items. `items` and `copy` name the same list."
    )
    assert words[3].endswith("`total` is now 3.")
    assert words[4] == "Step 5 of 6. Line 4 ran; line 5 is next. `total` changed from 3 to 7."
    assert words[5] == "Step 6 of 6. Line 5 ran. The program has finished. It printed “7”."


def test_the_same_alias_is_not_said_again_at_every_step():
    data = aliasing_trace()
    assert "same list" not in steps.describe(data["steps"], 4, data["stdout"], total=6)


def test_a_list_that_changes_in_place_is_said_so():
    data = aliasing_trace()
    grown = {"type": "list", "name": "list", "items": [{"type": "int", "repr": "1"}] * 3}
    data["steps"][4]["heap"] = {"1": grown}
    words = steps.describe(data["steps"], 5, data["stdout"], total=6)
    assert "the list `items` names changed: it is now a list of 3 items" in words


def test_a_call_a_return_and_an_exception_are_said():
    frames = [{"function": "<module>", "line": 3, "locals": []}]
    inner = frames + [
        {"function": "half", "line": 1, "locals": [["n", {"type": "int", "repr": "4"}]]}
    ]
    returning = frames + [
        {"function": "half", "line": 2, "locals": [], "returned": {"type": "int", "repr": "2"}}
    ]
    trace = [
        {
            "line": 3,
            "event": "line",
            "stdout_len": 0,
            "frames": frames,
            "heap": {},
            "exception": None,
        },
        {
            "line": 1,
            "event": "call",
            "stdout_len": 0,
            "frames": inner,
            "heap": {},
            "exception": None,
        },
        {
            "line": 2,
            "event": "return",
            "stdout_len": 0,
            "frames": returning,
            "heap": {},
            "exception": None,
        },
        {
            "line": 4,
            "event": "exception",
            "stdout_len": 0,
            "frames": frames,
            "heap": {},
            "exception": "ZeroDivisionError: division by zero",
        },
    ]
    assert "`half` was called." in steps.describe(trace, 2, "", total=4)
    assert "`half` returns 2." in steps.describe(trace, 3, "", total=4)
    assert "It raised ZeroDivisionError: division by zero." in steps.describe(trace, 4, "", total=4)


def test_the_step_marks_the_line_about_to_run_and_the_line_just_run():
    view = steps.step_view(aliasing_trace(), ALIASING_CODE, 4)
    marked = {line.number: (line.current, line.ran) for line in view.code}
    assert marked[4] == (True, False)
    assert marked[3] == (False, True)
    assert len(view.code) == 5  # the final newline makes no empty line


def test_two_names_for_one_list_draw_two_arrows_to_one_box():
    view = steps.step_view(aliasing_trace(), ALIASING_CODE, 3)
    assert [box.title for box in view.boxes] == ["list"]
    assert [(arrow.name, arrow.ref) for arrow in view.arrows] == [("items", "1"), ("copy", "1")]
    assert {arrow.y2 for arrow in view.arrows} == {view.boxes[0].y}
    # Each arrow starts at its variable's row: the frame's heading, then a row each.
    assert [arrow.y1 for arrow in view.arrows] == [
        steps.ROW + steps.ROW // 2,
        2 * steps.ROW + steps.ROW // 2,
    ]


def test_large_objects_are_summarised_with_a_count():
    data = aliasing_trace()
    data["steps"][1]["heap"] = {
        "1": {
            "type": "list",
            "name": "list",
            "items": [{"type": "int", "repr": str(n)} for n in range(100)],
            "more": 900,
        }
    }
    box = steps.step_view(data, ALIASING_CODE, 2).boxes[0]
    assert len(box.entries) == steps.MAX_ITEMS
    assert box.more == 900 + 100 - steps.MAX_ITEMS
    assert box.size_text == "1000 items"


def test_a_stopped_trace_says_why_at_its_last_step_only():
    data = printing_trace(["a", "b"], stopped={"reason": "steps", "message": "", "step": 2})
    assert steps.step_view(data, "print('a')\nprint('b')\n", 2).stopped == ""
    last = steps.step_view(data, "print('a')\nprint('b')\n", 3)
    assert last.stopped.startswith("It stopped after 3 steps: Parsnip shows at most that many.")


def test_every_reason_to_stop_is_said_in_words():
    for reason in ("steps", "size", "time", "memory", "recursion", "output", "crash"):
        words = steps.stopped_words(
            {"status": "stopped", "stopped": {"reason": reason, "message": "", "step": 8}}
        )
        assert "9" in words and "{" not in words
    syntax = {
        "status": "syntax_error",
        "stopped": None,
        "error": {"line": 2, "message": "invalid syntax"},
        "steps": [],
    }
    assert steps.stopped_words(syntax).startswith(
        "Python could not read this program: line 2: invalid syntax."
    )


# The first step whose output differs from the prediction --------------------------------

LINES = ["", "Optimising speed and memory", "llama.cpp on NVIDIA: 2.00s"]


def test_a_prediction_without_the_leading_empty_line_opens_after_the_first_print():
    data = printing_trace(LINES)
    # Step 2: line 1 (print()) just ran and printed the empty line they did not say.
    assert (
        steps.first_differing_step(
            data, "Optimising speed and memory\nllama.cpp on NVIDIA: 2.00s\n"
        )
        == 2
    )


def test_a_wrong_line_opens_just_after_the_line_that_printed_it():
    data = printing_trace(LINES)
    assert (
        steps.first_differing_step(
            data, "\nOptimising speed and memory\nllama.cpp on NVIDIA: 9.99s"
        )
        == 4
    )


def test_a_line_missing_from_the_prediction_opens_where_the_extra_line_is_printed():
    data = printing_trace(["a", "b", "c"])
    assert steps.first_differing_step(data, "a\nc\n") == 3


def test_a_prediction_that_says_more_than_the_program_prints_opens_at_its_end():
    data = printing_trace(["a", "b"])
    assert steps.first_differing_step(data, "a\nb\nc\n") == 3


def test_a_right_prediction_opens_at_the_start_and_a_missing_final_newline_is_no_difference():
    data = printing_trace(["a", "b"])
    assert steps.first_differing_step(data, "a\nb") == 1
    assert steps.first_differing_step(data, "a\r\nb\r\n") == 1


def test_output_printed_in_pieces_is_compared_as_it_grows():
    data = printing_trace(["ab"])
    data["steps"].insert(1, {**data["steps"][0], "line": 1, "stdout_len": 1})  # "a" so far
    assert steps.first_differing_step(data, "ab\n") == 1
    assert steps.first_differing_step(data, "ax\n") == 3


def test_a_check_opens_at_its_first_line():
    data = printing_trace(["a", "b", "c", "d"])
    assert steps.first_step_from_line(data, 3) == 3


def test_steps_read_from_part_of_the_text_are_the_tracers_steps():
    data = aliasing_trace()
    data["steps"][2]["frames"][0]["locals"].append(["s", {"type": "str", "repr": "'é\\n✓ 🐍'"}])
    summary, index, text = steps.Steps.pack(data)
    fetched = []

    def fetch(start, length):
        fetched.append((start, length))
        return text[start : start + length]

    for first in range(len(data["steps"])):
        for last in range(first, len(data["steps"])):
            reader = steps.Steps(summary, index, None, fetch=fetch)
            reader.read(first, last)
            assert [reader[n] for n in range(first, last + 1)] == data["steps"][first : last + 1]
    assert steps.Steps(summary, index, text).to_dict() == data
    view = steps.step_view(steps.Steps(summary, index, None, fetch=fetch), ALIASING_CODE, 4)
    assert view.description.endswith("`total` is now 3.")


def test_objects_that_point_at_objects_draw_an_arrow_from_each_such_entry():
    view = steps.step_view(nesting_trace(), NESTING_CODE, 1)
    box = {box.id: box for box in view.boxes}
    assert [(link.label, link.ref) for link in view.links] == [
        ("#1[0]", "2"),
        ("#1[1]", "3"),
        ("#3['a']", "2"),
        ("#4.next", "4"),  # itself: a loop
    ]
    # from the entry's row (the heading, then a row each) to the heading of the object
    ends = [(link.y1, link.y2) for link in view.links]
    assert ends == [
        (box["1"].y + steps.ROW, box["2"].y),
        (box["1"].y + 2 * steps.ROW, box["3"].y),
        (box["3"].y + steps.ROW, box["2"].y),
        (box["4"].y + steps.ROW, box["4"].y),
    ]
    # a variable's arrows are drawn as before, one per name
    assert [(arrow.name, arrow.ref) for arrow in view.arrows] == [("grid", "1"), ("node", "4")]
    # each loop stays in its gutter and ends beside the object it points at
    for link in view.links:
        reach = int(link.path.split("C")[1].split()[0])
        assert 0 < reach <= steps.LINK_WIDTH - 4
        assert link.path.endswith(f" 6 {link.y2}")


def test_an_object_pointing_at_one_not_shown_draws_no_arrow():
    data = nesting_trace()
    del data["steps"][0]["heap"]["3"]  # cut short, as a summarised object's would be
    view = steps.step_view(data, NESTING_CODE, 1)
    assert all(link.ref != "3" for link in view.links)
    assert [link.label for link in view.links] == ["#1[0]", "#4.next"]
