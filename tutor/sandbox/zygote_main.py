"""The fork server ("zygote") run inside one long-lived bubblewrap sandbox by the system
interpreter (``python3 -I -S -c``); see docs/sandbox.md for the security argument.

The zygote holds all capabilities inside its own user namespace, and nothing secret:
bubblewrap started it with the learner's tiny environment, and it never reads code,
input or output. For each request on its control socket (four descriptors passed with
SCM_RIGHTS: the run's socket, stdin, stdout, stderr) it forks:

  C1  closes the control socket, unshares fresh mount, pid, network, IPC and UTS
      namespaces, mounts a private size-capped tmpfs on /tmp and /dev/shm, a new devpts,
      remounts /dev read-only, forks C2, sends C2's pidfd to the worker, waits for C2
      and reports its end ("end <wait status> <user s> <system s>");
  C2  pid 1 of the run's pid namespace: mounts its own /proc, receives limits and code
      from the worker (only after the worker has put it into the run's cgroups), drops
      every capability, sets no_new_privs, installs the seccomp filter, forks C3, reaps
      orphans, and exits when C3 does (the kernel then kills whatever is left);
  C3  closes every descriptor but 0-2, applies the rlimits, and returns to the top
      level of this file, which compiles and runs the learner's code as __main__.

It may also be asked ("load <name> <size> [module...]", then the source) to compile a
program the worker names, import the modules it names, and run the program's body once as
a module, keeping its namespace (a preload: public code, the grading harness, which builds
what its test processes need there): a run asks for the preload by name, and its program
then finds that namespace as ``__preloaded__`` and those modules (only those)
still in sys.modules. docs/sandbox.md says why a plain run gains nothing from it.

It must stay runnable by any Python 3.9+ (os.pidfd_open); it imports only modules of
the standard library, and C3 forgets them before the learner's code runs.
"""

import sys

_BASELINE = frozenset(sys.modules)

import ctypes  # noqa: E402
import fcntl  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402

FILENAME = "main.py"
# name -> (namespace, modules kept): public programs the worker asked the zygote to
# compile and run once, kept here (a global, never freed: freeing it in a run would copy its pages
# for nothing)
_PRELOADED = {}

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18

PR_SET_DUMPABLE = 4
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]  # fmt: skip


def _check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source, target, fstype, flags, data=None):
    _check(
        _libc.mount(
            source and source.encode(), target.encode(), fstype and fstype.encode(), flags,
            data and data.encode(),
        ),
        f"mount {target}",
    )  # fmt: skip


def _fds(ancillary):
    fds = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            fds += [int.from_bytes(data[i : i + 4], sys.byteorder) for i in range(0, usable, 4)]
    return fds


def _loopback_up():
    SIOCSIFFLAGS, IFF_UP = 0x8914, 0x1  # struct ifreq: name[16], short flags, padding
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = b"lo".ljust(16, b"\0") + IFF_UP.to_bytes(2, sys.byteorder) + bytes(22)
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, request)


