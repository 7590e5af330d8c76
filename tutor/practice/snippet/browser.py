"""Run in the learner's own browser: what the page needs to do it (static/js/browser-run.js
and python-worker.js), and the Python the browser loads beside the learner's program.

The browser runs the learner's Run only; reveals, checks and step-through stay on the
server, which records the browser's runs afterwards and never takes them as a verdict
(docs/sandbox.md, "Runs in the browser")."""

import ast
import functools
import gettext
import hashlib
import json

from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation

from tutor.actions.runs import limits_for
from tutor.models import Run

# The runner and the beginner's explanations: the very modules the server uses, so a browser
# run is explained in the same words. Pure Python, no Django (import-linter checks the
# sandbox; tutor.feedback needs only the sandbox's Limits, which the package here gives).
_MODULES = ("tutor/feedback.py", "tutor/sandbox/limits.py", "tutor/sandbox/in_browser.py")
_PYODIDE_FILES = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


# Where tutor/feedback.py, without Django, finds its words in the page's language.
MESSAGES_FILE = "tutor/feedback_messages.json"
_GERMANIC_PLURAL = "nplurals=2; plural=(n != 1);"


@functools.cache
def browser_python(language: str) -> tuple[str, str]:
    """The modules as the worker writes them into its Python's files (JSON), with the
    explanations' words in `language`, and their digest."""
    files = {"tutor/__init__.py": "", "tutor/sandbox/__init__.py": "from .limits import Limits\n"}
    for path in _MODULES:
        files[path] = (settings.BASE_DIR / path).read_text()
    files[MESSAGES_FILE] = json.dumps(feedback_messages(language), ensure_ascii=False)
    text = json.dumps(files)
    return text, hashlib.sha256(text.encode()).hexdigest()[:16]


def _feedback_message_ids() -> tuple[list[str], list[tuple[str, str]]]:
    """The strings tutor/feedback.py gives to `_` and to `ngettext`, as makemessages finds them."""
    tree = ast.parse((settings.BASE_DIR / "tutor/feedback.py").read_text())
    singles, plurals = [], []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        texts = [
            arg.value
            for arg in node.args
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
        ]
        if node.func.id == "_" and len(texts) == 1:
            singles.append(texts[0])
        elif node.func.id == "ngettext" and len(texts) == 2:
            plurals.append((texts[0], texts[1]))
    return singles, plurals


def feedback_messages(language: str) -> dict:
    """tutor/feedback.py's words in `language`, for the browser's Python, which has no Django:
    each message by its English text, each plural message's forms in the order of the
    language's Plural-Forms rule, and that rule (gettext.c2py reads it)."""
    catalog = gettext.translation(
        "django", settings.BASE_DIR / "locale", languages=[language], fallback=True
    )
    rule = catalog.info().get("plural-forms", _GERMANIC_PLURAL)
    count = int(rule.split("nplurals=")[1].split(";")[0])
    choose = gettext.c2py(rule.split("plural=")[1].rstrip("; "))
    # For each form, a number that takes it: the small numbers, then the round ones (Spanish
    # keeps a form for the millions).
    candidates = [*range(1000), *(10**power for power in range(3, 16))]
    numbers = [next((n for n in candidates if choose(n) == form), 2) for form in range(count)]
    singles, plurals = _feedback_message_ids()
    with translation.override(language):
        return {
            "plural_forms": rule,
            "messages": {message: translation.gettext(message) for message in singles},
            "plurals": {
                singular: [translation.ngettext(singular, plural, n) for n in numbers]
                for singular, plural in plurals
            },
        }


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
    language = translation.get_language()
    return {
        "worker": static("js/python-worker.js"),
        "pyodide": static(settings.PYODIDE_STATIC + "pyodide.mjs"),
        "python": f"{reverse('tutor:browser_python')}?l={language}&v={browser_python(language)[1]}",
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
