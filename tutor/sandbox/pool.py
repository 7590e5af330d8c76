"""Sandboxes started ahead of time, so a run does not wait for bubblewrap and the
interpreter to come up. Each sandbox is taken once and thrown away after its run;
background threads start replacements."""

import collections
import contextlib
import threading
import time

from .limits import SandboxUnavailable


class Pool:
    def __init__(self, start, *, size=4, starters=2):
        self._start = start  # () -> StartedSandbox
        self._size = size
        self._ready = collections.deque()
        self._cond = threading.Condition()
        self._closed = False
        self._failure = None
        self._threads = [
            threading.Thread(target=self._keep_filled, name=f"sandbox-pool-{i}", daemon=True)
            for i in range(starters)
        ]
        self._starting = 0
        for thread in self._threads:
            thread.start()

    def take(self):
        """A ready sandbox, or a freshly started one when none is waiting."""
        with self._cond:
            sandbox = self._ready.popleft() if self._ready else None
            self._cond.notify_all()
        if sandbox is not None and sandbox.proc.poll() is None:
            return sandbox
        if sandbox is not None:
            sandbox.discard()
        return self._start()

    def _keep_filled(self):
        while True:
            with self._cond:
                while not self._closed and len(self._ready) + self._starting >= self._size:
                    self._cond.wait()
                if self._closed:
                    return
                self._starting += 1
            try:
                sandbox = self._start()
            except SandboxUnavailable as exc:
                self._failure = exc
                time.sleep(1.0)  # take() will start sandboxes itself and report the problem
                continue
            finally:
                with self._cond:
                    self._starting -= 1
            with self._cond:
                if self._closed:
                    sandbox.discard()
                    return
                self._ready.append(sandbox)

    def close(self):
        with self._cond:
            self._closed = True
            idle = list(self._ready)
            self._ready.clear()
            self._cond.notify_all()
        for sandbox in idle:  # let them all see EOF first, then reap them
            sandbox.close_control()
        for sandbox in idle:
            sandbox.discard()

    def forget(self):
        """After fork: the child must not use, nor kill, its parent's sandboxes. It closes
        its copies of their descriptors through their owners (the Popen's pipe objects
        would otherwise close the same numbers again when collected, by then perhaps the
        child's own database or Redis connection); no lock: another thread may have held
        it at the fork."""
        for sandbox in self._ready:
            with contextlib.suppress(OSError):
                sandbox.close_control()
            for stream in (sandbox.proc.stdin, sandbox.proc.stdout, sandbox.proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._ready.clear()
        self._closed = True
