"""The zygote strategy: runs forked by a long-lived fork server stay isolated from each
other and from it; the fork server survives hostile runs and is replaced when it dies."""

import concurrent.futures
import contextlib
import os
import signal
import textwrap
import time

import pytest

from tutor import sandbox
from tutor.sandbox import Limits, SandboxUnavailable, run, zygote

pytestmark = pytest.mark.zygote_only

SMALL = Limits(cpu_seconds=2, wall_seconds=4, processes=16, memory_bytes=128 * 2**20)


def attack(code, limits=None):
    return run(textwrap.dedent(code), limits=limits)


def idle_zygotes():
    pools = list(sandbox._zygotes.values())
    return [z for pool in pools for z in pool._idle]


def test_concurrent_runs_cannot_see_signal_or_talk_to_each_other():
    code = """
        import os, socket, time
        me, other = {me!r}, {other!r}
        open(f"/tmp/mark-{{me}}", "w").write(me)
        open(f"/dev/shm/mark-{{me}}", "w").write(me)
        server = socket.socket(socket.AF_UNIX)
        server.bind(f"\\0parsnip-{{me}}")
        server.listen()
        print("ns", os.readlink("/proc/self/ns/pid"), os.readlink("/proc/self/ns/net"),
              os.readlink("/proc/self/ns/mnt"), os.readlink("/proc/self/ns/ipc"))
        print("from", time.monotonic())
        time.sleep(max(1.5, {deadline!r} - time.monotonic()))  # both alive then, however slow to start
        print("until", time.monotonic())
        print("tmp", os.path.exists(f"/tmp/mark-{{other}}"), os.listdir("/tmp"))
        print("shm", os.path.exists(f"/dev/shm/mark-{{other}}"), os.listdir("/dev/shm"))
        client = socket.socket(socket.AF_UNIX)
        try:
            client.connect(f"\\0parsnip-{{other}}")
            print("talk connected")
        except OSError as e:
            print("talk refused", e.errno)
        print("procs", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        hits = 0
        for pid in range(3, 400):
            try:
                os.kill(pid, 0)
                hits += 1
            except OSError:
                pass
        print("signal", hits)
    """
    deadline = time.monotonic() + 6  # the host's clock, which the runs read too
    with concurrent.futures.ThreadPoolExecutor(2) as executor:
        futures = [
            executor.submit(attack, code.format(me=me, other=other, deadline=deadline))
            for me, other in (("a", "b"), ("b", "a"))
        ]
        results = [f.result() for f in futures]
    # Each one looked for the other while the other was there (the clock is the host's):
    # they did run at the same time, however long each took to start.
    (a_from, a_until), (b_from, b_until) = (
        [
            float(line.split()[1])
            for line in r.stdout.splitlines()
            if line.split()[0] in ("from", "until")
        ]
        for r in results
    )
    assert a_from < b_until and b_from < a_until, results
    lines = []
    for me, result in zip("ab", results, strict=True):
        assert result.status == "ok", result
        out = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        assert out["tmp"] == f"False ['mark-{me}']"
        assert out["shm"] == f"False ['mark-{me}']"
        assert out["talk"].startswith("refused")
        assert out["procs"] == "[1, 2]"  # its own pid 1 and itself, nothing else
        assert out["signal"] == "0"
        lines.append(out["ns"].split())
    for first, second in zip(*lines, strict=True):  # pid, net, mount and IPC namespaces all differ
        assert first != second


def test_each_run_gets_new_namespaces_and_fresh_interpreter_state():
    code = """
        import os, random, sys
        print(os.readlink("/proc/self/ns/pid"), os.readlink("/proc/self/ns/net"), random.random())
        print(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        print("ctypes" in sys.modules, "socket" in sys.modules, sorted(os.listdir("/proc/self/fd")))
    """
    host = os.readlink("/proc/self/ns/pid"), os.readlink("/proc/self/ns/net")
    first, second = attack(code), attack(code)
    assert first.status == second.status == "ok", (first, second)
    for result in (first, second):
        pid_ns, net_ns, _ = result.stdout.splitlines()[0].split()
        # Namespaces of its own, not the host's; and a pid namespace that holds nothing but
        # the run (its pid 1 and itself): a namespace kept from the zygote or an earlier run
        # would hold more, or number its processes on. (Two runs' namespace numbers are not
        # compared: the kernel may give a freed one's number to the next. Runs alive at the
        # same time are shown apart by the concurrent test above.)
        assert (pid_ns, net_ns) != host and pid_ns not in host and net_ns not in host
        assert result.stdout.splitlines()[1] == "[1, 2]"
        # nothing of the zygote's imports, and no descriptor but stdin/stdout/stderr
        # (3 is the one listdir opened)
        assert result.stdout.splitlines()[2] == "False False ['0', '1', '2', '3']"
    # and fresh interpreter state: the random generator is seeded anew in each run
    assert first.stdout.split()[2] != second.stdout.split()[2]


def test_exit_behaves_like_the_interpreters():
    result = attack(
        """
        import atexit, sys, threading, time
        class Noisy:
            def __del__(self):
                print("del at exit")
        noisy = Noisy()
        atexit.register(print, "atexit ran")
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread joined"))).start()
        print("main ends", flush=True)
        sys.exit("bye with a message")
        """
    )
    assert result.status == "error", result
    assert result.exit_code == 1
    assert result.stdout == "main ends\nthread joined\natexit ran\ndel at exit\n"
    assert result.stderr == "bye with a message\n"
    assert run("import sys; sys.exit(0)").status == "ok"
    assert run("raise SystemExit(7)").exit_code == 7


