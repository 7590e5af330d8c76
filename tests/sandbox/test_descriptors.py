"""The sandbox closes its own descriptors and no one else's: whatever happens to a run, a
zygote or a pool, every other descriptor of the process (its database and Redis
connections, other threads' pipes) stays open and stays what it was. A number closed
twice closes whatever the process has been given that number in between."""

import gc
import os
import signal
import threading
import time

import pytest

from tutor import sandbox
from tutor.sandbox import Limits, process, run, zygote


class Held:
    """Pipes held by the test, standing for the process's other connections; opened
    while the sandbox has just freed numbers, they are given those numbers."""

    def __init__(self, pipes=64):
        self.fds = {}
        for _ in range(pipes):
            for fd in os.pipe():
                self.fds[fd] = self._identity(fd)

    @staticmethod
    def _identity(fd):
        info = os.fstat(fd)
        return info.st_dev, info.st_ino

    def broken(self):
        """The descriptors that were closed, or replaced by another, behind our back."""
        broken = []
        for fd, identity in self.fds.items():
            try:
                if self._identity(fd) != identity:
                    broken.append(fd)
            except OSError:
                broken.append(fd)
        return broken

    def close(self):
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass


class TaskTimeout(Exception):
    """django-q2's task time-out: its SIGALRM handler raises wherever the task is."""


def _inside(frame, function):
    while frame is not None:
        if frame.f_code is function.__code__:
            return True
        frame = frame.f_back
    return False


def test_a_run_cut_short_by_the_task_time_out_closes_no_other_descriptor():
    assert run("print('warm')").stdout == "warm\n"  # the zygote or the pool is up
    held = []

    def time_out(signum, frame):
        if not _inside(frame, process.pump):  # not yet reading the run's output
            signal.setitimer(signal.ITIMER_REAL, 0.1)
            return
        # the run's (empty) stdin is closed by now, and other threads open descriptors:
        # they are given the lowest free numbers, that one among them
        held.append(Held())
        raise TaskTimeout

    previous = signal.signal(signal.SIGALRM, time_out)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(TaskTimeout):
            run("import time; time.sleep(8)", limits=Limits(wall_seconds=12))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    [others] = held
    try:
        assert others.broken() == []
    finally:
        others.close()
    assert run("print('still serving')").stdout == "still serving\n"


def _waiting_sandboxes(strategy):
    """What a forked child inherits: idle zygotes, or the pool's started sandboxes."""
    if strategy == "zygote":
        return [z for pool in sandbox._zygotes.values() for z in pool._idle]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ready = [s for pool in sandbox._pools.values() for s in pool._ready]
        if ready:
            return ready
        time.sleep(0.05)
    pytest.fail("the pool started no sandbox in 20 s")


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_closes_its_copies_once_and_nothing_of_its_own(strategy):
    assert run("print(1)").stdout == "1\n"
    # kept alive past the fork, as a traceback, a debugger or a slow collection may keep
    # them: the child lets go of its copies of their descriptors when it forks (through
    # their owners), not again whenever these objects are collected
    kept = _waiting_sandboxes(strategy)
    assert kept
    pid = os.fork()
    if pid == 0:  # the child: its own connections, then the objects go
        status = 3
        try:
            own = Held()
            kept.clear()
            gc.collect()
            status = 2 if own.broken() else 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child's own descriptors were closed"
    # the parent's sandboxes are untouched by the child's leaving
    assert run("print(2)").stdout == "2\n"


SMALL = Limits(cpu_seconds=1, wall_seconds=2, processes=16, memory_bytes=128 * 2**20)


@pytest.mark.zygote_only
def test_descriptors_survive_killed_stopped_and_closed_zygotes_and_concurrent_runs(monkeypatch):
    monkeypatch.setattr(zygote, "ANSWER_TIMEOUT", 1.0)
    problems = []
    stop = threading.Event()

    def other_thread():  # opens and closes pipes all along, checking each before closing
        while not stop.is_set():
            held = Held(pipes=8)
            time.sleep(0.002)
            problems.extend(held.broken())
            held.close()

    def runs(code, stdin):
        while not stop.is_set():
            try:
                run(code, stdin=stdin, limits=SMALL)
            except sandbox.SandboxUnavailable:
                pass  # three zygotes in a row killed under it: the next run starts afresh
            except Exception as exc:
                problems.append(exc)

    threads = [threading.Thread(target=other_thread)] + [
        threading.Thread(target=runs, args=args)
        for args in (
            ("print(input())", "x" * 300_000),  # more stdin than a pipe holds
            ("import sys; sys.stdin.close(); print('y' * 10**7)", "z" * 300_000),
            ("import time; time.sleep(5)", ""),  # timed out
        )
    ]
    for thread in threads:
        thread.start()
    try:
        for round_ in range(6):
            time.sleep(0.5)
            zygotes = [z for z in list(zygote._everyone) if z.alive()]
            if zygotes and round_ % 3 == 0:
                os.killpg(zygotes[0].proc.pid, signal.SIGKILL)
            elif zygotes and round_ % 3 == 1:
                os.killpg(zygotes[0].proc.pid, signal.SIGSTOP)
            else:
                sandbox.shutdown()  # closes the idle zygotes while runs go on
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert problems == []
