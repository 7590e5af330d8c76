"""The "zygote" strategy of the bubblewrap backend: one long-lived bubblewrap sandbox per
concurrent run slot of a worker process, running a fork server (zygote_main.py) that
starts every run in fresh namespaces of its own. See docs/sandbox.md.

Per run, the worker:
  1. makes the run's pipes (stdin, stdout, stderr) and a socket, and passes them to an
     idle zygote with SCM_RIGHTS;
  2. receives a pidfd of the run's pid 1 (C2); as root, moves it into the run's own
     pids and memory cgroups; only then sends limits and code;
  3. reads output under the cap, feeds stdin, enforces the wall clock (SIGKILL through
     the pidfd kills the run's pid namespace, hence every process of the run);
  4. gets the learner's wait status and CPU time from C1, and gives the zygote back.
A zygote that dies, stops answering, or does anything unexpected is thrown away and a
new one is started; the run is retried when its code never ran. A run may name a preload
(public code the zygote compiles and runs once, as a module, at the first run that names
it, and keeps): its program then finds that module's namespace as ``__preloaded__`` (the
grading harness uses it).
"""

import array
import contextlib
import os
import queue
import select
import signal
import socket
import subprocess
import threading
import time
import weakref

from . import cgroup, seccomp
from .limits import Limits, Result, SandboxUnavailable
from .process import SandboxBroken, classify, pump

READY_TIMEOUT = 10.0  # for a new zygote to come up
ANSWER_TIMEOUT = 10.0  # for a running zygote to answer a run with the run's pidfd
END_TIMEOUT = 3.0  # after the run's pid 1 is killed, for C1's report
RECYCLE_AFTER = 5000  # runs; a fresh zygote now and then costs ~30 ms
SHM_BYTES = 4 << 20  # zygote_main.py caps /dev/shm at min(workdir, 4 MiB)
# in the zygote's cgroups besides a run: bubblewrap's two processes, the zygote, the
# run's C1 and C2, and the previous run's C1 on its way out; their memory, with room
ZYGOTE_TASKS = 6
ZYGOTE_MEMORY = 96 << 20


class _Spawner:
    """Starts zygotes from one long-lived thread: bubblewrap's --die-with-parent (and
    setpriv's --pdeathsig) follow the thread that forked them, not the process."""

    def __init__(self):
        self._requests = queue.SimpleQueue()
        self._thread = None
        self._lock = threading.Lock()

    def call(self, fn):
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._serve, name="sandbox-zygote-spawner", daemon=True
                )
                self._thread.start()
        done = threading.Event()
        box = {}
        self._requests.put((fn, box, done))
        done.wait()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _serve(self):
        while True:
            fn, box, done = self._requests.get()
            try:
                box["value"] = fn()
            except BaseException as exc:  # handed to the caller
                box["error"] = exc
            done.set()


_spawner = _Spawner()
_everyone = weakref.WeakSet()  # every zygote of this process, idle or busy


def _forget_after_fork():
    """In a forked child: close our copies of the parent's zygote sockets (without
    locks, which another thread may have held at the fork) and spawn from a new thread."""
    global _spawner, _everyone
    _spawner = _Spawner()
    for zygote in list(_everyone):
        zygote.forget()
    _everyone = weakref.WeakSet()


os.register_at_fork(after_in_child=_forget_after_fork)


