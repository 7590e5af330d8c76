"""Run a learner's program in their own browser: Python (Pyodide) in a Web Worker.

The worker (static/js/python-worker.js) loads this module into Pyodide and calls `run`,
which answers with the same fields as the sandbox's `Result` (`to_dict()`), so the page
shows a browser run as it shows the server's, and `tutor.feedback` explains it in the same
words. What the sandbox enforces with the kernel, this can only imitate: the output cap is
counted here; the time limit is the worker's (it is terminated); memory is the browser's.
`needs_the_server` says which programs are sent to the server instead.

Plain Python, standard library only: it runs under CPython too (tests/sandbox), and imports
nothing from Django or the rest of the project.
"""

import ast
import builtins
import importlib.util
import io
import linecache
import sys
import time
import traceback
import types

PROGRAM_FILE = "main.py"  # the name the server's sandbox gives the program too

# What a browser cannot do as the server does (threads, processes, sockets, signals): a
# program importing one of these runs on the server.
SERVER_ONLY_MODULES = frozenset(
    {
        "_thread", "threading", "multiprocessing", "concurrent", "subprocess", "socket",
        "socketserver", "ssl", "select", "selectors", "signal", "asyncio", "http", "urllib",
        "ftplib", "smtplib", "ctypes", "resource", "pty", "tty", "termios", "fcntl", "mmap",
    }
)  # fmt: skip


def needs_the_server(code: str) -> str | None:
    """Why this program must run on the server (a module the browser lacks or cannot run
    as the server does), or None when the browser can run it. A program that does not
    parse runs here: Python's own SyntaxError is the answer either way."""
    try:
        tree = ast.parse(code, PROGRAM_FILE)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.partition(".")[0]
            if top in SERVER_ONLY_MODULES:
                return f"it imports {top}"
            if top not in sys.builtin_module_names and importlib.util.find_spec(top) is None:
                return f"it imports {top}, which the browser does not have"
    return None


class _OutputLimit(BaseException):
    """The program printed more than a run may: stop it (a BaseException, so that the
    program's own `except Exception` does not swallow it)."""


def _stop_program() -> None:
    """Stop the program at its next line, even one inside its own `except BaseException`
    (which caught _OutputLimit): a line tracer on each of its frames raises it again."""

    def on_line(frame, event, arg):
        if event == "line":
            raise _OutputLimit
        return on_line

    def on_call(frame, event, arg):
        return on_line if frame.f_code.co_filename == PROGRAM_FILE else None

    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == PROGRAM_FILE:
            frame.f_trace_lines, frame.f_trace = True, on_line
        frame = frame.f_back
    sys.settrace(on_call)


class _CappedOutput(io.TextIOBase):
    """One of the program's stdout and stderr; both count towards one cap, in bytes."""

    def __init__(self, counter: dict, cap: int):
        self.parts: list[str] = []
        self.counter, self.cap = counter, cap

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.counter["over"]:
            raise _OutputLimit
        size = len(text.encode("utf-8", "surrogatepass"))
        room = self.cap - self.counter["bytes"]
        if size > room:
            kept = text.encode("utf-8", "surrogatepass")[:room].decode("utf-8", "ignore")
            self.parts.append(kept)
            self.counter["bytes"] = self.cap
            self.counter["over"] = True
            _stop_program()
            raise _OutputLimit
        self.parts.append(text)
        self.counter["bytes"] += size
        return len(text)

    def text(self) -> str:
        return "".join(self.parts)


def _learner_frames(error: BaseException) -> list[str]:
    """The traceback as Python prints it for a program that stopped with `error`, starting
    at the program's own frame (this module's `exec` left out)."""
    if isinstance(error, SyntaxError) and error.filename == PROGRAM_FILE and error.__traceback__:
        # Raised by compile(): as Python shows it, the error's place and nothing else.
        return traceback.format_exception_only(type(error), error)
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != PROGRAM_FILE:
        tb = tb.tb_next
    return traceback.format_exception(type(error), error, tb)


def run(code: str, *, stdin: str = "", output_bytes: int = 64 * 1024) -> dict:
    """Run `code` as the program `main.py` with `stdin`, its output capped; a dict with the
    fields of the sandbox's Result."""
    counter = {"bytes": 0, "over": False}
    out, err = _CappedOutput(counter, output_bytes), _CappedOutput(counter, output_bytes)
    main = types.ModuleType("__main__")
    main.__file__ = PROGRAM_FILE
    main.__builtins__ = builtins
    linecache.cache[PROGRAM_FILE] = (len(code), None, code.splitlines(True), PROGRAM_FILE)
    saved = sys.stdin, sys.stdout, sys.stderr, sys.argv, sys.modules.get("__main__")
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    sys.argv, sys.modules["__main__"] = [PROGRAM_FILE], main
    status, exit_code = "ok", 0
    started = time.perf_counter()
    try:
        exec(compile(code, PROGRAM_FILE, "exec"), main.__dict__)
    except _OutputLimit:
        status, exit_code = "output_limit", None
    except SystemExit as stop:
        exit_code, status = _exit(stop.code, err)
    except BaseException as error:  # noqa: BLE001 -- whatever the program raised is its answer
        status, exit_code = ("memory" if isinstance(error, MemoryError) else "error"), 1
        try:
            err.write("".join(_learner_frames(error)))
        except _OutputLimit:
            status, exit_code = "output_limit", None
    finally:
        sys.settrace(None)
        duration_ms = int((time.perf_counter() - started) * 1000)
        for stream in (out, err):
            try:
                stream.flush()
            except _OutputLimit:
                pass
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved[:4]
        if saved[4] is not None:
            sys.modules["__main__"] = saved[4]
        linecache.cache.pop(PROGRAM_FILE, None)
    if counter["over"]:
        status, exit_code = "output_limit", None
    return {
        "status": status,
        "exit_code": exit_code,
        "stdout": out.text(),
        "stderr": err.text(),
        "duration_ms": duration_ms,
        "truncated": counter["over"],
    }


def _exit(code, err: _CappedOutput) -> tuple[int, str]:
    """sys.exit(code) as the interpreter ends with it: (exit code, status)."""
    if code is None:
        return 0, "ok"
    if isinstance(code, int):
        return code, "ok" if code == 0 else "error"
    try:
        err.write(f"{code}\n")
    except _OutputLimit:
        return None, "output_limit"
    return 1, "error"