def _same_user_as_me(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            uid = next(line for line in f if line.startswith("Uid:")).split()[1]
        if int(uid) != os.getuid():
            return False
        return os.readlink(f"/proc/{pid}/ns/user") == os.readlink("/proc/self/ns/user")
    except (OSError, StopIteration, ValueError):
        return True  # counting one too many only lowers the learner's limit


class Zygote:
    def __init__(self, control_fd, filter_hex):
        self.control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=control_fd)
        self._filter = ctypes.create_string_buffer(bytes.fromhex(filter_hex))
        self._fprog = _SockFprog(len(self._filter.raw) // 8, ctypes.addressof(self._filter))
        with open("/proc/sys/kernel/cap_last_cap") as f:
            self.cap_last = int(f.read())
        self._cap_header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
        self._cap_data = (_CapData * 2)()
        # RLIMIT_NPROC counts every task of this uid in this user namespace: bubblewrap's
        # pid 1 (when it shares them) and the zygote, plus a run's C1 and C2
        self.nproc_offset = 2 + sum(1 for entry in os.listdir("/proc") if entry.isdigit()
                                    and _same_user_as_me(entry))  # fmt: skip

    # --- the zygote itself ------------------------------------------------------------
    def serve(self):
        """Fork a run per request; returns only in a run's C3, with its job."""
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # C1s are reaped by the kernel
        import gc

        gc.collect()
        gc.freeze()  # runs' collections never walk (and so never copy) the zygote's objects
        self.control.send(b"ready")
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
        while True:
            try:
                message, ancillary, flags, _ = self.control.recvmsg(1024, socket.CMSG_SPACE(64))
            except InterruptedError:
                continue
            fds = _fds(ancillary)
            if not message:  # the worker went away: so do we, and every run with us
                os._exit(0)
            words = message.split()
            if not fds and len(words) >= 3 and words[0] == b"load":
                self.control.send(self.preload(words[1], words[2], words[3:]))
                continue
            if len(fds) != 4 or len(words) != 2 or words[0] != b"run" or flags & socket.MSG_CTRUNC:
                for fd in fds:
                    os.close(fd)
                continue
            pid = os.fork()
            if pid == 0:
                try:
                    return self.c1(fds, int(words[1]))
                except BaseException:
                    os._exit(127)
            for fd in fds:
                os.close(fd)

    def preload(self, name, size, modules):
        """Receives a program's source, compiles it (as ``-OO`` would: no docstrings, no
        asserts), imports ``modules`` and runs the program's body once, in a namespace of
        its own, for the runs that name it; says how that went. Public code only: what it
        makes, every run of this zygote holds."""
        try:
            size, chunks, received = int(size), [], 0
            while received < size:
                chunk = self.control.recv(1 << 16)
                if not chunk:
                    os._exit(0)
                chunks.append(chunk)
                received += len(chunk)
            text = b"".join(chunks).decode("utf-8")
            del chunks
            code = compile(text, name.decode(), "exec", dont_inherit=True, optimize=2)
            del text
            for module in modules:
                try:
                    __import__(module.decode())
                except ImportError:
                    pass  # not kept: a run that needs it imports it itself
            kept = frozenset(m.decode() for m in modules if m.decode() in sys.modules)
            namespace = {"__name__": name.decode(), "__builtins__": __builtins__}
            exec(code, namespace)  # once: what it defines, and what it builds for its runs
            _PRELOADED[name] = (namespace, kept)
        except Exception as exc:
            return f"err {type(exc).__name__}: {exc}".encode()[:1000]
        import gc

        gc.collect()
        gc.freeze()  # as at the start: runs never walk (nor copy) what the preload made
        return b"loaded"

    # --- C1: the run's namespaces, outside its pid namespace ----------------------------
    def c1(self, fds, workdir_bytes):
        self.control.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        run_fd, stdin_fd, stdout_fd, stderr_fd = fds
        run = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=run_fd)
        try:
            for fd, target in ((stdin_fd, 0), (stdout_fd, 1), (stderr_fd, 2)):
                os.dup2(fd, target)
                os.close(fd)
            _check(
                _libc.unshare(
                    CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
                ),
                "unshare",
            )
            _loopback_up()  # as bubblewrap does: the run's own 127.0.0.1, nothing else
            _mount(None, "/", None, MS_REC | MS_PRIVATE)
            inodes = max(1024, workdir_bytes // 1024)
            _mount(
                "tmpfs",
                "/tmp",
                "tmpfs",
                MS_NOSUID | MS_NODEV,
                f"size={workdir_bytes},nr_inodes={inodes},mode=0755",
            )
            _mount(
                "tmpfs",
                "/dev/shm",
                "tmpfs",
                MS_NOSUID | MS_NODEV,
                f"size={min(workdir_bytes, 4 << 20)},nr_inodes=256,mode=1777",
            )
            _mount(
                "devpts",
                "/dev/pts",
                "devpts",
                MS_NOSUID | MS_NOEXEC,
                "newinstance,ptmxmode=0666,mode=620",
            )
            _mount(None, "/dev", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
            status_read, status_write = os.pipe()
            pid = os.fork()
        except BaseException as exc:
            run.send(f"err {type(exc).__name__}: {exc}".encode()[:1000])
            os._exit(127)
        if pid == 0:
            try:
                os.close(status_read)
                return self.c2(run, status_write)
            except BaseException as exc:
                try:
                    os.write(2, f"sandbox: {type(exc).__name__}: {exc}\n".encode())
                finally:
                    os._exit(127)
        try:
            os.close(status_write)
            for fd in (0, 1, 2):
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            run.sendmsg([b"pid"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                    pidfd.to_bytes(4, sys.byteorder))])  # fmt: skip
            os.close(pidfd)
            while True:
                try:
                    _, status, usage = os.wait4(pid, 0)
                    break
                except InterruptedError:
                    continue
            reported = os.read(status_read, 8)
            if len(reported) == 4:  # C3's own wait status, told by C2
                status = int.from_bytes(reported, sys.byteorder)
            run.send(b"end %d %.6f %.6f" % (status, usage.ru_utime, usage.ru_stime))
        finally:
            os._exit(0)

    # --- C2: pid 1 of the run ---------------------------------------------------------
    def c2(self, run, status_write):
        # pid 1 ignores every signal it has no handler for: leave it none to run
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for path in ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"):
            if os.path.exists(path):  # as bubblewrap does: read-only, whatever the caps
                _mount(path, path, None, MS_BIND | MS_REC)
                _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID
                       | MS_NODEV | MS_NOEXEC)  # fmt: skip
        header = run.recv(256).split()
        if len(header) != 8 or header[0] != b"go":
            os._exit(0)  # the worker gave up on this run
        size, *limits = (int(n) for n in header[1:7])
        preload = header[7]  # the name of a preloaded program the run's code uses, or "-"
        chunks, received = [], 0
        while received < size:
            chunk = run.recv(1 << 16)
            if not chunk:
                os._exit(0)
            chunks.append(chunk)
            received += len(chunk)
        run.close()
        # not dumpable: the learner's process (same uid, no capabilities either) cannot
        # open its /proc/1/mem (or environ); C3 becomes dumpable again after the fork
        _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "dumpable")
        self.drop_privileges()
        pid = os.fork()
        if pid == 0:
            os.close(status_write)
            _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
            limits[2] += self.nproc_offset
            return b"".join(chunks), limits, preload
        del chunks
        for fd in (0, 1, 2):
            os.close(fd)
        while True:  # reap orphans until the learner's process ends
            try:
                child, status = os.wait()
            except InterruptedError:
                continue
            except ChildProcessError:
                os._exit(0)
            if child == pid:
                os.write(status_write, status.to_bytes(4, sys.byteorder))
                os._exit(0)

    def drop_privileges(self):
        """No capabilities (bounding, ambient and the rest), no_new_privs, seccomp."""
        for cap in range(self.cap_last + 1):
            _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "drop bounding capability")
        _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient")
        _check(_libc.capset(ctypes.byref(self._cap_header), ctypes.byref(self._cap_data)), "capset")
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(
            _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(self._fprog), 0, 0),
            "seccomp",
        )


