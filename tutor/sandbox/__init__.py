"""Run untrusted Python code in a single-use sandbox.

    from tutor.sandbox import run, Limits
    result = run("print('hi')", stdin="", limits=Limits(wall_seconds=5))
    result.status, result.stdout  # "ok", "hi\\n"

Backends: "bwrap" (the default; bubblewrap namespaces, seccomp, cgroups, rlimits) and
"unsafe-subprocess" (rlimits only, chosen by name, for development machines). No
Django import here: the settings layer picks the backend with ``configure``.

The bwrap backend has two strategies, with the same isolation (docs/sandbox.md):
"zygote" (the default: a long-lived bubblewrap sandbox per concurrent run forks each
run into fresh namespaces of its own) and "bwrap" (a pool of pre-started single-use
bubblewrap sandboxes).
"""

import atexit
import os
import threading

from .limits import STATUSES, Limits, Result, SandboxUnavailable
from .process import SandboxBroken, execute

__all__ = [
    "run",
    "can_preload",
    "configure",
    "shutdown",
    "Limits",
    "Result",
    "SandboxUnavailable",
    "STATUSES",
    "BACKENDS",
]

BACKENDS = ("bwrap", "unsafe-subprocess")
STRATEGIES = ("zygote", "bwrap")
INTERPRETER = "/usr/bin/python3"

_settings = {"backend": "bwrap", "interpreter": INTERPRETER, "pool_size": 4, "strategy": "zygote"}
_backends = {}
_pools = {}
_zygotes = {}
_lock = threading.Lock()


def configure(*, backend=None, interpreter=None, pool_size=None, strategy=None):
    """Choose the default backend, the interpreter, how the bwrap backend starts runs
    (``strategy``: "zygote", a fork server per concurrent run, or "bwrap", a pool of
    pre-started single-use sandboxes) and how many sandboxes that pool keeps ready."""
    if backend is not None and backend not in BACKENDS:
        raise ValueError(
            f"unknown sandbox backend {backend!r}; choose one of {', '.join(BACKENDS)}"
        )
    if strategy is not None and strategy not in STRATEGIES:
        raise ValueError(
            f"unknown sandbox strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}"
        )
    shutdown()
    with _lock:
        for key, value in (
            ("backend", backend),
            ("interpreter", interpreter),
            ("pool_size", pool_size),
            ("strategy", strategy),
        ):
            if value is not None:
                _settings[key] = value


def _backend(name):
    key = (name, _settings["interpreter"])
    with _lock:
        if key not in _backends:
            if name == "bwrap":
                from .bwrap import BwrapBackend

                _backends[key] = BwrapBackend(_settings["interpreter"])
            elif name == "unsafe-subprocess":
                from .unsafe import UnsafeSubprocessBackend

                _backends[key] = UnsafeSubprocessBackend(_settings["interpreter"])
            else:
                raise ValueError(
                    f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}"
                )
        return _backends[key]


def _start_sandbox(backend, limits):
    """Take a pre-started sandbox when one fits these limits, else start one now."""
    if (
        backend.name != "bwrap"
        or not _settings["pool_size"]
        or limits.workdir_bytes != Limits.workdir_bytes
    ):
        return backend.start(workdir_bytes=limits.workdir_bytes)
    from .pool import Pool

    key = id(backend)
    with _lock:
        pool = _pools.get(key)
        if pool is None:
            # fail here, in the caller, when bubblewrap cannot work at all
            first = backend.start(workdir_bytes=Limits.workdir_bytes)
            pool = _pools[key] = Pool(
                lambda: backend.start(workdir_bytes=Limits.workdir_bytes),
                size=_settings["pool_size"],
            )
            return first
    return pool.take()


def _refusal(message, limits=None):
    return Result(status="error", exit_code=None, stdout="", stderr=message + "\n", duration_ms=0)


def can_preload(backend: str | None = None) -> bool:
    """Whether runs on ``backend`` may name a preload (the zygote strategy only)."""
    return (backend or _settings["backend"]) == "bwrap" and _settings["strategy"] == "zygote"


def run(
    code: str,
    *,
    stdin: str = "",
    limits: Limits | None = None,
    backend: str | None = None,
    preload: tuple | None = None,
) -> Result:
    """Run ``code`` as a Python program with ``stdin`` as its input; never raises for
    anything the code does. Raises SandboxUnavailable when the sandbox cannot work.

    ``preload`` (name, source[, modules]), when ``can_preload``: public code (never a
    learner's) the fork server compiles once and keeps, and modules it imports once;
    ``code`` finds the code object as ``__preloaded__``, and those modules (only those of
    the fork server's) in sys.modules. The grading harness travels this way
    (docs/sandbox.md)."""
    limits = limits or Limits()
    if preload is not None and not can_preload(backend):
        raise ValueError("a preload needs the bwrap backend's zygote strategy")
    if "\0" in code:
        return _refusal("The program contains a NUL character; remove it and run again.")
    try:
        source = code.encode("utf-8")
        stdin_bytes = stdin.encode("utf-8")
    except UnicodeEncodeError:
        return _refusal("The program or its input is not valid Unicode text.")
    if len(source) > limits.source_bytes:
        return _refusal(
            f"The program is {len(source)} bytes long; the limit is {limits.source_bytes} bytes."
        )
    if len(stdin_bytes) > limits.stdin_bytes:
        return _refusal(
            f"The input is {len(stdin_bytes)} bytes long; the limit is {limits.stdin_bytes} bytes."
        )
    chosen = _backend(backend or _settings["backend"])
    if chosen.name == "bwrap" and _settings["strategy"] == "zygote":
        zygotes = _zygote_pool(chosen)
        for _attempt in range(3):
            try:
                return zygotes.run(source, stdin_bytes, limits, preload)
            except SandboxBroken:
                continue  # its fork server died or misbehaved; a new one is started
        raise SandboxUnavailable(
            "The sandbox's fork server keeps failing before it can run code; see the worker's log."
        )
    for _attempt in range(3):
        sandbox = _start_sandbox(chosen, limits)
        try:
            return execute(sandbox, source, stdin_bytes, limits)
        except SandboxBroken:
            continue  # it died while waiting (killed from outside); the code never ran
    raise SandboxUnavailable("Sandboxes keep dying before they can run code; see the worker's log.")


def _zygote_pool(backend):
    from .zygote import ZygotePool

    key = id(backend)
    with _lock:
        pool = _zygotes.get(key)
        if pool is None:
            pool = _zygotes[key] = ZygotePool(backend)
        return pool


def shutdown():
    """Stop the pools and fork servers and throw away their waiting sandboxes."""
    with _lock:
        pools = list(_pools.values()) + list(_zygotes.values())
        _pools.clear()
        _zygotes.clear()
    for pool in pools:
        pool.close()


def _forget_after_fork():
    global _lock
    _lock = threading.Lock()
    for pool in list(_pools.values()) + list(_zygotes.values()):
        pool.forget()
    _pools.clear()
    _zygotes.clear()


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
