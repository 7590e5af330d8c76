"""What a run's result means, in a beginner's words.

The sandbox answers with a status, an exit code, stdout and stderr. Read here as a learner
reads them: the traceback cut to the frames of the learner's own program, the exception it
ends with, and for each way a run can fail (no input given, too slow, too much memory or
output, a syntax error) what happened in plain words, next to the real traceback. Snippet
reveals and Run use it; so can any later exercise that runs a learner's code.

Pure functions: nothing here touches the database.
"""

import re
from dataclasses import dataclass

try:
    from django.utils.translation import gettext as _
    from django.utils.translation import ngettext
except ImportError:
    # In the learner's browser (static/js/python-worker.js loads this file) there is no Django:
    # the page's language comes beside it, feedback_messages.json, made on the server from the
    # same catalog (tutor/practice/snippet/browser.py). Without it, English.
    import gettext as _gettext
    import json as _json
    from pathlib import Path as _Path

    try:
        _WORDS = _json.loads(_Path(__file__).with_name("feedback_messages.json").read_text())
    except (OSError, ValueError):
        _WORDS = {"plural_forms": "plural=(n != 1);", "messages": {}, "plurals": {}}
    _plural_form = _gettext.c2py(_WORDS["plural_forms"].split("plural=")[1].rstrip("; "))

    def _(message: str) -> str:
        return _WORDS["messages"].get(message) or message

    def ngettext(singular: str, plural: str, number: int) -> str:
        forms = _WORDS["plurals"].get(singular)
        if forms:
            return forms[_plural_form(number)]
        return singular if number == 1 else plural


from tutor.sandbox import Limits

PROGRAM_FILE = "main.py"  # the name the sandbox gives the learner's program

_FRAME = re.compile(r'^  File "(?P<file>[^"]*)", line (?P<line>\d+)')
_EXCEPTION_LINE = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)(?::(?P<message>.*))?$")
_SYNTAX_ERRORS = {"SyntaxError", "IndentationError", "TabError"}


@dataclass(frozen=True)
class RaisedException:
    """The exception a program ended with, as the traceback's last line shows it."""

    name: str  # as Python prints it: "ZeroDivisionError", "json.decoder.JSONDecodeError"
    line: str  # the whole line: "ZeroDivisionError: division by zero"
    at_line: int | None = None  # where in the learner's program, when the traceback says

    @property
    def short_name(self) -> str:
        return self.name.rpartition(".")[2]

    def is_named_by(self, text: str) -> bool:
        """Whether a learner's line names this exception: its name, with or without a
        message (`ZeroDivisionError`, `ZeroDivisionError: division by zero`)."""
        head = text.strip().partition(":")[0].strip()
        return head in {self.name, self.short_name}


def learner_traceback(stderr: str) -> str:
    """`stderr` with every traceback cut to the frames of the learner's program: the
    frames of the libraries it called (and of anything around it) left out."""
    kept: list[str] = []
    in_frame = keep_frame = False
    for line in stderr.split("\n"):
        frame = _FRAME.match(line)
        if frame:
            in_frame, keep_frame = True, frame["file"] == PROGRAM_FILE
        elif in_frame and (line.startswith("    ") or line.startswith("  [Previous line")):
            pass  # the frame's source line, its carets, a "repeated" note: as the frame goes
        else:
            in_frame = False
            kept.append(line)
            continue
        if keep_frame:
            kept.append(line)
    return "\n".join(kept)


def final_exception(stderr: str) -> RaisedException | None:
    """The exception the last traceback in `stderr` ends with, or None when there is none."""
    lines = stderr.split("\n")
    frames = [n for n, line in enumerate(lines) if _FRAME.match(line)]
    if not frames:
        return None
    at_line = None
    for n in reversed(frames):
        frame = _FRAME.match(lines[n])
        if frame["file"] == PROGRAM_FILE:
            at_line = int(frame["line"])
            break
    for line in lines[frames[-1] + 1 :]:
        if line.startswith(" ") or not line:
            continue
        found = _EXCEPTION_LINE.match(line)
        if found is None:
            return None
        return RaisedException(name=found["name"], line=line.rstrip(), at_line=at_line)
    return None


def raised_by(*, status: str, stderr: str) -> RaisedException | None:
    """The exception a finished run ended with (only a run that stopped with an error has one)."""
    return final_exception(stderr) if status == "error" else None