def _learner(limits, text, kept=frozenset()):
    """In C3: the run's limits, a clean __main__ and the interpreter as a bare start has it
    (but for the modules ``kept``, which a preload the run names asked for)."""
    cpu, memory, processes, file_size, open_files = limits
    os.closerange(3, 1 << 16)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # the soft limit sends SIGXCPU; the hard one SIGKILL, should the program catch that
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    for limit, value in (
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_NPROC, processes),
        (resource.RLIMIT_FSIZE, file_size),
        (resource.RLIMIT_NOFILE, open_files),
    ):
        resource.setrlimit(limit, (value, value))
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir("/tmp")

    def excepthook(kind, value, tb, filename=FILENAME):
        # show the learner's frames only, with their source lines
        import linecache
        import traceback

        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        while tb is not None and tb.tb_frame.f_code.co_filename != filename:
            tb = tb.tb_next
        traceback.print_exception(kind, value, tb)

    sys.excepthook = excepthook
    sys.argv = [FILENAME]
    main = type(sys)("__main__")
    main.__dict__.update(__builtins__=__builtins__, __spec__=None, __package__=None)
    for name in list(sys.modules):  # what the zygote imported, a bare interpreter has not
        if name not in _BASELINE and name not in kept:
            del sys.modules[name]
    sys.modules["__main__"] = main
    return main.__dict__


def _finish(status):
    """What the interpreter does at exit that a program can see: wait for its threads,
    run atexit, drop __main__'s globals (their __del__ methods run), flush stdout and
    stderr. Then leave with os._exit: tearing down the rest of the heap this process
    shares with the zygote would copy every page of it just to free it."""
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    import atexit
    import gc

    atexit._run_exitfuncs()
    main = sys.modules.get("__main__")
    if main is not None:
        namespace = getattr(main, "__dict__", {})
        for first in (True, False):  # as CPython clears a module: _names first
            for name in list(namespace):
                if name != "__builtins__" and name.startswith("_") == first:
                    namespace[name] = None
        del namespace, main
    gc.collect()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            status = status or 120
    os._exit(status)


def _system_exit_status(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except BaseException:
        pass
    return 1


_source, _limits, _preload = Zygote(int(sys.argv[1]), sys.argv[2]).serve()
_text = _source.decode("utf-8")
del _source
_preloaded, _kept = _PRELOADED.get(_preload, (None, frozenset()))
_namespace = _learner(_limits, _text, _kept)
if _preloaded is not None:  # only a run that names it gets it in its namespace
    _namespace["__preloaded__"] = _preloaded
del _preloaded, _kept
del Zygote, _learner, _limits, _preload
try:
    exec(compile(_text, FILENAME, "exec", dont_inherit=True), _namespace)
except SystemExit as _exc:
    _status = _system_exit_status(_exc)
except BaseException:
    sys.excepthook(*sys.exc_info())
    _status = 1
else:
    _status = 0
del _namespace, _text
_finish(_status)
