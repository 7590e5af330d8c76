"""Hostile programs: each attack fails, and the host is unharmed afterwards."""

import concurrent.futures
import os
import pathlib
import signal
import socket
import sqlite3
import subprocess
import textwrap
import time
import uuid

import pytest

from tutor.sandbox import Limits, run

PROJECT = pathlib.Path(__file__).resolve().parents[2]
SMALL = Limits(
    cpu_seconds=2, wall_seconds=3, processes=16, memory_bytes=128 * 2**20, workdir_bytes=2 * 2**20
)


def attack(code, limits=None, **kwargs):
    return run(textwrap.dedent(code), limits=limits, **kwargs)


def host_processes_with(marker):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def assert_host_can_still_work():
    assert subprocess.run(["/bin/true"]).returncode == 0
    assert run("print('still fine')").stdout == "still fine\n"


def test_environment_and_proc_environ_hold_no_secrets(monkeypatch):
    secret = f"parsnip-secret-{uuid.uuid4()}"
    monkeypatch.setenv("SECRET_KEY", secret)
    monkeypatch.setenv("DATABASE_URL", f"postgres://u:{secret}@127.0.0.1/db")
    result = attack(
        """
        import os
        print(dict(os.environ))
        for pid in os.listdir("/proc"):
            if pid.isdigit() or pid == "self":
                for name in ("environ", "cmdline"):
                    try:
                        print(pid, name, open(f"/proc/{pid}/{name}", "rb").read())
                    except OSError as e:
                        print(pid, name, e)
        """
    )
    assert result.status == "ok", result
    # pid 1's environment (bubblewrap's, or the zygote's that the run's pid 1 inherited)
    # is either readable and clean, or not readable at all; the program's own is clean
    assert (
        "1 environ b'PATH=/usr/bin" in result.stdout
        or "1 environ [Errno 13] Permission denied" in result.stdout
    )
    assert "self environ b'PATH=/usr/bin" in result.stdout
    assert secret not in result.stdout + result.stderr
    assert "SECRET_KEY" not in result.stdout + result.stderr
    assert "DATABASE_URL" not in result.stdout


def test_project_files_database_and_host_paths_are_not_there(tmp_path):
    database = tmp_path / "db.sqlite3"
    sqlite3.connect(database).execute("create table t (secret text)")
    paths = [PROJECT / "manage.py", PROJECT / ".git", PROJECT, database, tmp_path, "/work", "/root", "/home",
             "/etc/passwd", "/etc/shadow", "/var/run/postgresql", "/run", "/dev/shm/x", "/usr/bin/bash",
             "/usr/local", "/usr/lib/python3/dist-packages"]  # fmt: skip
    result = attack(
        f"""
        import os
        for path in {[str(p) for p in paths]!r}:
            print(path, os.path.exists(path))
        print(sorted(os.listdir("/")), sorted(os.listdir("/etc")))
        """
    )
    assert result.status == "ok", result
    for path in paths:
        assert f"{path} False" in result.stdout
    assert (
        "['bin', 'dev', 'etc', 'lib', 'lib64', 'proc', 'tmp', 'usr'] ['ld.so.cache', 'localtime']"
        in result.stdout
    )
    assert database.exists()


@pytest.mark.parametrize("port", [5432, 6379])
def test_no_network_not_even_the_hosts_loopback_services(port):
    result = attack(
        f"""
        import socket
        s = socket.socket()
        s.settimeout(1)
        try:
            s.connect(("127.0.0.1", {port}))
            print("connected")
        except OSError as e:
            print("refused", e.errno)
        try:
            socket.getaddrinfo("example.com", 80)
            print("resolved")
        except OSError:
            print("no dns")
        """
    )
    assert result.status == "ok", result
    assert "connected" not in result.stdout
    assert "resolved" not in result.stdout
    try:  # the service itself is untouched, where it runs
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        pass


def test_fork_bomb_is_contained_and_leaves_nothing_behind():
    marker = f"forkbomb-{uuid.uuid4().hex}"
    bomb = (
        f"import os\\n# {marker}\\nwhile True:\\n    try: os.fork()\\n    except OSError: pass\\n"
    )
    result = attack(
        f"""
        import os, sys
        os.execv(sys.executable, [sys.executable, "-c", "{bomb}"])
        """,
        limits=SMALL,
    )
    assert result.status in ("timeout", "killed"), result
    assert result.duration_ms < 5000
    assert host_processes_with(marker) == []
    assert_host_can_still_work()


def test_thread_bomb_hits_the_process_limit():
    result = attack(
        """
        import threading, time
        n = 0
        try:
            while True:
                threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
                n += 1
        except (RuntimeError, MemoryError) as e:
            print("stopped after", n, type(e).__name__)
        """,
        limits=SMALL,
    )
    assert result.status == "ok", result
    started = int(result.stdout.split()[2])
    assert started < SMALL.processes
    assert_host_can_still_work()


