"""The bubblewrap backend: each run in its own single-use set of namespaces.

Learner code runs as an unprivileged uid inside new user, pid, mount, network, IPC,
UTS and cgroup namespaces, sees a read-only root holding only the interpreter, its
standard library and the system libraries, a private size-capped /tmp, and runs
under a seccomp filter. When the worker is root, bubblewrap itself is started as
``nobody`` so that RLIMIT_NPROC applies, and each sandbox is born in its own pids
(and memory) cgroup.
"""

import contextlib
import os
import shutil
import subprocess
import threading

from . import cgroup, seccomp
from .limits import SandboxUnavailable
from .process import StartedSandbox

BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"
NOBODY = 65534
SANDBOX_UID = 1000
READY_TIMEOUT = 10.0

CHILD_SOURCE = open(os.path.join(os.path.dirname(__file__), "child.py"), encoding="utf-8").read()
ZYGOTE_SOURCE = open(
    os.path.join(os.path.dirname(__file__), "zygote_main.py"), encoding="utf-8"
).read()

ENVIRONMENT = {
    "PATH": "/usr/bin",
    "LANG": "C.UTF-8",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "USER": "learner",
    "PYTHONIOENCODING": "utf-8",
    # glibc reserves 64 MiB of address space per thread arena: under the memory limit
    # (RLIMIT_AS) that would allow only a handful of threads.
    "MALLOC_ARENA_MAX": "2",
}

HOW_TO_FIX = (
    "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow user "
    "namespaces (sysctl user.max_user_namespaces=10000; on Debian kernels also "
    "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ "
    "kernel.apparmor_restrict_unprivileged_userns=0). Inside a container, run it with "
    "seccomp/AppArmor profiles that allow unshare(CLONE_NEWUSER)."
)

_cgroups_usable = None
_cgroups_lock = threading.Lock()


def cgroups_usable() -> bool:
    global _cgroups_usable
    with _cgroups_lock:
        if _cgroups_usable is None:
            _cgroups_usable = cgroup.available()
            if _cgroups_usable:
                cgroup.sweep_orphans()
        return _cgroups_usable


def _interpreter_binds(interpreter):
    real = os.path.realpath(interpreter)
    if not os.access(real, os.X_OK):
        raise SandboxUnavailable(
            f"The sandbox interpreter {interpreter} is missing or not executable."
        )
    args = ["--ro-bind", real, real]
    prefix = os.path.dirname(os.path.dirname(real))
    stdlib = os.path.join(prefix, "lib", os.path.basename(real))  # /usr/lib/python3.11
    libraries = [f"/usr/lib/{os.uname().machine}-linux-gnu", "/usr/lib64", "/usr/lib/locale"]
    if prefix == "/usr" and os.path.isdir(stdlib):
        args += ["--ro-bind", stdlib, stdlib]
    elif prefix == "/usr":  # an unusual layout: fall back to all of /usr/lib
        args += ["--ro-bind", "/usr/lib", "/usr/lib"]
        libraries = ["/usr/lib64"]
    else:  # e.g. /opt/python3.12/bin/python3.12: its whole prefix
        args += ["--ro-bind", prefix, prefix]
    for path in libraries:
        if os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ("/etc/ld.so.cache", "/etc/localtime"):
        args += ["--ro-bind-try", path, path]
    args += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/bin", "/bin"]
    if os.path.isdir("/usr/lib64"):
        args += ["--symlink", "usr/lib64", "/lib64"]
    if os.path.abspath(interpreter) != real:
        args += ["--symlink", real, os.path.abspath(interpreter)]
    return args


