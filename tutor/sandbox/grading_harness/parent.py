# The grading harness, part 2 of 7: P, the run's main process. It reads the job, hands
# each test to a child, reads its output under a cap, kills it when its time is up, and
# writes the report; it never runs learner code.

# --- P ------------------------------------------------------------------------------------
def main():
    libc = _Libc()
    if libc.call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError("the grader could not make itself undumpable")
    _no_proc(libc)
    del libc
    __import__("gc").freeze()  # a child's collections never walk (so never copy) all that
    ours, theirs = _socket.socketpair(AF_UNIX, SOCK_SEQPACKET)
    # the first child: forked here, not by F, and first, so that it is ready sooner (building
    # its kit is the longest way to the first test)
    pid = os.fork()
    if pid == 0:
        ours.close()
        first_child(theirs)
    theirs.close()
    control, theirs = _socket.socketpair(AF_UNIX, SOCK_SEQPACKET)
    forker_pid = os.fork()
    if forker_pid == 0:
        control.close()
        ours.close()
        forker(theirs)
    theirs.close()
    children = Children(control, forker_pid)
    children.ready.append((pid, ours.detach()))
    children.own.add(pid)
    job = unpack(_read_all(0))  # only now: F and its children hold none of it
    nonce, code, budget_ms, output_cap, private = job[0], job[1], int(job[2]), int(job[3]), job[4]
    budget = budget_ms / 1000
    scratch = scratch_directories(private)
    tests = [unpack(test) for test in job[5:]]
    del job
    report = [b"ran"]
    try:
        learner = compile(code.decode("utf-8"), LEARNER_FILE, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        report = [b"syntax", *_syntax_error(error)]
    else:
        learner = marshal.dumps(learner)
        checks = [_compiled_check(check) for _mode, _shown, _stdin, check, *_args in tests]
        report += run_tests(children, tests, checks, learner, budget, output_cap, scratch)
    control.close()
    framed = nonce + b"\n" + pack(report) + b"\n" + nonce
    view = memoryview(framed)
    while view:
        view = view[os.write(1, view) :]


def run_tests(children, tests, checks, learner, budget, output_cap, scratch):
    """Every test, in order, each a report row. A child runs consecutive tests while each
    passes, up to TESTS_PER_CHILD, and never a visible test after a hidden one (what a
    hidden test saw would be printed where the learner reads it). It is sent a run of
    consecutive visible tests at once (their data is the learner's to see), which it runs
    without waiting for P; a hidden test is sent alone, once the test before has ended."""
    rows, worker, hidden_seen, sent = [], None, False, []
    for number, (_mode, shown, stdin, _source, *_args) in enumerate(tests):
        if type(checks[number]) is list:  # it did not compile: no process runs it
            rows.append(pack([b"none", b"test_error", b"", b"0", b"0", b"", b"",
                              pack(checks[number]), b"", b""]))  # fmt: skip
            continue
        if worker is not None and not sent and (shown == b"visible" and hidden_seen
                                                or worker.tests >= TESTS_PER_CHILD):  # fmt: skip
            worker = _dropped(worker, scratch)
        if worker is None:
            try:
                worker, hidden_seen = children.take(), False
            except OSError:  # F is gone
                rows.append(pack([b"none", b"lost", b"", b"0", b"0", b"", b"", b"", b"", b""]))
                continue
        if not sent:
            sent = worker.send(_batch(tests, checks, number, TESTS_PER_CHILD - worker.tests),
                               tests, checks, learner, budget, scratch)  # fmt: skip
        token = sent.pop(0)
        if number + 1 == len(tests) and worker.pid in children.own:
            children.no_more()  # no test is left that could need a new child
        fields, reusable = run_test(worker, token, stdin, budget, output_cap)
        hidden_seen = hidden_seen or shown != b"visible"
        if not reusable:
            worker, sent = _dropped(worker, scratch), []  # the rest goes to a new child
        if number + 1 < len(tests) and not sent and (
                worker is None or tests[number + 1][1] == b"visible" and hidden_seen):  # fmt: skip
            children.order_one()  # the next test needs a new child: forked meanwhile
        rows.append(pack(fields))
    if worker is not None:
        worker.drop(wait=False)  # it ends when its socket closes; the sandbox ends anyway
    return rows


def _batch(tests, checks, first, room):
    """The numbers of the tests sent together from ``first``: a run of visible tests whose
    checks compile, ``room`` at most, or a hidden test alone."""
    numbers = [first]
    if tests[first][1] == b"visible":
        while (len(numbers) < room and first + len(numbers) < len(tests)
               and tests[first + len(numbers)][1] == b"visible"
               and type(checks[first + len(numbers)]) is not list):  # fmt: skip
            numbers.append(first + len(numbers))
    return numbers


def _dropped(worker, scratch):
    """Ends ``worker``, then empties the scratch directories: nothing of its tests is left."""
    worker.drop()
    for directory in scratch:
        _empty(directory)
    return None


class _Libc:
    """libc's functions through _ctypes, which no test may import: it is taken out of
    sys.modules at once, and this object is dropped once P and F have what they need."""

    def __init__(self):
        import _ctypes

        sys.modules.pop("_ctypes", None)
        self._call = _ctypes.call_function
        self._handle = _ctypes.dlopen(None, 2)
        self._dlsym = _ctypes.dlsym

    def call(self, name, *args):
        return self._call(self._dlsym(self._handle, name), args)


def scratch_directories(private):
    """What is emptied between tests: a sandbox's own /tmp and /dev/shm, which bubblewrap
    makes for each run, and never a host's (the unsafe backend's). The host says which
    (``private``), and /tmp must be the working directory, on a read-only root."""
    if private != b"private" or os.getcwd() != "/tmp" or os.access("/", os.W_OK):
        return ()
    return ("/tmp", "/dev/shm")


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


class Children:
    """P's side of F: children ordered ("fork"), ready ones (pid and P's end of their
    socket), and how those that ended ended."""

    def __init__(self, control, forker):
        self.control, self.forker = control, forker
        self.ready = []
        self.ordered = 0
        self.ends = {}  # pid -> (wait status, CPU microseconds)
        self.own = set()  # children P forked itself (F did not: P reaps them)

    def no_more(self):
        """No child will be ordered any more: F ends now, while the last test runs, rather
        than with the sandbox (its end would lengthen the run's). Only while P's own child
        runs that test: how one of F's children ends is F's word."""
        if self.forker:
            _kill(self.forker)
            self.forker = 0

    def order_one(self):
        """One child forked ahead, unless one is ready or on its way already."""
        if not self.ready and not self.ordered:
            self.control.send(b"fork")
            self.ordered += 1

    def take(self):
        self.order_one()
        while not self.ready:
            self.receive()
        pid, sock_fd = self.ready.pop(0)
        return Worker(self, pid, sock_fd)

    def wait_for_end(self, pid, timeout):
        """Read F's messages until it says how ``pid`` ended, for ``timeout`` seconds at most
        (P's own child: wait for it)."""
        deadline = monotonic() + timeout
        if pid in self.own:
            while monotonic() < deadline:
                try:
                    done, status, usage = os.wait4(pid, os.WNOHANG)
                except ChildProcessError:
                    return
                if done:
                    cpu = int((usage.ru_utime + usage.ru_stime) * 1e6)
                    self.ends[pid] = (status, cpu)
                    return
                select.select([], [], [], 0.001)
            return
        while pid not in self.ends:
            remaining = deadline - monotonic()
            if remaining <= 0 or not select.select([self.control], [], [], remaining)[0]:
                return
            try:
                self.receive()
            except OSError:
                return

    def receive(self):
        message, ancillary, _flags, _ = self.control.recvmsg(64, _socket.CMSG_SPACE(16))
        fds = _received_fds(ancillary)
        words = message.split()
        if words[:1] == [b"pid"] and len(words) == 2 and len(fds) == 1:
            self.ready.append((int(words[1]), fds[0]))
            self.ordered -= 1
            return
        for fd in fds:
            os.close(fd)
        if words[:1] == [b"end"] and len(words) == 4:
            self.ends[int(words[1])] = (int(words[2]), int(words[3]))
            return
        raise OSError("the grader's forker is gone or confused")


def _received_fds(ancillary):
    fds = []
    for level, kind, data in ancillary:
        if level == SOL_SOCKET and kind == SCM_RIGHTS:
            fds += [int.from_bytes(data[i : i + 4], BYTE_ORDER)
                    for i in range(0, len(data) - len(data) % 4, 4)]  # fmt: skip
    return fds


class Worker:
    """A child P is giving tests to: its pid, P's end of its socket, its pidfd, and how
    many tests it was given."""

    def __init__(self, children, pid, sock_fd):
        self.children, self.pid, self.tests = children, pid, 0
        self.stashed = None  # (token + S or s, fds): a start that came with a verdict
        self.sock = _socket.socket(AF_UNIX, SOCK_SEQPACKET, 0, sock_fd)
        try:
            self.pidfd = os.pidfd_open(pid)
        except OSError:  # it is gone already
            self.pidfd = -1

    def send(self, numbers, tests, checks, learner, budget, scratch):
        """Sends the tests ``numbers`` in one job; returns their tokens, in order."""
        tokens, jobs = [], [pack([directory.encode() for directory in scratch])]
        for number in numbers:
            mode, _shown, stdin, _source, *args = tests[number]
            tokens.append(os.urandom(16))
            own = len(stdin) <= OWN_STDIN  # then the child writes it: no hand-over for it
            jobs.append(pack([mode, b"%r" % budget, tokens[-1], learner, checks[number],
                              stdin if own else b"", b"own" if own else b"fed", *args]))  # fmt: skip
        job = pack(jobs)
        try:
            self.sock.send(b"%d" % len(job))
            for offset in range(0, len(job), 1 << 15):
                self.sock.send(job[offset : offset + (1 << 15)])
        except OSError:
            pass  # it died already: F's word says how
        self.tests += len(numbers)
        return tokens

    def start(self, token, timeout):
        """P's ends of its pipes for the test of ``token`` ([stdin, stdout, stderr]; stdin
        -1 when the child wrote it itself), which it makes and sends when it starts that
        test; None if it ends or hangs first."""
        if self.stashed is not None:
            (word, fds), self.stashed = self.stashed, None
            if word == token + b"S":
                return fds
            if word == token + b"s":
                return [-1] + fds
            for fd in fds:
                os.close(fd)
        deadline = monotonic() + timeout
        waited = [self.sock] + ([self.pidfd] if self.pidfd >= 0 else [])
        while True:
            remaining = deadline - monotonic()
            ready = select.select(waited, [], [], max(remaining, 0))[0]
            if self.sock in ready:
                try:
                    message, ancillary, _flags, _ = self.sock.recvmsg(64, _socket.CMSG_SPACE(12))
                except OSError:
                    return None
                fds = _received_fds(ancillary)
                if message == token + b"S" and len(fds) == 3:
                    return fds
                if message == token + b"s" and len(fds) == 2:
                    return [-1] + fds
                for fd in fds:
                    os.close(fd)
                if not message:
                    return None
                continue
            if ready or remaining <= 0:
                return None

    def drop(self, wait=True):
        """Ends it: with ``wait``, returns once none of its code can run any more."""
        if self.stashed is not None:
            for fd in self.stashed[1]:
                os.close(fd)
            self.stashed = None
        self.sock.close()
        _kill(self.pid)
        if self.pidfd >= 0:
            if wait:
                select.select([self.pidfd], [], [], END_WAIT)
            os.close(self.pidfd)
            self.pidfd = -1
        return None


def run_test(worker, token, stdin, budget, output_cap):
    """One test, from its start to its end: ([verdict, stopped, wait status, CPU us, wall us,
    stdout, stderr, details, records, overflow], whether ``worker`` may take the next test).
    verdict: pass, fail or none (no authenticated word); stopped: "", timeout, flood or
    lost; records: what its asserts recorded, sent with its token (comparing.records reads
    them); overflow: "overflow" when there were more than P keeps."""
    pid, sock, pidfd = worker.pid, worker.sock, worker.pidfd
    sock_fd = sock.fileno()
    pipes = worker.start(token, END_WAIT + budget)
    if pipes is None:  # it ended (or hung) before it started this test
        worker.children.wait_for_end(pid, END_WAIT)
        status, cpu = worker.children.ends.pop(pid, (None, 0))
        return [b"none", b"" if status is not None else b"lost",
                b"" if status is None else b"%d" % status, b"%d" % cpu, b"0", b"", b"",
                b"", b"", b""], False  # fmt: skip
    in_w, out_r, err_r = pipes
    started = monotonic()
    outputs = {out_r: [], err_r: []}
    stopped, total, killed = b"", 0, False
    word = _Word(token, worker)
    alive = pidfd >= 0
    try:
        poller = select.poll()
        for fd in (sock_fd, out_r, err_r, pidfd):
            if fd >= 0:
                poller.register(fd, select.POLLIN)
        pending = memoryview(stdin if in_w >= 0 else b"")  # else the child wrote it
        if in_w >= 0:
            os.set_blocking(in_w, False)
            try:
                pending = pending[os.write(in_w, pending[: 1 << 16]) :] if pending else pending
            except OSError:  # a full pipe, or it ended already
                pass
        if pending:
            poller.register(in_w, select.POLLOUT)
        elif in_w >= 0:
            os.close(in_w)
            in_w = -1
        open_streams = {out_r, err_r}
        deadline = started + budget + GRACE
        # done when its output has ended and it is gone or ready for the next test: none of
        # its code runs any more when the next test starts
        while open_streams or (alive and not word.ready):
            remaining = deadline - monotonic()
            if remaining <= 0:
                if killed:
                    stopped = stopped or b"lost"  # still there after SIGKILL
                    break
                _kill(pid)
                killed, stopped = True, b"timeout"
                deadline = monotonic() + END_WAIT
                continue
            for fd, _event in poller.poll(remaining * 1000):
                if fd == sock_fd:
                    message, received = _receive_fds(sock)
                    if message is None or word.take(message, received):
                        poller.unregister(sock_fd)  # a pass: what follows is the next test's
                elif fd == pidfd:
                    alive = False
                    poller.unregister(pidfd)
                    deadline = min(deadline, monotonic() + 0.5)  # for what is left to read
                elif fd == in_w:
                    try:
                        pending = pending[os.write(in_w, pending[: 1 << 16]) :]
                    except BlockingIOError:
                        continue
                    except OSError:  # it closed its stdin or ended
                        pending = memoryview(b"")
                    if not pending:
                        poller.unregister(in_w)
                        os.close(in_w)
                        in_w = -1
                elif fd in open_streams:
                    data = os.read(fd, 1 << 16)
                    if not data:
                        poller.unregister(fd)
                        open_streams.discard(fd)
                        continue
                    room = output_cap - total
                    outputs[fd].append(data[:room])
                    total += min(room, len(data))
                    if len(data) > room and not killed:
                        _kill(pid)
                        killed, stopped = True, b"flood"
                        deadline = monotonic() + END_WAIT
        if word.verdict == b"none":  # anything left unread: it may have ended since
            sock.setblocking(False)
            message, received = _receive_fds(sock)
            while message and not word.take(message, received) and word.verdict == b"none":
                message, received = _receive_fds(sock)
            sock.setblocking(True)
        if word.verdict == b"none":  # how it ended: F's word
            worker.children.wait_for_end(pid, END_WAIT)
        wall = monotonic() - started
    finally:
        for fd in (in_w, out_r, err_r):
            if fd >= 0:
                os.close(fd)
    # a child that said "ready" with the next test's start may have run that test and ended
    # before P looked: it is gone, and that test's word waits in its socket
    reusable = word.ready and not killed and word.verdict == b"pass" and (
        alive or worker.stashed is not None)  # fmt: skip
    status, cpu = worker.children.ends.pop(pid, (None, 0))
    return [word.verdict, stopped, b"" if status is None else b"%d" % status, b"%d" % cpu,
            b"%d" % int(wall * 1e6), text(b"".join(outputs[out_r])),
            text(b"".join(outputs[err_r])), word.details, b"".join(word.records),
            word.overflow], reusable  # fmt: skip


class _Word:
    """What a test's process said on its socket with the test's token: records (``R``), then
    its verdict: a failure (``F`` and its description) or a pass (``P``, ``P ready``, or
    ``P ready`` with the next test's start and its pipes, which the worker keeps)."""

    def __init__(self, token, worker):
        self.token, self.worker = token, worker
        self.verdict, self.details, self.ready = b"none", b"", False
        self.records, self.kept, self.overflow = [], 0, b""

    def take(self, message, received):
        """Takes one message; True when it was a pass (what follows is the next test's)."""
        token, rest, passed = self.token, message[16:], False
        if self.verdict == b"none" and message[:16] == token:
            if rest[:1] == b"R":
                self.kept += len(rest) - 1
                if self.kept <= RECORDS_KEPT:
                    self.records.append(rest[1:])
                else:
                    self.overflow = b"overflow"
            elif rest in (b"P", b"P ready") or (
                    rest[:7] == b"P ready" and len(rest) == 24
                    and len(received) == (3 if rest[23:] == b"S" else 2)):  # fmt: skip
                self.verdict, self.ready, passed = b"pass", rest != b"P", True
                if len(rest) == 24:  # the next test's start came with it
                    self.worker.stashed, received = (rest[7:], received), []
            elif rest[:1] == b"F":
                self.verdict, self.details = b"fail", rest[1:]
        for unclaimed in received:
            os.close(unclaimed)
        return passed


def _empty(top):
    """Remove everything inside ``top`` (what the test before left there), however deep."""
    stack, directories = [top], []
    while stack:
        directory = stack.pop()
        try:
            if directory != top:
                os.chmod(directory, 0o700)
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    directories.append(entry.path)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
    for directory in reversed(directories):
        try:
            os.rmdir(directory)
        except OSError:
            pass


def _kill(pid):
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def _receive_fds(sock):
    """One message from C's socket and the descriptors it carries; (None, []) at its end."""
    try:
        message, ancillary, _flags, _ = sock.recvmsg(DETAILS_CAP + 64, _socket.CMSG_SPACE(12))
    except (BlockingIOError, InterruptedError):
        return b"", []
    except OSError:
        return None, []
    return message or None, _received_fds(ancillary)
