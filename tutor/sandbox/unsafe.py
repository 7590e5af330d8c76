"""The "unsafe-subprocess" backend: the interpreter under rlimits, nothing more.

No namespaces and no seccomp: the code can read every file and reach every network
service the worker can. It exists for machines without bubblewrap during development
and is chosen only by name; the Django settings refuse it when DEBUG is off.
"""

import os
import shutil
import subprocess
import tempfile

from .bwrap import CHILD_SOURCE, ENVIRONMENT
from .limits import SandboxUnavailable
from .process import StartedSandbox


class UnsafeSubprocessBackend:
    name = "unsafe-subprocess"

    def __init__(self, interpreter="/usr/bin/python3"):
        if not os.access(interpreter, os.X_OK):
            raise SandboxUnavailable(
                f"The sandbox interpreter {interpreter} is missing or not executable."
            )
        self.interpreter = interpreter

    def start(self, *, workdir_bytes) -> StartedSandbox:
        workdir = tempfile.mkdtemp(prefix="parsnip-run-")
        control_read, control_write = os.pipe()
        try:
            proc = subprocess.Popen(
                [self.interpreter, "-I", "-S", "-c", CHILD_SOURCE, str(control_read)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(control_read,),
                env={**ENVIRONMENT, "HOME": workdir, "TMPDIR": workdir},
                cwd=workdir,
                start_new_session=True,
            )
        finally:
            os.close(control_read)
        sandbox = StartedSandbox(proc=proc, control=control_write, signals_as_exit_codes=False)
        sandbox.cleanup.append(lambda: shutil.rmtree(workdir, ignore_errors=True))
        if os.read(proc.stdout.fileno(), 1) != b"\0":
            sandbox.discard()
            raise SandboxUnavailable(f"{self.interpreter} did not start")
        return sandbox