def test_memory_bomb():
    result = attack(
        "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 2**20))\n", limits=SMALL
    )
    assert result.status == "memory", result
    assert_host_can_still_work()


def test_cpu_loop_is_stopped_by_the_cpu_limit():
    result = attack("while True: pass", limits=Limits(cpu_seconds=1, wall_seconds=30))
    assert result.status == "timeout", result
    assert result.exit_code is None
    # its one CPU second ran out long before the wall clock's 30, however busy the machine
    assert result.duration_ms < 15_000


def test_sleep_is_stopped_by_the_wall_clock():
    result = attack(
        "import time\nprint('going to sleep', flush=True)\ntime.sleep(60)",
        limits=Limits(wall_seconds=1),
    )
    assert result.status == "timeout", result
    assert result.stdout == "going to sleep\n"
    assert 900 <= result.duration_ms < 30_000  # its 1 s, not the 60 s it asked for


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_flood_is_capped_and_stopped(stream):
    limits = Limits(output_bytes=4096, wall_seconds=5)
    result = attack(
        f"import sys\nwhile True:\n    sys.{stream}.write('x' * 1000 + '\\n')\n", limits=limits
    )
    assert result.status == "output_limit", result
    assert result.truncated is True
    flooded = getattr(result, stream)
    assert len(result.stdout) + len(result.stderr) == 4096
    assert set(flooded) <= {"x", "\n"}
    assert result.duration_ms < 2000


def test_filling_the_disk_and_inodes_stays_in_the_capped_workdir():
    before = os.statvfs("/tmp")
    result = attack(
        """
        import os
        try:
            with open("big", "wb") as f:
                while True:
                    f.write(b"x" * 65536)
        except OSError as e:
            print("disk", e.errno, flush=True)
        os.remove("big")
        n = 0
        try:
            while n < 20_000:
                open(f"f{n}", "w").close()
                n += 1
            print("inodes", n, flush=True)
        except OSError as e:
            print("inodes stopped", e.errno, flush=True)
        try:
            open("/usr/evil", "w")
        except OSError as e:
            print("read-only", e.errno)
        try:
            open("/evil", "w")
        except OSError as e:
            print("root read-only", e.errno)
        """,
        limits=Limits(
            cpu_seconds=3, wall_seconds=6, workdir_bytes=2 * 2**20, file_size_bytes=8 * 2**20
        ),
    )
    assert result.status in ("ok", "timeout"), result
    assert "disk 28" in result.stdout  # ENOSPC at 2 MiB
    assert "read-only 30" in result.stdout or "read-only 2" in result.stdout
    after = os.statvfs("/tmp")
    assert after.f_bfree * after.f_frsize > before.f_bfree * before.f_frsize - 50 * 2**20
    assert run("import os; print(os.listdir('/tmp'))").stdout == "[]\n"


def test_file_size_limit():
    result = attack("open('f', 'wb').write(b'x' * 2 * 2**20)", limits=Limits(file_size_bytes=2**20))
    assert result.status == "error"
    assert "File too large" in result.stderr


def test_daemons_and_double_forks_do_not_outlive_the_run():
    marker = f"daemon-{uuid.uuid4().hex}"
    result = attack(
        f"""
        import os, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time\\n# {marker}\\ntime.sleep(60)"])
            os._exit(0)
        print("parent leaves")
        """
    )
    assert result.status == "ok", result
    assert result.stdout == "parent leaves\n"
    assert host_processes_with(marker) == []


def test_cannot_signal_host_processes():
    victim = subprocess.Popen(["/bin/sleep", "30"])
    try:
        result = attack(
            f"""
            import os, signal
            for target in ({victim.pid}, {os.getpid()}, 1, -1):
                try:
                    os.kill(target, signal.SIGKILL if target != 1 else signal.SIGTERM)
                    print(target, "sent")
                except OSError as e:
                    print(target, e.errno)
            """
        )
        assert f"{victim.pid} 3" in result.stdout  # ESRCH: the host's pids do not exist in here
        time.sleep(0.1)
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


def test_ptrace_is_refused():
    result = attack(
        """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        PTRACE_ATTACH = 16
        print(libc.ptrace(PTRACE_ATTACH, 1, 0, 0), os.strerror(ctypes.get_errno()))
        print(libc.ptrace(PTRACE_ATTACH, os.getppid(), 0, 0), os.strerror(ctypes.get_errno()))
        """
    )
    assert result.stdout == "-1 Operation not permitted\n-1 Operation not permitted\n", result