def test_zygote_survives_a_hostile_run():
    assert run("print('warm')").stdout == "warm\n"
    [before] = idle_zygotes()
    zygote_pid = before.proc.pid
    result = attack(
        f"""
        import os, signal
        for target in (-1, 1, {zygote_pid}, os.getppid()):
            try:
                os.kill(target, signal.SIGKILL)
                print(target, "sent")
            except OSError as e:
                print(target, e.errno)
        for path in ("/proc/1/mem", "/proc/1/environ"):
            try:
                open(path, "rb").read(16)
            except OSError as e:
                print(path, e.errno)
        try:
            open("/dev/evil", "w")
        except OSError as e:
            print("dev", e.errno)
        while True:
            try:
                if os.fork() == 0:
                    while True:
                        pass
            except OSError:
                break
        print("forked out", flush=True)
        """,
        limits=SMALL,
    )
    # the forks hit the process limit, the program ended, its pid namespace went with it
    assert result.status == "ok", result
    assert "forked out" in result.stdout
    assert f"{zygote_pid} 3" in result.stdout  # no such process in there
    assert "/proc/1/mem 13" in result.stdout  # its pid 1 is not dumpable: no access
    assert "dev 30" in result.stdout  # /dev is read-only
    [after] = idle_zygotes()
    assert after is before and after.alive()
    assert run("print('still serving')").stdout == "still serving\n"
    assert idle_zygotes()[0] is before


def test_a_dead_zygote_is_replaced():
    assert run("print(1)").stdout == "1\n"
    [old] = idle_zygotes()
    os.killpg(old.proc.pid, signal.SIGKILL)
    old.proc.wait()
    result = run("print('after the crash')")
    assert result.stdout == "after the crash\n", result
    [new] = idle_zygotes()
    assert new is not old and new.alive()


def test_a_zygote_that_stops_answering_is_replaced(monkeypatch):
    # only the wait for an answer is short: its replacement may take its time to start
    monkeypatch.setattr(zygote, "ANSWER_TIMEOUT", 0.5)
    assert run("print(1)").stdout == "1\n"
    [old] = idle_zygotes()
    for pid in _sandbox_processes(old.proc.pid):
        with contextlib.suppress(ProcessLookupError):  # the last run's C1, on its way out
            os.kill(pid, signal.SIGSTOP)
    result = run("print('after the hang')")
    assert result.stdout == "after the hang\n", result
    assert not old.alive()
    assert idle_zygotes()[0] is not old


def _sandbox_processes(pid):
    """bubblewrap's processes under ``pid`` and everything they started."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        found.append(parent)
        try:
            with open(f"/proc/{parent}/task/{parent}/children") as f:
                todo += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return found


def test_a_preload_is_run_once_and_reaches_only_the_runs_that_name_it():
    preload = (
        "<preloaded-test>",
        "import time\nmade_at = time.monotonic()\ndef answer():\n    return 42\n",
        ("colorsys",),
    )
    shows = (
        "import sys, time\nprint(__preloaded__['answer'](), 'colorsys' in sys.modules, "
        "__preloaded__['made_at'] < time.monotonic(), __preloaded__['made_at'])"
    )
    named = run(shows, preload=preload)
    answer, kept, earlier, made_at = named.stdout.split()
    assert (answer, kept, earlier) == ("42", "True", "True"), named
    [server] = idle_zygotes()
    assert server.preloaded == {"<preloaded-test>"}
    again = run(shows + "\nprint(type(__preloaded__).__name__, __preloaded__['__name__'])",
                preload=preload)  # fmt: skip
    # its body ran once, in the fork server, before either run: both find what it made
    assert again.stdout == f"42 True True {made_at}\ndict <preloaded-test>\n", again
    assert idle_zygotes() == [server]
    # a plain run of that fork server: nothing in its namespace, modules or descriptors
    plain = attack(
        """
        import os, sys
        print("__preloaded__" in globals(), "colorsys" in sys.modules, "ctypes" in sys.modules,
              sorted(os.listdir("/proc/self/fd")))
        """
    )
    assert plain.stdout == "False False False ['0', '1', '2', '3']\n", plain


@pytest.mark.parametrize("body", ["def (", "raise RuntimeError('no')"], ids=["syntax", "raises"])
def test_a_preload_that_does_not_load_is_refused_and_the_zygote_serves_on(body):
    assert run("print('warm')").stdout == "warm\n"
    [server] = idle_zygotes()
    with pytest.raises(SandboxUnavailable, match="could not load"):
        run("print(1)", preload=("<broken>", body))
    assert run("print('still serving')").stdout == "still serving\n"
    assert idle_zygotes() == [server] and not server.preloaded


def test_grading_loads_its_harness_into_the_zygote_once():
    from tutor.sandbox.grading import Test, grade

    tests = [Test("prints", stdout="hi\n"), Test("checks", check="assert answer() == 42")]
    code = "def answer():\n    return 42\nprint('hi')\n"
    assert grade(code, tests).passed
    [server] = idle_zygotes()
    assert server.preloaded == {"<grader>"}
    assert grade(code, tests).passed
    assert idle_zygotes() == [server]


def test_a_preload_needs_the_zygote_strategy():
    sandbox.configure(strategy="bwrap")
    with pytest.raises(ValueError):
        run("print(1)", preload=("<p>", "x = 1"))


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError):
        sandbox.configure(strategy="fork-and-hope")
