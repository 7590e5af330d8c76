"""Running learner code in a started sandbox: hand it the code, feed stdin, read the
output under a cap, enforce the wall clock, and say what happened."""

import contextlib
import fcntl
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field

from . import cgroup
from .limits import Limits, Result

_SIGNAL_LIMIT = 65  # bubblewrap reports death by signal N as exit code 128 + N


@dataclass
class StartedSandbox:
    """A sandbox whose interpreter is up and waiting for its code. Used once."""

    proc: subprocess.Popen
    control: int  # write end of the pipe the code is sent through
    signals_as_exit_codes: bool  # bubblewrap turns death by signal N into exit 128 + N
    cgroup: object = None
    workdir: str | None = None  # host directory to remove afterwards (unsafe backend)
    cleanup: list = field(default_factory=list)

    def _inner_pids(self):
        """The sandbox's processes other than bubblewrap's outer one."""
        if self.cgroup is not None:
            return [pid for pid in self.cgroup.pids() if pid != self.proc.pid]
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        if int(f.read().rsplit(b")", 1)[1].split()[1]) == self.proc.pid:
                            children.append(int(entry))
                except (OSError, ValueError, IndexError):
                    continue
        return children

    def kill(self):
        """Kill the sandbox's pid 1 (the kernel then kills its whole pid namespace) and
        leave bubblewrap's outer process alive to reap it, so nothing is orphaned."""
        if self.proc.returncode is not None:
            return
        if not self.signals_as_exit_codes:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            return
        inner = self._inner_pids()
        for pid in inner:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if not inner:
            with contextlib.suppress(OSError):
                os.kill(self.proc.pid, signal.SIGKILL)

    def wait(self, timeout):
        """Reap bubblewrap's outer process; returns (status, rusage) or None on timeout."""
        if self.proc.returncode is not None:
            return None
        pidfd = os.pidfd_open(self.proc.pid)
        try:
            if not select.select([pidfd], [], [], timeout)[0]:
                return None
        finally:
            os.close(pidfd)
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return status, usage

    def close_control(self):
        """Close the pipe the code goes through (an unused sandbox exits on its own at
        EOF). The only place its descriptor is closed: the number is forgotten first, so
        a second call, from whichever path, cannot close a number the process has since
        given to another descriptor."""
        control, self.control = self.control, -1
        if control >= 0:
            os.close(control)

    def discard(self):
        """Throw away an unused or finished sandbox and everything it started."""
        with contextlib.suppress(OSError):
            self.close_control()
        if self.proc.returncode is None and self.wait(0.5) is None:
            self.kill()
            if self.wait(1.0) is None:
                with contextlib.suppress(OSError):
                    os.kill(self.proc.pid, signal.SIGKILL)
                self.wait(None)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()
        self._release()

    def _release(self):
        if self.cgroup is not None:
            if self.proc.returncode is not None and not self._inner_pids():
                cgroup.destroy_later(self.cgroup)  # empty: only the rmdir is left
            else:
                self.cgroup.destroy()
            self.cgroup = None
        for action in self.cleanup:
            action()
        self.cleanup = []


class SandboxBroken(Exception):
    """A started sandbox died before it got its code; take another."""


def _nonblocking(fd):
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


def _deliver(sandbox, source: bytes, limits: Limits):
    header = " ".join(
        str(n)
        for n in (
            limits.cpu_seconds,
            limits.memory_bytes,
            limits.processes,
            limits.file_size_bytes,
            limits.open_files,
        )
    )
    message = memoryview(header.encode() + b"\n" + source)
    try:
        while message:
            written = os.write(sandbox.control, message)
            message = message[written:]
    except BrokenPipeError as exc:
        raise SandboxBroken from exc
    finally:
        sandbox.close_control()