def test_symlink_bait_leads_nowhere():
    bait = f"parsnip-bait-{uuid.uuid4().hex}"
    result = attack(
        f"""
        import os
        os.symlink("{PROJECT}", "{bait}")
        os.symlink("/proc/self/root/../../..", "up")
        os.symlink("/proc/1/root/../../..", "up1")
        print(os.path.exists("{bait}"), sorted(os.listdir("up")))
        try:  # pid 1's root: the same, or (zygote: its pid 1 is not dumpable) closed
            print(sorted(os.listdir("up1")))
        except PermissionError:
            print("pid 1 closed")
        """
    )
    assert result.status == "ok", result
    assert result.stdout.startswith("False ['bin', 'dev', 'etc'")
    first, second = result.stdout.splitlines()
    assert second in ("pid 1 closed", first.split(" ", 1)[1])
    assert not os.path.lexists(f"/tmp/{bait}")
    assert not os.path.lexists(PROJECT / bait)


def test_nothing_persists_between_runs():
    first = attack("open('/tmp/left-behind', 'w').write('x'); import os; print(os.getpid())")
    assert first.status == "ok", first
    second = attack("import os; print(os.path.exists('/tmp/left-behind'), os.listdir('/tmp'))")
    assert second.stdout == "False []\n"


@pytest.mark.parametrize(
    ("name", "numbers", "args"),
    [
        # (x86_64 number, aarch64 number), from the kernel's syscall tables
        ("io_uring_setup", (425, 425), (1, 0)),
        ("keyctl", (250, 219), (0, 0)),
        ("bpf", (321, 280), (0, 0)),
        ("unshare", (272, 97), (0x10000000, 0)),
        ("mount", (165, 40), (0, 0)),
        ("perf_event_open", (298, 241), (0, 0)),
        ("userfaultfd", (323, 282), (0, 0)),
    ],
)
def test_forbidden_system_calls_are_refused(name, numbers, args):
    machine = os.uname().machine
    assert machine in {"x86_64", "aarch64"}, f"no syscall numbers for {machine} in this test"
    number = numbers[0] if machine == "x86_64" else numbers[1]
    result = attack(
        f"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.syscall({number}, *{args!r}), os.strerror(ctypes.get_errno()))
        """
    )
    assert result.stdout == "-1 Operation not permitted\n", (name, result)


def test_new_user_namespaces_are_refused():
    result = attack(
        """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.unshare(0x10000000), os.strerror(ctypes.get_errno()))
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        print("fork works")
        """
    )
    assert result.stdout == "-1 Operation not permitted\nfork works\n", result


def test_segfault_is_reported_as_killed():
    result = attack("import ctypes\nctypes.string_at(0)")
    assert result.status == "killed", result
    assert result.exit_code is None
    assert_host_can_still_work()


def test_binary_output_is_decoded_with_replacement():
    result = attack(
        "import sys\nsys.stdout.buffer.write(bytes(range(256)))\nsys.stderr.buffer.write(b'\\xff\\xfe')"
    )
    assert result.status == "ok", result
    assert result.stdout.startswith("\x00\x01\x02")
    assert "\ufffd" in result.stdout
    assert result.stderr == "\ufffd\ufffd"


def test_reading_stdin_at_eof():
    result = attack("import sys\nprint(repr(sys.stdin.read()))\ninput()")
    assert result.status == "error"
    assert result.stdout == "''\n"
    assert "EOFError" in result.stderr


def test_runs_as_an_unprivileged_user_without_capabilities():
    result = attack(
        """
        import os
        status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
        print(os.getuid(), os.getgid(), status["CapEff"].strip(), status["CapBnd"].strip(), status["Seccomp"].strip())
        """
    )
    assert result.stdout.split() == ["1000", "1000", "0" * 16, "0" * 16, "2"], result


def test_outside_the_sandbox_the_code_is_not_root_either():
    # RLIMIT_NPROC does not bind uid 0, so a root worker must not run code as root
    marker = f"whoami-{uuid.uuid4().hex}"
    with concurrent.futures.ThreadPoolExecutor(1) as executor:
        # The program waits for the host's SIGUSR1 (blocked before the exec, so one sent
        # early is kept pending), then ends: the host looks at it for as long as it takes.
        future = executor.submit(
            attack,
            f"""
            import os, signal, sys
            signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGUSR1}})
            os.execv(sys.executable, [sys.executable, "-c", "import signal\\n# {marker}\\nsignal.sigtimedwait({{signal.SIGUSR1}}, 25)"])
            """,
            limits=Limits(wall_seconds=30),
        )
        deadline = time.monotonic() + 25
        while not (pids := host_processes_with(marker)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pids, "the sandboxed program never showed up"
        try:
            with open(f"/proc/{pids[0]}/status") as f:
                uids = next(line for line in f if line.startswith("Uid:")).split()[1:]
        finally:
            os.kill(pids[0], signal.SIGUSR1)
        assert "0" not in uids
        assert future.result().status == "ok"