class BwrapBackend:
    name = "bwrap"
    how_to_fix = HOW_TO_FIX
    environment = ENVIRONMENT

    def __init__(self, interpreter="/usr/bin/python3"):
        if not os.path.exists(BWRAP) and not shutil.which("bwrap"):
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed. " + HOW_TO_FIX)
        self.bwrap = BWRAP if os.path.exists(BWRAP) else shutil.which("bwrap")
        self.interpreter = os.path.abspath(interpreter)
        self.binds = _interpreter_binds(interpreter)
        self.use_cgroups = os.geteuid() == 0 and cgroups_usable()
        wrapper = []
        if os.path.exists(SETPRIV):
            wrapper = [SETPRIV, "--pdeathsig", "KILL"]
            if os.geteuid() == 0:
                wrapper += [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
            wrapper.append("--")
        self.wrapper = wrapper
        # Without setpriv, a root worker drops to nobody through Popen itself.
        self.popen_user = NOBODY if os.geteuid() == 0 and not wrapper else None

    def argv(self, *, workdir_bytes, seccomp_fd, control_fd, zygote=False):
        """bubblewrap's command line: a single-use sandbox running child.py, or (``zygote``)
        the long-lived fork server, which keeps its capabilities inside its own user
        namespace so that each run can get namespaces of its own (zygote_main.py)."""
        args = [
            self.bwrap,
            "--unshare-user",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup",
            "--disable-userns",
            "--cap-add" if zygote else "--cap-drop", "ALL",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--uid", str(SANDBOX_UID),
            "--gid", str(SANDBOX_UID),
            "--hostname", "sandbox",
        ]  # fmt: skip
        for key, value in ENVIRONMENT.items():
            args += ["--setenv", key, value]
        args += self.binds
        args += [
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(workdir_bytes), "--tmpfs", "/tmp",
            "--remount-ro", "/",
            "--chdir", "/tmp",
            "--seccomp", str(seccomp_fd),
        ]  # fmt: skip
        if zygote:
            # no bubblewrap reaper as pid 1: the zygote reaps (SIGCHLD ignored), and
            # bubblewrap's outer process then reaps the zygote itself, leaving no orphan
            args.append("--as-pid-1")
        args.append("--")
        if zygote:
            args += [self.interpreter, "-I", "-S", "-c", ZYGOTE_SOURCE, str(control_fd),
                     seccomp.FILTER.hex()]  # fmt: skip
        else:
            args += [self.interpreter, "-I", "-S", "-c", CHILD_SOURCE, str(control_fd)]
        return self.wrapper + args

    def start(self, *, workdir_bytes) -> StartedSandbox:
        """Start a sandbox and wait until its interpreter is ready for code."""
        seccomp_fd = seccomp.filter_fd()
        control_read, control_write = os.pipe()
        run_cgroup = cgroup.RunCgroup() if self.use_cgroups else None
        try:
            entered = (
                run_cgroup.entered_by_this_thread() if run_cgroup else contextlib.nullcontext()
            )
            with entered:
                proc = subprocess.Popen(
                    self.argv(
                        workdir_bytes=workdir_bytes, seccomp_fd=seccomp_fd, control_fd=control_read
                    ),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    pass_fds=(seccomp_fd, control_read),
                    env=dict(ENVIRONMENT),  # bubblewrap's pid 1 keeps the environment it got
                    cwd="/",
                    start_new_session=True,
                    user=self.popen_user,
                    group=self.popen_user,
                    extra_groups=[] if self.popen_user is not None else None,
                )
        except BaseException:
            os.close(control_write)
            if run_cgroup:
                run_cgroup.destroy()
            raise
        finally:
            os.close(seccomp_fd)
            os.close(control_read)
        sandbox = StartedSandbox(
            proc=proc, control=control_write, signals_as_exit_codes=True, cgroup=run_cgroup
        )
        _wait_ready(sandbox)
        return sandbox


def _wait_ready(sandbox):
    import select

    fd = sandbox.proc.stdout.fileno()
    ready, _, _ = select.select([fd], [], [], READY_TIMEOUT)
    first = os.read(fd, 1) if ready else b""
    if first == b"\0":
        return
    sandbox.kill()
    try:
        error = sandbox.proc.stderr.read().decode(errors="replace").strip()
    except OSError:
        error = ""
    sandbox.discard()
    raise SandboxUnavailable(
        f"bubblewrap could not start a sandbox: {error or 'no ready signal'}. " + HOW_TO_FIX
    )
