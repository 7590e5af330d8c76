"""Per-run cgroups (v1 pids and memory controllers), where this process may create them.

The pids controller is what contains a fork bomb when the worker runs as root; the
memory controller caps the run's memory across all of its processes. A sandbox is
born inside its cgroup: the spawning thread joins it for the moment of the fork.
"""

import contextlib
import errno
import os
import queue
import signal
import threading
import time

ROOT = "/sys/fs/cgroup"
CONTROLLERS = ("pids", "memory")
PARENT = "parsnip-sandbox"

_counter = iter(range(1, 1 << 62))
_counter_lock = threading.Lock()


def _write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def _parent_dir(controller):
    return os.path.join(ROOT, controller, PARENT)


def available() -> bool:
    """Whether per-run pids cgroups can be made here (cgroup v1, enough privilege)."""
    try:
        os.makedirs(_parent_dir("pids"), exist_ok=True)
        probe = os.path.join(_parent_dir("pids"), f"probe-{os.getpid()}")
        os.mkdir(probe)
        os.rmdir(probe)
        return True
    except OSError:
        return False


def _thread_cgroup(controller):
    with open("/proc/thread-self/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            if controller in names.split(","):
                return os.path.join(ROOT, controller, path.lstrip("/"))
    raise OSError(errno.ENOENT, f"no {controller} cgroup")


class RunCgroup:
    """The cgroups of one sandbox; ``dirs`` maps controller to directory."""

    def __init__(self):
        with _counter_lock:
            n = next(_counter)
        name = f"{os.getpid()}-{n}"
        self.dirs = {}
        for controller in CONTROLLERS:
            parent = _parent_dir(controller)
            try:
                os.makedirs(parent, exist_ok=True)
                path = os.path.join(parent, name)
                os.mkdir(path)
            except OSError:
                if controller == "pids":
                    raise
                continue
            self.dirs[controller] = path

    @contextlib.contextmanager
    def entered_by_this_thread(self):
        """Processes this thread forks inside the block are born in the run's cgroups."""
        tid = threading.get_native_id()
        previous = {c: _thread_cgroup(c) for c in self.dirs}
        try:
            for path in self.dirs.values():
                _write(os.path.join(path, "tasks"), tid)
            yield
        finally:
            for path in previous.values():
                _write(os.path.join(path, "tasks"), tid)

    def set_limits(self, *, processes, memory_bytes):
        _write(os.path.join(self.dirs["pids"], "pids.max"), processes)
        if "memory" in self.dirs:
            with contextlib.suppress(OSError):
                _write(os.path.join(self.dirs["memory"], "memory.limit_in_bytes"), memory_bytes)
                _write(
                    os.path.join(self.dirs["memory"], "memory.memsw.limit_in_bytes"), memory_bytes
                )

    def oom_kills(self) -> int:
        """How many processes the memory cgroup's OOM killer has killed so far."""
        path = self.dirs.get("memory")
        if not path:
            return 0
        try:
            with open(os.path.join(path, "memory.oom_control")) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def hit_memory_limit(self) -> bool:
        path = self.dirs.get("memory")
        if not path:
            return False
        try:
            with open(os.path.join(path, "memory.oom_control")) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and int(value) > 0:
                        return True
        except OSError:
            pass
        return False

    def pids(self):
        try:
            with open(os.path.join(self.dirs["pids"], "cgroup.procs")) as f:
                return [int(line) for line in f if line.strip()]
        except OSError:
            return []

    def destroy(self, timeout=2.0):
        """Kill whatever is left in the run's cgroups and remove them."""
        deadline = time.monotonic() + timeout
        for path in self.dirs.values():
            while True:
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        break
                procs = os.path.join(path, "cgroup.procs")
                with contextlib.suppress(OSError), open(procs) as f:
                    for line in f:
                        with contextlib.suppress(OSError):
                            os.kill(int(line), signal.SIGKILL)
                time.sleep(0.002)


_doomed = queue.SimpleQueue()
_remover = None


def destroy_later(run_cgroup):
    """Remove an emptied cgroup off the caller's path (rmdir can lag the last exit)."""
    global _remover
    if _remover is None or not _remover.is_alive():
        _remover = threading.Thread(
            target=_remove_forever, name="sandbox-cgroup-remover", daemon=True
        )
        _remover.start()
    _doomed.put(run_cgroup)


def _remove_forever():
    while True:
        _doomed.get().destroy()


def sweep_orphans():
    """Kill and remove the cgroups of sandboxes whose worker process has died."""
    for controller in CONTROLLERS:
        parent = _parent_dir(controller)
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            owner, _, _ = name.partition("-")
            path = os.path.join(parent, name)
            if not os.path.isdir(path) or not owner.isdigit() or os.path.exists(f"/proc/{owner}"):
                continue
            orphan = RunCgroup.__new__(RunCgroup)
            orphan.dirs = {controller: path}
            orphan.destroy(timeout=1.0)
