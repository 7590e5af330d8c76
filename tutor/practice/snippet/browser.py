"""Run in the learner's own browser: what the page needs to do it (static/js/browser-run.js
and python-worker.js), and the Python the browser loads beside the learner's program.

The browser runs the learner's Run only; reveals, checks and step-through stay on the
server, which records the browser's runs afterwards and never takes them as a verdict
(docs/sandbox.md, "Runs in the browser")."""

import functools
import hashlib
import json

from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse

from tutor.actions.runs import limits_for
from tutor.models import Run

# The runner and the beginner's explanations: the very modules the server uses, so a browser
# run is explained in the same words. Pure Python, no Django (import-linter checks the
# sandbox; tutor.feedback needs only the sandbox's Limits, which the package here gives).
_MODULES = ("tutor/feedback.py", "tutor/sandbox/limits.py", "tutor/sandbox/in_browser.py")
_PYODIDE_FILES = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


@functools.cache
def browser_python() -> tuple[str, str]:
    """The modules as the worker writes them into its Python's files (JSON), and their digest."""
    files = {"tutor/__init__.py": "", "tutor/sandbox/__init__.py": "from .limits import Limits\n"}
    for path in _MODULES:
        files[path] = (settings.BASE_DIR / path).read_text()
    text = json.dumps(files)
    return text, hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def pyodide_bytes() -> int:
    """What loading Python fetches, in bytes (for "3.1 of 12 MB"), as built into static/."""
    folder = settings.BASE_DIR / "static" / settings.PYODIDE_STATIC
    return sum((folder / name).stat().st_size for name in _PYODIDE_FILES if (folder / name).exists())


def browser_run_settings(snippet) -> dict:
    """The run form's data for running in the browser: where Python is, the snippet's limits
    (the sandbox's, as the browser can keep them) and the words for a run's status; none
    when settings.RUN_IN_BROWSER is off."""
    if not settings.RUN_IN_BROWSER:
        return {}
    limits = limits_for(snippet)
    return {
        "worker": static("js/python-worker.js"),
        "pyodide": static(settings.PYODIDE_STATIC + "pyodide.mjs"),
        "python": f"{reverse('tutor:browser_python')}?v={browser_python()[1]}",
        "bytes": pyodide_bytes(),
        "record": reverse("tutor:browser_runs_record", args=[snippet.pk]),
        "limits": json.dumps(
            {
                "cpu_seconds": limits.cpu_seconds,
                "wall_seconds": limits.wall_seconds,
                "memory_bytes": limits.memory_bytes,
                "output_bytes": limits.output_bytes,
            }
        ),
        "labels": json.dumps({str(value): str(label) for value, label in Run.Status.choices}),
    }