@dataclass(frozen=True)
class Explanation:
    """Why a run did not go as planned, for a beginner: a heading and a sentence or two."""

    kind: str  # no_input, timeout, memory, output_limit, syntax_error, error, exit, killed, failed
    title: str
    text: str
    line: int | None = None  # the line of the program it is about, when there is one


def _seconds(value: float) -> str:
    return ngettext("%(seconds)s second", "%(seconds)s seconds", value) % {"seconds": f"{value:g}"}


def explain_run(
    *, status: str, stderr: str, exit_code: int | None, stdin: str, limits: Limits
) -> Explanation | None:
    """What went wrong with a finished run, in plain words; None when it finished well."""
    if status == "ok":
        return None
    if status == "timeout":
        return Explanation(
            "timeout",
            _("Too slow: your program was stopped"),
            _(
                "A run may compute for %(cpu)s and take %(wall)s in all; yours was still going, "
                "so it was stopped before it finished. A loop whose condition never becomes "
                "false is the usual reason: check what should make it stop."
            )
            % {"cpu": _seconds(limits.cpu_seconds), "wall": _seconds(limits.wall_seconds)},
        )
    if status == "memory":
        return Explanation(
            "memory",
            _("Too much memory: your program was stopped"),
            _(
                "A run may use %(mib)s MiB of memory; yours asked for more. A list or text that "
                "keeps growing, often inside a loop that never ends, is the usual reason."
            )
            % {"mib": limits.memory_bytes // (1024 * 1024)},
        )
    if status == "output_limit":
        return Explanation(
            "output_limit",
            _("Too much output: your program was stopped"),
            _(
                "A run may print %(kib)s KiB; yours printed more, so it was stopped and its "
                "output is cut short. A print inside a loop that never ends is the usual reason."
            )
            % {"kib": limits.output_bytes // 1024},
        )
    if status == "killed":
        return Explanation(
            "killed",
            _("Your program was stopped"),
            _(
                "The sandbox stopped it: it tried something a run may not do here, such as "
                "starting too many processes or threads."
            ),
        )
    if status == "failed":
        return Explanation(
            "failed",
            _("Parsnip couldn't run your program"),
            _("This was not your code's fault. Please run it again in a moment."),
        )
    raised = final_exception(stderr)
    if raised is None:
        return Explanation(
            "exit",
            _("Your program ended with exit code %(code)s") % {"code": exit_code},
            _(
                "It stopped on purpose (sys.exit with a number other than 0 means “something "
                "went wrong”), or Python stopped it without a traceback."
            ),
        )
    line = {"line": raised.at_line, "error": raised.short_name}
    if raised.short_name in _SYNTAX_ERRORS:
        return Explanation(
            "syntax_error",
            _("Python couldn't read your program: a %(error)s on line %(line)s") % line
            if raised.at_line
            else _("Python couldn't read your program: a %(error)s") % line,
            _(
                "Python checks the whole program before it runs any of it, so nothing ran. "
                "Look at line %(line)s and the line before it: a missing bracket, quote or "
                "colon, or indentation that doesn't line up, is the usual reason."
            )
            % line
            if raised.at_line
            else _("Python checks the whole program before it runs any of it, so nothing ran."),
            raised.at_line,
        )
    if raised.short_name == "EOFError" and "EOF when reading a line" in raised.line:
        if not stdin and raised.at_line:
            text = _(
                "It called input() on line %(line)s to read a line, but no input was given. Type "
                "what it should read in the Input box, one line for each input(), and run it again."
            )
        elif not stdin:
            text = _(
                "It called input() to read a line, but no input was given. Type what it should "
                "read in the Input box, one line for each input(), and run it again."
            )
        elif raised.at_line:
            text = _(
                "It called input() on line %(line)s once more than the Input box has lines. Add a "
                "line to the Input box for each input() it calls, and run it again."
            )
        else:
            text = _(
                "It called input() once more than the Input box has lines. Add a line to the "
                "Input box for each input() it calls, and run it again."
            )
        return Explanation(
            "no_input", _("Your program waited for input"), text % line, raised.at_line
        )
    return Explanation(
        "error",
        _("Your program stopped with an error on line %(line)s") % line
        if raised.at_line
        else _("Your program stopped with an error"),
        _(
            "Python's last line says what went wrong: `%(last_line)s`. Everything the program "
            "printed before it stopped is still shown."
        )
        % {"last_line": raised.line},
        raised.at_line,
    )