def pump(*, out_fd, err_fd, in_fd, stdin, done_fd, deadline, output_bytes):
    """Feed ``stdin`` to ``in_fd`` and read ``out_fd`` and ``err_fd`` until both reach EOF
    and ``done_fd`` is readable, keeping at most ``output_bytes`` together. Returns
    (stdout, stderr, reason) where reason is None, "timeout" (the ``deadline`` passed) or
    "output_limit" (the cap was hit); then the caller kills.

    ``in_fd`` is handed over: pump closes it exactly once, as soon as ``stdin`` is
    written (the program's EOF) and on every way out, an exception included. The caller
    must forget the number before the call: closing it again later would close whatever
    descriptor another thread has been given that number since."""
    stdin_open = True

    def close_stdin():
        nonlocal stdin_open
        if stdin_open:
            stdin_open = False
            os.close(in_fd)

    try:
        poller = select.poll()
        for fd in (out_fd, err_fd):
            _nonblocking(fd)
            poller.register(fd, select.POLLIN)
        poller.register(done_fd, select.POLLIN)
        pending_stdin = memoryview(stdin)
        if pending_stdin:
            _nonblocking(in_fd)
            poller.register(in_fd, select.POLLOUT)
        else:
            close_stdin()
        chunks = {out_fd: [], err_fd: []}
        open_streams = {out_fd, err_fd}
        total, reason, exited = 0, None, False
        while open_streams or not exited:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reason = "timeout"
                break
            for fd, _event in poller.poll(remaining * 1000):
                if fd == done_fd:
                    exited = True
                    poller.unregister(done_fd)
                elif stdin_open and fd == in_fd:
                    try:
                        pending_stdin = pending_stdin[os.write(in_fd, pending_stdin[: 1 << 16]) :]
                    except BlockingIOError:
                        continue
                    except OSError:  # the program closed its stdin
                        pending_stdin = memoryview(b"")
                    if not pending_stdin:
                        poller.unregister(in_fd)
                        close_stdin()
                else:
                    data = os.read(fd, 1 << 16)
                    if not data:
                        poller.unregister(fd)
                        open_streams.discard(fd)
                        continue
                    room = output_bytes - total
                    if len(data) > room:
                        chunks[fd].append(data[:room])
                        total += room
                        reason = "output_limit"
                        break
                    chunks[fd].append(data)
                    total += len(data)
            if reason:
                break
    finally:
        close_stdin()
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd]), reason


def execute(sandbox: StartedSandbox, source: bytes, stdin: bytes, limits: Limits) -> Result:
    """Run ``source`` in ``sandbox`` (which is consumed) and return what happened."""
    proc = sandbox.proc
    if sandbox.cgroup is not None:
        # +2: bubblewrap's own process and the sandbox's pid 1
        sandbox.cgroup.set_limits(
            processes=limits.processes + 2,
            memory_bytes=limits.memory_bytes + limits.workdir_bytes + 64 * 1024 * 1024,
        )
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    pidfd = os.pidfd_open(proc.pid)
    started = time.monotonic()
    try:
        _deliver(sandbox, source, limits)
        in_fd = os.dup(proc.stdin.fileno())  # pump closes it; Popen closes its own
        proc.stdin.close()
        stdout_bytes, stderr_bytes, reason = pump(
            out_fd=out_fd,
            err_fd=err_fd,
            in_fd=in_fd,
            stdin=stdin,
            done_fd=pidfd,
            deadline=started + limits.wall_seconds,
            output_bytes=limits.output_bytes,
        )
        if reason:
            sandbox.kill()
        waited = sandbox.wait(2.0)
        if waited is None:  # bubblewrap itself did not go: take it down too
            with contextlib.suppress(OSError):
                os.kill(proc.pid, signal.SIGKILL)
            waited = sandbox.wait(None)
        _, usage = waited
        duration_ms = int((time.monotonic() - started) * 1000)
        stdout = stdout_bytes.decode("utf-8", errors="replace")
        stderr = stderr_bytes.decode("utf-8", errors="replace")
        memory_hit = sandbox.cgroup is not None and sandbox.cgroup.hit_memory_limit()
        status_name, exit_code = classify(
            reason,
            proc.returncode,
            sandbox.signals_as_exit_codes,
            cpu_seconds=usage.ru_utime + usage.ru_stime,
            limits=limits,
            stderr=stderr,
            memory_hit=memory_hit,
        )
        return Result(
            status=status_name,
            exit_code=exit_code,
            stdout=stdout,
            stderr=stderr,
            duration_ms=duration_ms,
            truncated=reason == "output_limit",
        )
    finally:
        os.close(pidfd)
        sandbox.discard()


def _ran_out_of_memory(stderr: str) -> bool:
    tail = stderr[-2000:]
    return "MemoryError" in tail or "Cannot allocate memory" in tail


def classify(reason, returncode, signals_as_exit_codes, *, cpu_seconds, limits, stderr, memory_hit):
    if reason == "output_limit":
        return "output_limit", None
    if reason == "timeout":
        return "timeout", None
    signum = None
    if returncode < 0:
        signum = -returncode
    elif signals_as_exit_codes and 128 < returncode < 128 + _SIGNAL_LIMIT:
        signum = returncode - 128
    if signum is not None:
        if signum == signal.SIGXCPU or (
            signum == signal.SIGKILL and cpu_seconds >= limits.cpu_seconds
        ):
            return "timeout", None
        if memory_hit or _ran_out_of_memory(stderr):
            return "memory", None
        return "killed", None
    if returncode == 0:
        return "ok", 0
    if memory_hit or _ran_out_of_memory(stderr):
        return "memory", returncode
    return "error", returncode