class ZygoteProcess:
    """One bubblewrap sandbox running the fork server; serves one run at a time."""

    def __init__(self, backend):
        self.backend = backend
        self.runs = 0
        self.proc = None
        self.control = None
        self.cgroup = None
        self._oom_kills = 0
        self._cgroup_limits = None
        self.preloaded = set()  # names of the programs this zygote has compiled
        _everyone.add(self)
        if backend.use_cgroups:
            # the zygote is born in its cgroups, so every run it forks is too: moving
            # each run's pid 1 in (cgroup v1 migration) would cost more than the rest
            self.cgroup = cgroup.RunCgroup()
        try:
            _spawner.call(self._start)
        except BaseException:
            self._drop_cgroup(now=True)
            raise

    def _start(self):
        seccomp_fd = seccomp.filter_fd(seccomp.ZYGOTE_FILTER)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        entered = self.cgroup.entered_by_this_thread() if self.cgroup else contextlib.nullcontext()
        try:
            with entered:
                self.proc = self._popen(seccomp_fd, theirs)
        except BaseException:
            ours.close()
            raise
        finally:
            os.close(seccomp_fd)
            theirs.close()
        self._wait_ready(ours)

    def _popen(self, seccomp_fd, theirs):
        return subprocess.Popen(
            self.backend.argv(
                workdir_bytes=1 << 20,
                seccomp_fd=seccomp_fd,
                control_fd=theirs.fileno(),
                zygote=True,
            ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(seccomp_fd, theirs.fileno()),
            env=self.backend.environment,  # its pid 1 keeps the environment it got
            cwd="/",
            start_new_session=True,
            user=self.backend.popen_user,
            group=self.backend.popen_user,
            extra_groups=[] if self.backend.popen_user is not None else None,
        )

    def _wait_ready(self, ours):
        self.control = ours
        ready = select.select([ours], [], [], READY_TIMEOUT)[0]
        answer = b""
        if ready:
            with contextlib.suppress(OSError):
                answer = ours.recv(16)
        if answer != b"ready":
            self.kill()
            error = ""
            with contextlib.suppress(OSError, ValueError):
                error = self.proc.stderr.read().decode(errors="replace").strip()
            self.proc.stderr.close()
            raise SandboxUnavailable(
                "bubblewrap could not start the sandbox's fork server: "
                f"{error or 'no ready signal'}. {self.backend.how_to_fix}"
            )
        self.proc.stderr.close()  # it writes nothing once ready

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _run_cgroup(self, limits):
        """The zygote's cgroups, which its runs share with it, one run at a time: the
        limits are the run's plus what the zygote itself holds."""
        wanted = (
            limits.processes + ZYGOTE_TASKS,
            limits.memory_bytes + limits.workdir_bytes + SHM_BYTES + ZYGOTE_MEMORY,
        )
        if wanted != self._cgroup_limits:
            self.cgroup.set_limits(processes=wanted[0], memory_bytes=wanted[1])
            self._cgroup_limits = wanted
        self._oom_kills = self.cgroup.oom_kills()
        return self.cgroup

    def _drop_cgroup(self, now=False):
        if self.cgroup is not None:
            if now:  # at exit, a background thread may never get to it
                self.cgroup.destroy()
            else:
                cgroup.destroy_later(self.cgroup)
            self.cgroup = None

    def _close_control(self):
        """The control socket is closed here only, through its socket object, which
        forgets its number as it closes it: a second close is a no-op, never a close of
        whatever descriptor has been given that number since."""
        control, self.control = self.control, None
        if control is not None:
            with contextlib.suppress(OSError):
                control.close()

    def kill(self):
        """Kill the zygote's sandbox (bubblewrap's pid 1 takes every run with it)."""
        self._close_control()
        if self.proc is not None and self.proc.returncode is None:
            # inside out: the zygote (its pid namespace dies with it) first, so that
            # bubblewrap's outer process reaps it and exits, and nothing is orphaned
            try:
                with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                    inner = [int(pid) for pid in f.read().split()]
            except (OSError, ValueError):
                inner = []
            for pid in inner:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            try:
                self.proc.wait(2.0 if inner else 0.01)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._drop_cgroup()

    def close(self):
        """Ask it to go (EOF on its control socket), then make sure it did."""
        self._close_control()
        if self.proc is not None and self.proc.returncode is None:
            try:
                self.proc.wait(1.0)
            except subprocess.TimeoutExpired:
                self.kill()
        self._drop_cgroup(now=True)

    def forget(self):
        """After fork: the child closes its copies and leaves the zygote to its parent."""
        self._close_control()
        self.proc = None
        self.cgroup = None  # the parent's to remove

    def preload(self, name: str, text: str, modules=()):
        """Has the zygote compile ``text`` and run it once as a module, keeping its
        namespace as ``name`` (no whitespace), and import ``modules`` first, which the runs
        naming it keep in sys.modules: public code
        and harmless modules only, since every run it forks holds them (docs/sandbox.md)."""
        if name in self.preloaded:
            return
        body = text.encode("utf-8")
        try:
            self.control.send(b" ".join([b"load", name.encode(), b"%d" % len(body)]
                                        + [module.encode() for module in modules]))  # fmt: skip
            for offset in range(0, len(body), 1 << 15):
                self.control.send(body[offset : offset + (1 << 15)])
            ready = select.select([self.control], [], [], ANSWER_TIMEOUT)[0]
            answer = self.control.recv(1024) if ready else b""
        except (OSError, AttributeError) as exc:
            self.kill()
            raise SandboxBroken from exc
        if answer.startswith(b"err "):
            raise SandboxUnavailable(
                f"The sandbox could not load {name}: {answer[4:].decode(errors='replace')}"
            )
        if answer != b"loaded":
            self.kill()
            raise SandboxBroken(f"unexpected answer from the fork server: {answer[:40]!r}")
        self.preloaded.add(name)

    # --- one run ------------------------------------------------------------------------
    def execute(self, source: bytes, stdin: bytes, limits: Limits, preload=None) -> Result:
        """Runs ``source``; ``preload`` (name, text[, modules]) first has the zygote
        compile that program, which the run's code then finds as ``__preloaded__``."""
        if preload is not None:
            self.preload(*preload)
        self.runs += 1
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pidfd = None
        run_cgroup = None
        end = None
        try:
            try:
                fds = array.array("i", [theirs.fileno(), in_r, out_w, err_w])
                self.control.sendmsg(
                    [b"run %d" % limits.workdir_bytes],
                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)],
                )
            except (OSError, AttributeError) as exc:
                self.kill()
                raise SandboxBroken from exc
            finally:
                theirs.close()
                for fd in (in_r, out_w, err_w):
                    os.close(fd)
            pidfd = self._receive_pidfd(ours)
            started = time.monotonic()
            if self.cgroup is not None:
                run_cgroup = self._run_cgroup(limits)
            self._deliver(ours, source, limits, preload[0] if preload else "-")
            in_fd, in_w = in_w, -1  # pump owns it from here on, and closes it whatever happens
            out, err, reason = pump(
                out_fd=out_r,
                err_fd=err_r,
                in_fd=in_fd,
                stdin=stdin,
                done_fd=ours.fileno(),
                deadline=started + limits.wall_seconds,
                output_bytes=limits.output_bytes,
            )
            if reason:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            end = self._receive_end(ours)
            if end is None:  # C1 never reported: do not trust this zygote again
                self.kill()
                status, cpu_seconds = signal.SIGKILL, 0.0  # a raw wait status: killed
            else:
                status, cpu_seconds = end
            duration_ms = int((time.monotonic() - started) * 1000)
            memory_hit = run_cgroup is not None and run_cgroup.oom_kills() > self._oom_kills
            stdout = out.decode("utf-8", errors="replace")
            stderr = err.decode("utf-8", errors="replace")
            status_name, exit_code = classify(
                reason,
                os.waitstatus_to_exitcode(status),
                False,
                cpu_seconds=cpu_seconds,
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
        except BaseException:
            if pidfd is not None:  # whatever went wrong here, the run does not go on
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            raise
        finally:
            ours.close()
            for fd in (in_w, out_r, err_r, pidfd):
                if fd is not None and fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)

    def _receive_pidfd(self, sock):
        if not select.select([sock], [], [], ANSWER_TIMEOUT)[0]:
            self.kill()
            raise SandboxBroken("the fork server did not answer")
        try:
            message, ancillary, flags, _ = sock.recvmsg(1024, socket.CMSG_SPACE(16))
        except OSError as exc:
            self.kill()
            raise SandboxBroken from exc
        fds = []
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                received = array.array("i")
                received.frombytes(data[: len(data) - len(data) % received.itemsize])
                fds += list(received)
        if message.startswith(b"err ") and not fds:
            raise SandboxUnavailable(
                "The sandbox could not set up a run: "
                + message[4:].decode(errors="replace")
                + ". "
                + self.backend.how_to_fix
            )
        if message != b"pid" or len(fds) != 1 or flags & socket.MSG_CTRUNC:
            for fd in fds:
                os.close(fd)
            self.kill()
            raise SandboxBroken(f"unexpected answer from the fork server: {message[:40]!r}")
        return fds[0]

    def _deliver(self, sock, source, limits, preload_name):
        header = b"go %d %d %d %d %d %d %s" % (
            len(source),
            limits.cpu_seconds,
            limits.memory_bytes,
            limits.processes,
            limits.file_size_bytes,
            limits.open_files,
            preload_name.encode(),
        )
        try:
            sock.send(header)
            view = memoryview(source)
            for offset in range(0, len(view), 1 << 15):
                sock.send(view[offset : offset + (1 << 15)])
        except OSError as exc:  # its pid 1 died before it got the code
            raise SandboxBroken from exc

    def _receive_end(self, sock):
        """C1's report: (wait status, CPU seconds), or None if it never came."""
        deadline = time.monotonic() + END_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([sock], [], [], remaining)[0]:
                return None
            try:
                message = sock.recv(256)
            except OSError:
                return None
            words = message.split()
            if len(words) == 4 and words[0] == b"end":
                try:
                    return int(words[1]), float(words[2]) + float(words[3])
                except ValueError:
                    return None
            return None


class ZygotePool:
    """The zygotes of this process: one per run going on at the same time."""

    def __init__(self, backend, keep=4):
        self.backend = backend
        self.keep = keep
        self._idle = []
        self._lock = threading.Lock()
        self._closed = False

    def take(self) -> ZygoteProcess:
        with self._lock:
            while self._idle:
                zygote = self._idle.pop()
                if zygote.alive():
                    return zygote
                zygote.kill()
        return ZygoteProcess(self.backend)

    def give_back(self, zygote):
        if not zygote.alive() or zygote.runs >= RECYCLE_AFTER:
            zygote.close()
            return
        with self._lock:
            if not self._closed and len(self._idle) < self.keep:
                self._idle.append(zygote)
                return
        zygote.close()

    def close(self):
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for zygote in idle:
            zygote.close()

    def forget(self):
        """After fork (no lock: it may have been held by another thread at the fork)."""
        self._lock = threading.Lock()
        self._idle = []
        self._closed = True

    def run(self, source, stdin, limits, preload=None) -> Result:
        zygote = self.take()
        try:
            return zygote.execute(source, stdin, limits, preload)
        finally:
            self.give_back(zygote)
