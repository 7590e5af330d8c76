"""The grading harness: the program tutor.sandbox.grading runs in the sandbox.

A preload of the fork server (docs/sandbox.md), which compiles it and runs this module's
body once, building the test slots (PREPARED) there: a grading's program only calls
``main`` (grading.PRELOADED_BOOTSTRAP). Without a fork server it is compiled once per
worker by the sandbox's own interpreter, and sent as bytecode at the head of stdin behind a
bootstrap that is the run's program (grading.BOOTSTRAP): compiling this file costs more
than a whole run. ``main`` then reads its job from the rest of stdin
(the learner's code, the tests and the run's nonce), runs the tests one after another, and
writes one report to stdout framed with the nonce. docs/grading.md says why it is built
this way. Three kinds of process:

  P  this one: reads the job, compiles the learner's code (a syntax error ends it here) and
     the checks, gives each test to a child, feeds it its stdin, reads its output under a
     cap, kills it when its time is up, and writes the report. It never runs learner code,
     and it is not dumpable: no other process may read its memory or descriptors through
     /proc.
  F  forked from P before P reads anything, so it holds nothing but this file. It builds
     what every child needs before its first test (the kit: the state to reset to, the
     sealed audit hook, the slots already made) and forks children for P. It ends once
     no test is left that could need a new child.
  C  runs consecutive tests while they pass (TESTS_PER_CHILD at most, never a visible test
     after a hidden one), receiving each only when the one before has ended, and starting
     each afresh: modules, builtins, sys, namespace, stdio, signals and descriptors as they
     were. It seals itself (an audit hook the learner's code cannot remove) and runs the
     learner's code, then the check. Its verdict carries a per-test token that exists only
     among the constants of its driver code, which the learner's code cannot reach;
     without the token P counts the test failed.

It must stay runnable by any Python 3.9+ and import only built-in modules: its start-up
time is paid by every submission.
"""

import _collections
import _operator
import _signal
import _socket
import _thread
import marshal
import os
import select
import sys
from time import monotonic

LEARNER_FILE = "main.py"  # the name tracebacks give the learner's code, as for a plain run
CHECK_FILE = "<test>"
COMPARE = "\0parsnip-compare\0"  # stands for the recording function in a compiled check
BUILT_IN = "\0parsnip-builtin\0"  # + a name: stands for that built-in in a compiled check
VALUE_CAP = 1 << 14  # bytes of one encoded value (more: described as too big)
RECORDS_SENT = 1 << 14  # bytes of records a child gathers before it sends them to P
RECORDS_KEPT = 1 << 18  # bytes of records P keeps of one test (more: the test is not checked)
GRACE = 0.3  # seconds P waits beyond a test's budget before it kills the test
END_WAIT = 2.0  # seconds P waits for F's word after killing a test
DETAILS_CAP = 1 << 16  # bytes of a failure's description
REPR_CAP = 2000  # characters of a value shown in a failed comparison
FRAMES_KEPT = 20  # learner frames kept at each end of a long traceback
NO_VERDICT = 120  # C's exit status when its driver did not finish
TESTS_PER_CHILD = 10  # tests one child may run, one after another, while they pass
OWN_STDIN = 4096  # bytes of a test's stdin its child writes itself (fits any pipe's buffer)
VERSION_OFFSET = 24  # CPython's dict: reference count, type, size, then its version tag
RECURSION_CAP = 100_000  # sys.setrecursionlimit above this sets this: a runaway recursion
# then ends as a RecursionError in well under a test's time, not by its clock or a crash

PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_READ_FILE = 1 << 2
LANDLOCK_RULE_PATH_BENEATH = 1
O_PATH = 0o10000000
CO_NOT_A_PLAIN_FUNCTION = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, async generator
BYTE_ORDER = sys.byteorder  # read here: a test's code may change sys.byteorder
# what the closures the learner's code may reach (through their frames) use: each test's
# slot has its own copy of these, and of nothing else
LEARNER_FACING = ("_describer", "_judging", "_encoder", "_numbers", "_honesty", "_check_runner", "_clean_exit",
                  "_never", "_nothing", "_finisher", "_flusher", "_too_slow", "pack", "text",
                  "TooSlow", "LEARNER_FILE", "FRAMES_KEPT", "DETAILS_CAP", "VALUE_CAP",
                  "_operator", "_collections", "_signal")  # fmt: skip

AF_UNIX, SOCK_SEQPACKET = _socket.AF_UNIX, _socket.SOCK_SEQPACKET
SOL_SOCKET, SCM_RIGHTS = _socket.SOL_SOCKET, _socket.SCM_RIGHTS


# --- framing: every message is a list of byte strings, each "<length>:<bytes>" ------------
def pack(items):
    return b"".join(b"%d:%s" % (len(item), item) for item in items)


def unpack(data):
    items, position = [], 0
    while position < len(data):
        colon = data.index(b":", position)
        start = colon + 1
        end = start + int(data[position:colon])
        if end > len(data):
            raise ValueError("truncated")
        items.append(data[start:end])
        position = end
    return items


def text(value):
    """Valid UTF-8 whatever the bytes or string: what the report carries."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.encode("utf-8", "backslashreplace")


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


def _syntax_error(error):
    line = getattr(error, "lineno", None) or 0
    offset = getattr(error, "offset", None) or 0
    message = getattr(error, "msg", None) or str(error)
    return [text(type(error).__name__), text(message), b"%d" % line, b"%d" % offset]


def _compiled_check(source):
    """The check marshalled, b"" for an I/O test, or why it does not compile (a list)."""
    if not source:
        return b""
    try:
        return _compile_check(source.decode("utf-8"))
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        return _syntax_error(error)


def _compile_check(source):
    """The check as the body of a function (its names are the frame's own, not globals the
    learner's code could rebind), each assert recording through COMPARE, each built-in name
    it does not bind itself standing for that built-in (BUILT_IN: the learner's code cannot
    make ``all`` or ``len`` lie to a check), marshalled."""
    import _ast

    tree = compile(source, CHECK_FILE, "exec", _ast.PyCF_ONLY_AST, dont_inherit=True)
    _rewrite_asserts(_ast, tree)
    _bind_built_ins(_ast, tree)
    where = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}
    arguments = _ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[])  # fmt: skip
    fields = dict(name="check", args=arguments, body=tree.body or [_ast.Pass(**where)],
                  decorator_list=[], returns=None, type_comment=None, **where)  # fmt: skip
    if "type_params" in _ast.FunctionDef._fields:
        fields["type_params"] = []
    module = _ast.Module(body=[_ast.FunctionDef(**fields)], type_ignores=[])
    code = compile(module, CHECK_FILE, "exec", dont_inherit=True, optimize=0)
    check = next(const for const in code.co_consts if type(const) is type(code))
    if check.co_flags & CO_NOT_A_PLAIN_FUNCTION:
        raise SyntaxError("a check cannot use yield or await outside a function")
    return marshal.dumps(check)


def _walk(ast, node):
    found = [node]
    for item in found:
        for name in item._fields:
            value = getattr(item, name, None)
            if isinstance(value, list):
                found.extend(child for child in value if isinstance(child, ast.AST))
            elif isinstance(value, ast.AST):
                found.append(value)
    return found


def _rewrite_asserts(ast, tree):
    """Every assert, numbered in source order (as comparing.stripped numbers them on the
    host), becomes ``assert COMPARE(number, left, op, right, literal)``: ``literal`` says
    which side the host holds (a side that is a bare None: the host stripped it there)."""
    operators = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                 ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is",
                 ast.IsNot: "is not"}  # fmt: skip
    asserts = sorted((node for node in _walk(ast, tree) if isinstance(node, ast.Assert)),
                     key=lambda node: (node.lineno, node.col_offset))  # fmt: skip
    for number, statement in enumerate(asserts):
        test = statement.test
        where = {key: getattr(test, key) for key in ("lineno", "col_offset", "end_lineno",
                                                     "end_col_offset")}  # fmt: skip
        none = ast.Constant(value=None, **where)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = test.left, test.comparators[0]
            literal = "".join(mark for mark, side in (("l", left), ("r", right))
                              if isinstance(side, ast.Constant) and side.value is None)  # fmt: skip
            args = [left, ast.Constant(value=operators[type(test.ops[0])], **where), right]
        else:
            args, literal = [test, none, ast.Constant(value=None, **where)], ""
        call = ast.Call(
            func=ast.Attribute(value=ast.Constant(value=COMPARE, **where), attr="__call__",
                               ctx=ast.Load(), **where),
            args=[ast.Constant(value=number, **where)] + args
            + [ast.Constant(value=literal, **where)], keywords=[], **where,
        )  # fmt: skip
        statement.test, statement.msg = call, None


def _bind_built_ins(ast, tree):
    """Each load of a built-in's name that the check never binds itself becomes a constant
    standing for that built-in (_bind puts it in place)."""
    nodes = _walk(ast, tree)
    bound = set()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).partition(".")[0])
    names = sys.modules["builtins"].__dict__
    for node in nodes:
        for field in node._fields:
            value = getattr(node, field, None)
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if (isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load)
                        and child.id in names and child.id not in bound
                        and not child.id.startswith("__")
                        and child.id != "super"):  # fmt: skip  -- super() needs its name
                    where = {key: getattr(child, key) for key in (
                        "lineno", "col_offset", "end_lineno", "end_col_offset")}  # fmt: skip
                    constant = ast.Constant(value=BUILT_IN + child.id, **where)
                    if isinstance(node, ast.Call) and field == "func":  # no "str is not callable"
                        constant = ast.Attribute(value=constant, attr="__call__",
                                                 ctx=ast.Load(), **where)  # fmt: skip
                    if isinstance(value, list):
                        value[index] = constant
                    else:
                        setattr(node, field, constant)


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


# --- F ------------------------------------------------------------------------------------
def first_child(sock):
    """The first child, forked by P before P reads its job: stdio /dev/null, the kit built
    here (while P reads the job), then a child like any other."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    kit = _kit()
    __import__("gc").freeze()
    child(sock, kit)


def forker(sock):
    """F: forks a child per "fork" from P and sends P its pid and P's end of its socket;
    when a child ends, reaps it and sends "end <pid> <wait status> <CPU microseconds>"."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    kit = None  # made at the first request (P's first child makes its own): most runs need none
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    running = {}  # pidfd -> pid
    while True:
        for fd, _event in poller.poll():
            if fd != sock.fileno():
                pid = running.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                _, status, usage = os.wait4(pid, 0)
                cpu = int((usage.ru_utime + usage.ru_stime) * 1e6)
                sock.send(b"end %d %d %d" % (pid, status, cpu))
                continue
            if sock.recv(64) != b"fork":
                os._exit(0)  # P is done: every child left dies with the sandbox
            if kit is None:
                kit = _kit()  # every child inherits it as it is
                __import__("gc").freeze()
            theirs, ours = _socket.socketpair(AF_UNIX, SOCK_SEQPACKET)
            pid = os.fork()
            if pid == 0:
                sock.close()
                theirs.close()
                for pidfd in running:
                    os.close(pidfd)
                child(ours, kit)
            ours.close()
            sock.sendmsg([b"pid %d" % pid], [(SOL_SOCKET, SCM_RIGHTS,
                          theirs.fileno().to_bytes(4, sys.byteorder))])  # fmt: skip
            theirs.close()
            pidfd = os.pidfd_open(pid)
            running[pidfd] = pid
            poller.register(pidfd, select.POLLIN)


def _no_proc(libc):
    """Landlock: no file under /proc may be read from here on, by P, F or any test (their
    own memory, /proc/self/mem, included). Without Landlock the audit hook stands alone."""
    try:
        libc.call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        attributes = LANDLOCK_READ_FILE.to_bytes(8, sys.byteorder)
        ruleset = libc.call("syscall", LANDLOCK_CREATE_RULESET, attributes, 8, 0)
        if ruleset < 0:
            return
        for entry in os.listdir("/"):
            if entry == "proc":
                continue
            try:
                fd = os.open("/" + entry, O_PATH)
            except OSError:
                continue
            rule = LANDLOCK_READ_FILE.to_bytes(8, sys.byteorder) + fd.to_bytes(4, sys.byteorder)
            libc.call("syscall", LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, rule, 0)
            os.close(fd)
        libc.call("syscall", LANDLOCK_RESTRICT_SELF, ruleset, 0)
        os.close(ruleset)
    except OSError:
        pass


# --- C ------------------------------------------------------------------------------------
class TooSlow(BaseException):
    """Raised in the learner's code when its time is up (a bare except may swallow it: then
    P kills the test when its grace runs out)."""


class NotAllowedWhileGrading(RuntimeError):
    """What the audit hook raises: the learner's code tried something grading forbids."""


NotAllowedWhileGrading.__module__ = "builtins"  # its traceback line names it alone


def _driver_template():
    # the driver, written as a function so that it is compiled with the rest of this file
    # (once per zygote, or per worker), not in every run: only its code is used, run by
    # exec with its constants replaced (_driver). It holds nothing secret: what a test
    # needs it asks of "@gate", which answers its frame alone
    while "@gate".__call__("next"):
        "@gc_on".__call__()
        try:
            "@arm".__call__("@timer", "@gate".__call__(0))
            "@exec".__call__("@gate".__call__(1), "@gate".__call__(2))
            "@gate".__call__(3).__call__()
        except "@SystemExit" as error:  # noqa: B030  -- replaced by the class
            "@arm".__call__("@timer", 0.0)
            if not "@gate".__call__(4).__call__(error):
                details = "@gate".__call__(9).__call__(error)
                "@gate".__call__(6).__call__()
                if "@getpid".__call__() == "@pid":
                    "@gate".__call__("fail", details)
                "@exit".__call__(0)
        except "@BaseException" as error:  # noqa: B030
            "@arm".__call__("@timer", 0.0)
            details = "@gate".__call__(9).__call__(error)
            "@gate".__call__(6).__call__()
            if "@getpid".__call__() == "@pid":
                "@gate".__call__("fail", details)
            "@exit".__call__(0)
        else:
            "@arm".__call__("@timer", 0.0)
        "@gate".__call__(5).__call__()
        "@gate".__call__(6).__call__()
        "@gc_off".__call__()
        if "@getpid".__call__() != "@pid":
            "@exit".__call__(0)
        "@gate".__call__("records")
        if not "@quiesce".__call__():
            "@gate".__call__("unquiet")
            "@exit".__call__(0)
        if not "@gate".__call__("passed"):
            "@exit".__call__(0)
    "@exit".__call__(0)


def _gate_template(what, details=b""):
    # the one way to a test's box, which holds its token: for the driver's own frame only
    # (compiled with this file; constants replaced in _driver; its code guarded by the audit
    # hook, so nothing it holds is reachable from the learner's code, which may hold it)
    if "@getframe".__call__(1).f_code is not "@driver".__getitem__(0):
        raise "@refused".__call__("grading does not allow this (the grader's own calls)")
    if what == "next":
        return "@next".__call__()
    if what == "records":
        return "@box".__getitem__(10).__call__()
    if what == "fail":
        "@box".__getitem__(10).__call__()
        return "@write".__call__("@fd", "@box".__getitem__(8) + details)
    if what == "unquiet":
        return "@write".__call__("@fd", "@box".__getitem__(7))
    if what == "passed":
        return "@passed".__call__("@box".__getitem__(7))
    return "@box".__getitem__(what)


_DRIVER, _GATE = _driver_template.__code__, _gate_template.__code__
del _driver_template, _gate_template
# The driver is a child's whole life, one test after another: the gate's "next" waits for a
# job and fills the box ([budget, learner's code, namespace, check runner, clean end,
# finish, flush, token+P, token+F, describe, send the records]); every name is a constant
# (code.replace), so the learner's code can rebind none of them. The driver's code is not
# guarded (inspect.stack() walks through its frame): the box, the token and what prepares
# the next test are reachable only through the gate's code, which the audit hook guards,
# and the gate answers no frame but the driver's. The verdict is written by the gate; a
# pass after quiesce, with " ready" when the process may take the next test (one message,
# so P wakes once); a failure, another pid or an unquiet process ends the process.


def child(sock, kit):
    """C: never returns. The driver is built in _driver and held by no variable here."""
    leave = os._exit  # bound before the learner's code runs, which may rebind os._exit
    try:
        exec(_driver(sock, kit), {})
    finally:
        leave(NO_VERDICT)


def _prepared():
    """What no run's data goes into, built where this module's body runs (PREPARED): the
    private copy of this namespace, one fresh start per test a child may run (a "slot"),
    and a snapshot of every module's namespace as it is here (_saved)."""
    private = _rehomed(globals(), twins=True)
    word = _version_word()
    return private, [_slot(private) for _ in range(TESTS_PER_CHILD)], word, \
        {id(module.__dict__): _saved(module.__dict__, word) for module in _modules()}  # fmt: skip


def _modules():
    module_type = type(sys)
    return [module for module in list(sys.modules.values()) if type(module) is module_type]


def _saved(namespace, word):
    """A module's namespace as it is now: the dict, a copy, its values (compared by
    identity), and, where it can be read, a view of the dict's version tag with the tag."""
    version = None if word is None else word.from_address(id(namespace) + VERSION_OFFSET)
    return (namespace, dict(namespace), tuple(namespace.values()), version,
            None if version is None else version.value)  # fmt: skip


def _saved_now(earlier, word):
    """Every module's namespace as it is now: the snapshot ``earlier`` made of it where it
    has not changed since (PREPARED holds each namespace it saved: an id is still its)."""
    saved = []
    for module in _modules():
        entry = earlier.get(id(module.__dict__))
        if entry is None or entry[3] is None or entry[3].value != entry[4]:
            entry = _saved(module.__dict__, word)
        saved.append(entry)
    return tuple(saved)


def _version_word():
    """The type through which a dict's version tag is read (CPython changes a dict's tag
    whenever one of its keys is added, removed or given another object), or None where this
    interpreter's dicts do not behave so. With it, a namespace no test changed is known
    unchanged without a look at its values: after a fork, reading a value's reference
    count is a write, and each page written is copied first (docs/grading.md, Figures)."""
    try:
        import _ctypes

        word = type("Word", (_ctypes._SimpleCData,), {"_type_": "Q"})
        probe = {"a": 1, "b": 2}
        view = word.from_address(id(probe) + VERSION_OFFSET)
        tags = [view.value, view.value]
        probe["a"] = 3
        tags.append(view.value)
        probe["c"] = 4
        tags.append(view.value)
        del probe["c"]
        tags.append(view.value)
    except Exception:  # no _ctypes: every namespace is compared value by value
        return None
    if tags[0] != tags[1] or len(set(tags[1:])) != 4:
        return None
    return word


def _kit():
    """What every child needs before its first job, made in the first child and once in F
    (F's children inherit it rather than each building it): the slots (PREPARED), the state
    it resets between tests, and the sealed audit hook."""
    setting_up = [True]  # the hook lets everything through while this holds something
    protected = []
    private, slots, word, earlier = PREPARED
    protected.extend(_guard_modules())
    saved = _saved_now(earlier, word)
    # out of reach from here on: this namespace is the globals of a frame below every
    # test's code (child's), and the fork server's copy is the same dict (its _PRELOADED);
    # what PREPARED holds are the later tests' fresh starts
    del globals()["PREPARED"]
    _signal.signal(_signal.SIGALRM, _too_slow)
    _seal(protected, slots[0][3].__code__, setting_up)
    # ``earlier`` is kept (in the child's never-emptied grave): freeing it would write to
    # every page it is on, each copied first
    return [slots, protected, setting_up, private, saved, earlier]


def _guard_modules():
    """Before the snapshot every test starts from: _posixsubprocess imported, with its
    fork_exec refusing (so that asyncio, subprocess and unittest, which import it, can be
    imported by a test: starting a process is what is refused), and sys.setrecursionlimit
    capped at RECURSION_CAP. Both stand-ins hold what they use among constants, not in a
    closure; their code objects are returned, for the audit hook to guard."""
    function = type(_nothing)
    refuse = _REFUSED.replace(co_consts=tuple(
        NotAllowedWhileGrading if const == "@error" else const
        for const in _REFUSED.co_consts))  # fmt: skip
    capped = _CAPPED.replace(co_consts=tuple(
        {"@set": sys.setrecursionlimit, "@min": min, "@cap": RECURSION_CAP}.get(const, const)
        if type(const) is str else const for const in _CAPPED.co_consts))  # fmt: skip
    subprocesses = __import__("_posixsubprocess")
    subprocesses.fork_exec = function(refuse, {"__builtins__": {}}, "fork_exec")
    sys.setrecursionlimit = function(capped, {"__builtins__": {}}, "setrecursionlimit")
    return [refuse, capped]


def _refused_template(*args, **kwargs):
    raise "@error".__call__("grading does not allow this (starting a process)")


def _capped_template(limit):
    "@set".__call__("@min".__call__(limit, "@cap"))


_REFUSED, _CAPPED = _refused_template.__code__, _capped_template.__code__
del _refused_template, _capped_template


def _rehomed(source, twins=False):
    """A copy of a module's namespace in which its functions are copies that look their
    names up in the copy, and its builtins are a copy; with ``twins``, its modules (sys
    aside) are copies too: what runs with it never sees what the learner's code changed in
    the originals."""
    function_type, module_type = type(_nothing), type(sys)
    copy = dict(source)
    builtins = source["__builtins__"]
    copy["__builtins__"] = dict(builtins.__dict__ if type(builtins) is module_type else builtins)
    for name, value in source.items():
        if type(value) is function_type:
            copy[name] = function_type(value.__code__, copy, value.__name__,
                                       value.__defaults__, value.__closure__)  # fmt: skip
        elif twins and type(value) is module_type and value is not sys and name != "__builtins__":
            twin = module_type(value.__name__)
            twin.__dict__.update(value.__dict__)
            copy[name] = twin
    return copy


def _slot(private):
    """One test's fresh start, made before any job: its own namespace for the harness's
    closures (spoiling it spoils one test's description at most), the learner's module,
    the comparing and describing functions, a copy of the builtins for the check, and its
    own sys.stdin, sys.stdout and sys.stderr (on fds 0, 1 and 2, whatever those are then)."""
    space = _rehomed({name: private[name] for name in LEARNER_FACING + ("__builtins__",)},
                     twins=True)  # fmt: skip
    module = type(sys)("__main__")
    ns = module.__dict__
    ns.update(__builtins__=sys.modules["builtins"], __spec__=None, __package__=None)
    check_codes = []
    describe = space["_describer"](ns, check_codes)
    measures = (space["_encoder"](), space["_judging"](), space["pack"])
    builtins_copy = dict(private["__builtins__"])
    return (space, module, check_codes, describe, measures, builtins_copy, _stdio())


def _stdio():
    """New stdin, stdout and stderr made as Python makes them at its start."""
    import _io

    made = []
    for fd, original, mode in ((0, sys.__stdin__, "r"), (1, sys.__stdout__, "w"),
                               (2, sys.__stderr__, "w")):  # fmt: skip
        raw = _io.FileIO(fd, mode, closefd=False)
        buffer = raw if type(original.buffer) is _io.FileIO else type(original.buffer)(raw)
        stream = _io.TextIOWrapper(buffer, encoding=original.encoding, errors=original.errors,
                                   newline="\n", line_buffering=original.line_buffering,
                                   write_through=original.write_through)  # fmt: skip
        stream.mode = mode
        made.append(stream)
    return tuple(made)


def _driver(sock, kit):
    """The child's driver, with its constants in place; the kit is emptied, so that the
    frames below the learner's code show an empty list, not what it held."""
    slots, protected, setting_up, private, saved, earlier = kit
    del kit[:]
    box = [earlier]  # the box's first contents go to the grave, which keeps them
    next_test, passed = private["_server"](sock, slots, protected, setting_up, saved, box)
    import atexit
    import gc

    originals = tuple((number, _signal.getsignal(number)) for number in _signal.valid_signals()
                      if _signal.getsignal(number) is not None)  # fmt: skip
    quiesce = _quieter(sock.fileno(), originals, _thread._count, atexit._clear,
                       (sys.modules["builtins"], sys))  # fmt: skip
    driver_code = []  # filled once the driver is made: the gate answers its frames only
    gate = _replaced(_GATE, {
        "@getframe": sys._getframe, "@driver": driver_code, "@refused": NotAllowedWhileGrading,
        "@next": next_test, "@box": box, "@write": os.write, "@fd": sock.fileno(),
        "@passed": passed,
    })  # fmt: skip
    protected.append(gate)
    constants = {
        "@gate": type(_nothing)(gate, {"__builtins__": {}}, "gate", (b"",)),
        "@arm": _signal.setitimer, "@timer": _signal.ITIMER_REAL, "@exec": exec,
        "@SystemExit": SystemExit, "@BaseException": BaseException, "@getpid": os.getpid,
        "@pid": os.getpid(), "@exit": os._exit, "@gc_on": gc.enable, "@gc_off": gc.disable,
        "@quiesce": quiesce,
    }  # fmt: skip
    driver = _replaced(_DRIVER, constants)
    driver_code.append(driver)
    return driver


def _replaced(code, constants):
    """``code`` with each of its string constants that ``constants`` names replaced."""
    return code.replace(co_consts=tuple(constants.get(const, const) if type(const) is str
                                        else const for const in code.co_consts))  # fmt: skip


def _quieter(sock_fd, originals, thread_count, clear_atexit, plain_modules):
    """quiesce(): after a passed test, puts back every signal handler, stops every timer,
    forgets atexit functions and closes every descriptor but the socket; says whether the
    process may take another test (no thread of the learner's left, sys and builtins still
    plain modules). It looks up no name: the learner's code may run here (a finalizer) and
    sees nothing worth changing."""
    setitimer, timers = _signal.setitimer, (_signal.ITIMER_VIRTUAL, _signal.ITIMER_PROF)
    getsignal, signal, closerange, close = _signal.getsignal, _signal.signal, os.closerange, os.close
    type_, module_type, failure, limit = type, type(sys), OSError, os.sysconf("SC_OPEN_MAX")

    def quiesce():
        clear_atexit()
        for timer in timers:
            setitimer(timer, 0.0)
        for number, handler in originals:
            if getsignal(number) is not handler:
                signal(number, handler)
        if thread_count():
            return False
        for module in plain_modules:
            if type_(module) is not module_type:
                return False
        closerange(3, sock_fd)
        closerange(sock_fd + 1, limit)
        for fd in (0, 1, 2):
            try:
                close(fd)
            except failure:
                pass
        return True

    return type(quiesce)(quiesce.__code__, {"__builtins__": {}}, "quiesce", None,
                         quiesce.__closure__)  # fmt: skip


def _server(sock, slots, protected, setting_up, saved, box):
    """next(): waits for P's next job and makes the test ready in ``box``; False when P is
    done, the slots are used up or the job is malformed. It runs with the audit hook off,
    so no learner code may run in it: it is homed in a private copy of this namespace,
    calls what was bound before any learner code ran, touches no object the learner's code
    made, and lets nothing the learner's code made be freed (``grave`` keeps it: a freed
    object's __del__ would run here)."""
    import gc

    recv, sendmsg, pipe, write = sock.recv, sock.sendmsg, os.pipe, os.write
    level, rights = SOL_SOCKET, SCM_RIGHTS
    dup2, close, chdir, cwd = os.dup2, os.close, os.chdir, os.getcwd()
    loads, modules, sys_dict, signal = marshal.loads, sys.modules, sys.__dict__, _signal.signal
    saved_modules = dict(modules)
    tags = [entry[4] for entry in saved]
    limit, set_limit = sys.getrecursionlimit(), sys.setrecursionlimit
    thresholds, set_thresholds = gc.get_threshold(), gc.set_threshold
    hooks, get_hooks, set_hooks = sys.get_asyncgen_hooks(), sys.get_asyncgen_hooks, \
        sys.set_asyncgen_hooks  # fmt: skip
    count, exit_functions = _thread._count, __import__("atexit")._run_exitfuncs
    is_, alarm = _operator.is_, _signal.SIGALRM
    grave, used, jobs, scratch, prepared, sent = [], [0], [], [], [False], [False]
    sock_fd = sock.fileno()
    fstat, leave = os.fstat, os._exit
    socket_id = (fstat(sock_fd).st_dev, fstat(sock_fd).st_ino)

    def reset():
        """The process as it was before any test: the modules, builtins and sys. A module's
        namespace is compared by identity (no comparison runs the learner's code)."""
        for number, (namespace, original, values, version, _tag) in enumerate(saved):
            if version is not None and version.value == tags[number]:
                continue  # not changed since it was saved, or last put back
            if not (len(namespace) == len(values) and all(map(is_, namespace.values(), values))):
                grave.append(list(namespace.items()))
                namespace.clear()
                namespace.update(original)
            if version is not None:
                tags[number] = version.value
        grave.append(list(modules.items()))
        modules.clear()
        modules.update(saved_modules)
        grave.append(get_hooks())
        set_hooks(*hooks)
        chdir(cwd)
        set_limit(limit)
        set_thresholds(*thresholds)

    def prepare(verdict=b""):
        if used[0] >= len(slots):
            return False
        if used[0]:  # before the first test, no learner code ran here: nothing to put back
            reset()  # while P reads the verdict: before the job, not after
        if not jobs:  # a run of visible tests, or one hidden test
            message = recv(32)
            if not message:
                return False
            size, chunks, received = int(message), [], 0
            while received < size:
                chunk = recv(1 << 16)
                if not chunk:
                    return False
                chunks.append(chunk)
                received += len(chunk)
            jobs[:] = unpack(b"".join(chunks))
            scratch[:] = unpack(jobs.pop(0))
        # what the test before left there, this one must not read; before a child's first
        # test there is none: the run's first child finds them as bubblewrap made them, and P
        # empties them once the child before has ended, before it sends a job to the next
        for directory in scratch if used[0] else ():
            _empty(directory.decode())
        mode, budget, token, learner, check, stdin, feeder, *args = unpack(jobs.pop(0))
        in_r, in_w = pipe()
        out_r, out_w = pipe()
        err_r, err_w = pipe()
        if feeder == b"own":  # small enough for any pipe's buffer: written at once
            write(in_w, stdin)
            close(in_w)
            theirs, word = (out_r, err_r), b"s"
        else:
            theirs, word = (in_w, out_r, err_r), b"S"
        sendmsg([verdict + token + word], [(level, rights, b"".join(
            fd.to_bytes(4, BYTE_ORDER) for fd in theirs))])  # fmt: skip
        sent[0] = True
        for fd in theirs:
            close(fd)
        for target, fd in enumerate((in_r, out_w, err_w)):
            if fd != target:
                if fd < 3:
                    return False
                dup2(fd, target)
                close(fd)
        space, module, check_codes, describe, measures, builtins_copy, stdio = slots[used[0]]
        used[0] += 1
        program = mode == b"io"
        ns = module.__dict__
        if not program:
            ns["__name__"] = "main"  # as if imported: code under `if __name__ == "__main__":` waits
        modules["__main__"] = module
        sys_dict["argv"] = [LEARNER_FILE] + [arg.decode("utf-8") for arg in args]
        sys_dict.update(stdin=stdio[0], stdout=stdio[1], stderr=stdio[2], __stdin__=stdio[0],
                        __stdout__=stdio[1], __stderr__=stdio[2])  # fmt: skip
        signal(alarm, space["_too_slow"])
        codes, records, size = [], [], [0]
        header = token + b"R"

        def send_records():  # with the token: the learner's code cannot make or drop one
            if records:
                now = fstat(sock_fd)
                if (now.st_dev, now.st_ino) != socket_id:
                    leave(NO_VERDICT)  # the socket was swapped: records would go astray
                write(sock_fd, header + pack(records))
                records.clear()
                size[0] = 0

        if check:
            encode, judge, packer = measures
            recorder = _recorder(encode, judge, packer, records, size, send_records)
            protected.append(recorder.__code__)  # it holds the records: guarded
            check = _bind(loads(check), recorder, codes, builtins_copy)
            run = space["_check_runner"](check, ns, builtins_copy)
        else:
            run = space["_nothing"]
        check_codes.extend([id(code) for code in codes])  # describe holds ids, not the codes
        grave.append(box[:])
        box[:] = [float(budget), loads(learner), ns, run,
                  space["_clean_exit"]() if program else space["_never"],
                  space["_finisher"](program, modules, count, exit_functions),
                  space["_flusher"](sys, stdio), token + b"P", token + b"F", describe,
                  send_records]  # fmt: skip
        return True

    def next_test():
        setting_up.append(True)
        if prepared[0]:  # by passed(), with the verdict of the test before
            prepared[0] = False
            setting_up.clear()
            return True
        try:
            ready = prepare()
        except BaseException:
            ready = False
        if ready:
            setting_up.clear()
        return ready

    def passed(verdict):
        """Sends a pass (the process is quiet and may go on): with the next test of the
        job made ready and its start in the same message when there is one, so that P
        wakes once per test. False: the process must end."""
        setting_up.append(True)
        if jobs and used[0] < len(slots):
            sent[0] = False
            try:
                prepared[0] = prepare(verdict + b" ready")
            except BaseException:
                prepared[0] = False
            if prepared[0]:
                return True
            if not sent[0]:
                write(sock_fd, verdict)
            return False
        write(sock_fd, verdict + b" ready")
        setting_up.clear()
        return True

    return next_test, passed


def _nothing():
    pass


def _never(error):
    return False


def _clean_exit():
    type_, int_ = type, int

    def clean(error):  # sys.exit(), sys.exit(0): a program that ends well
        code = error.code
        return code is None or (type_(code) is int_ and code == 0)

    return clean


def _too_slow(signum, frame):
    _signal.signal(_signal.SIGALRM, _signal.SIG_IGN)
    raise TooSlow()


def _bind(code, compare, seen, built_ins):
    """The check's code with its stand-ins replaced (COMPARE by the recording function, each
    BUILT_IN name by that built-in, from the copy taken before the learner's code ran),
    nested code and folded tuples too; every code object of the check goes to ``seen``."""
    code_type, str_, tuple_, frozenset_ = type(code), str, tuple, frozenset

    def bound(const):
        kind = type(const)
        if kind is str_ and const == COMPARE:
            return compare
        if kind is str_ and const.startswith(BUILT_IN):
            return built_ins[const[len(BUILT_IN):]]
        if kind is code_type:
            return _bind(const, compare, seen, built_ins)
        if kind is tuple_ or kind is frozenset_:
            return kind(bound(item) for item in const)
        return const

    result = code.replace(co_consts=tuple(bound(const) for const in code.co_consts))
    seen.append(result)
    return result


def _check_runner(code, ns, builtins_copy):
    function_type = type(_nothing)

    def run():
        # built with a copy of the builtins taken before the learner's code ran: a patched
        # builtins module changes what the learner's code sees, not what the check uses
        saved = ns.get("__builtins__")
        ns["__builtins__"] = builtins_copy
        try:
            check = function_type(code, ns)
        finally:
            ns["__builtins__"] = saved
        check()

    return run


def _finisher(program, modules, thread_count, exit_functions):
    base = BaseException

    def finish():  # for a program, what the interpreter does when it ends
        if program:
            threading = modules.get("threading")
            if threading is not None and thread_count():  # then the process takes no more tests
                try:
                    threading._shutdown()
                except base:
                    pass
            try:
                exit_functions()
            except base:
                pass

    return finish


def _flusher(sys_module, own):
    """flush(): what the code printed, before the verdict is sent (it holds no token)."""
    base = BaseException

    def flush():
        for stream in (sys_module.stdout, sys_module.stderr, own[1], own[2]):
            try:
                stream.flush()
            except base:
                pass

    return flush


def _judging():
    """judge(left, op, right): the sandbox's own verdict on a comparison, for the cases the
    host cannot decide from plain data (identity, or two computed values one of which is
    not plain): Python's comparison, except that a value whose comparison methods come from
    the learner's code is never taken as equal to (or in, or less than) a plain one. Every
    name it uses is bound here, before the learner's code runs."""
    contains = _operator.contains
    operators = {
        "==": _operator.eq, "!=": _operator.ne, "<": _operator.lt, "<=": _operator.le,
        ">": _operator.gt, ">=": _operator.ge, "is": _operator.is_, "is not": _operator.is_not,
        "in": lambda a, b: contains(b, a), "not in": lambda a, b: not contains(b, a),
    }  # fmt: skip
    honest = _honesty()
    truth, failure = _operator.truth, Exception

    def judge(left, op, right):
        try:
            if op is None:
                return honest(left) and truth(left)
            if op == "is" or op == "is not":
                return operators[op](left, right)
            return honest(left) is honest(right) and truth(operators[op](left, right))
        except failure:
            return False

    return judge


def _encoder():
    """encode(value): a value as plain data (comparing.decode reads it on the host), with
    nothing of the learner's code run: exact built-in values as they are, a subclass of one
    by its built-in content (read through the built-in type's own methods), a Fraction or a
    Decimal by its number (_numbers), anything else described by its class's name;
    VALUE_CAP bytes and 100 levels at most."""
    type_, subclass, len_, str_ = type, issubclass, len, str
    int_index, float_hex = int.__index__, float.hex
    real, imag = complex.real.__get__, complex.imag.__get__
    str_encode, bytes_add, dict_items = str.encode, bytes.__add__, dict.items
    iterators = ((list, b"l", list.__iter__), (tuple, b"t", tuple.__iter__),
                 (set, b"S", set.__iter__), (frozenset, b"z", frozenset.__iter__))  # fmt: skip
    qualname = type.__dict__["__qualname__"].__get__
    cap, too_big = VALUE_CAP, b"?a value too big to compare"
    number = _numbers()

    def encode(value, depth=0):
        kind = type_(value)
        if value is None:
            return b"N"
        if kind is bool:
            return b"T" if value is True else b"F"
        if subclass(kind, int):
            return b"i%x" % int_index(value)
        if subclass(kind, float):
            return b"f" + float_hex(value).encode()
        if subclass(kind, complex):
            return b"c" + pack([float_hex(real(value)).encode(), float_hex(imag(value)).encode()])
        if subclass(kind, str):
            encoded = str_encode(value, "utf-8", "surrogatepass")
            return b"s" + encoded if len_(encoded) < cap else too_big
        if subclass(kind, bytes) or subclass(kind, bytearray):
            data = bytes_add(b"", value)
            return (b"b" if subclass(kind, bytes) else b"y") + data if len_(data) < cap else too_big
        if depth >= 100:
            return b"?a value nested too deeply"
        if subclass(kind, dict):
            tag, items = b"d", []
            for key, item in dict_items(value):
                items.append(key)
                items.append(item)
        else:
            for base, found, iterate in iterators:
                if subclass(kind, base):
                    tag, items = found, iterate(value)
                    break
            else:
                found = number(value, kind)
                if found is not None:
                    return found if len_(found) < cap else too_big
                name = qualname(kind)
                return b"?" + text("an object of class " + (name if type_(name) is str_ else "?"))[:200]
        parts, size = [], 0
        for item in items:
            part = encode(item, depth + 1)
            size += len_(part) + 8
            if size > cap:
                return too_big
            parts.append(part)
        return tag + pack(parts)

    return encode


def _numbers():
    """number(value, kind): a Fraction (b"q" numerator, denominator) or a Decimal (b"D" its
    digits) as plain data, or None. No method of the value's class runs, and nothing is
    imported (fractions and decimal are not loaded before the learner's code is): a
    Fraction's two integers are read from its slots through the member descriptors its
    class holds (found by going through the class's dict, never looking a name up in it:
    a key of the learner's could run code when compared), a Decimal's digits by the C type's
    own __str__, which only a type made in C has (a class made in Python cannot be marked
    immutable). A class of the learner's that only looks like Fraction gives the numbers it
    holds: the same as returning that Fraction, decided on the host by value."""
    type_, str_, int_, str_eq, str_encode = type, str, int, str.__eq__, str.encode
    flags_of = type.__dict__["__flags__"].__get__
    module_of = type.__dict__["__module__"].__get__
    mro_of = type.__dict__["__mro__"].__get__
    qualname = type.__dict__["__qualname__"].__get__
    namespace_of = type.__dict__["__dict__"].__get__
    proxy_items = type(type.__dict__).items
    member = type(type.__dict__["__basicsize__"])
    member_get = member.__get__
    type_attribute = type.__getattribute__
    heap, immutable = 1 << 9, 1 << 8  # Py_TPFLAGS_HEAPTYPE, Py_TPFLAGS_IMMUTABLETYPE
    failure = Exception

    def fraction(value, base):
        found = {}
        for key, item in proxy_items(namespace_of(base)):
            if type_(key) is str_ and (str_eq(key, "_numerator") or str_eq(key, "_denominator")
                                       or str_eq(key, "__module__")):  # fmt: skip
                found[key] = item
        module = found.get("__module__")
        if type_(module) is not str_ or not str_eq(module, "fractions"):
            return None
        top, bottom = found.get("_numerator"), found.get("_denominator")
        if type_(top) is not member or type_(bottom) is not member:
            return None
        top, bottom = member_get(top, value), member_get(bottom, value)
        if type_(top) is not int_ or type_(bottom) is not int_ or bottom <= 0:
            return None
        return b"q" + pack([b"%x" % top, b"%x" % bottom])

    def decimal(value, base):
        if flags_of(base) & heap and not flags_of(base) & immutable:
            return None  # made in Python
        module = module_of(base)
        if type_(module) is not str_ or not str_eq(module, "decimal"):
            return None
        digits = type_attribute(base, "__str__")(value)
        return b"D" + str_encode(digits, "ascii") if type_(digits) is str_ else None

    def number(value, kind):
        try:
            for base in mro_of(kind):
                name = qualname(base)
                if type_(name) is not str_:
                    continue
                if str_eq(name, "Fraction") and flags_of(base) & heap:
                    return fraction(value, base)
                if str_eq(name, "Decimal"):
                    return decimal(value, base)
        except failure:
            return None
        return None

    return number


def _recorder_template(site, left, op, right, literal):
    # what every assert of a check calls instead of comparing (compiled with this file, run
    # with its constants replaced in _recorder): both sides encoded, the sandbox's own
    # verdict where the host will need it, kept among constants (no frame's locals) and
    # sent to P with the test's token when they grow (and by the driver at the test's end)
    encoded = ("@encode".__call__(left), "@encode".__call__(right))
    verdict = b""
    if not literal and (op == "is" or op == "is not" or encoded[0][:1] == b"?"
                        or encoded[1][:1] == b"?"):  # fmt: skip
        verdict = b"1" if "@judge".__call__(left, op, right) else b"0"
    "@records".append("@pack".__call__([b"%d" % site, encoded[0], encoded[1], verdict]))
    "@size".__setitem__(0, "@size".__getitem__(0) + "@len".__call__(encoded[0])
                        + "@len".__call__(encoded[1]) + 32)
    if "@size".__getitem__(0) > "@limit":
        "@send".__call__()
    return True


_RECORDER = _recorder_template.__code__
del _recorder_template


def _recorder(encode, judge, packer, records, size, send):
    """One test's recording function: _RECORDER with its constants in place, homed in an
    empty namespace. Its code object is protected like a check's (the audit hook refuses it
    to the learner's code), so the records are reachable from no frame the code can walk."""
    constants = {"@encode": encode, "@judge": judge, "@records": records, "@pack": packer,
                 "@size": size, "@len": len, "@limit": RECORDS_SENT, "@send": send}  # fmt: skip
    code = _RECORDER.replace(co_consts=tuple(
        constants.get(const, const) if type(const) is str else const
        for const in _RECORDER.co_consts))  # fmt: skip
    return type(_nothing)(code, {"__builtins__": {}}, "compare")


def _honesty():
    """honest(value): whether comparing ``value`` runs only Python's own code: no class of
    its type's MRO that Python code made (a heap type: the learner's, or a standard-library
    class written in Python, whose methods a class may borrow: ``__eq__ = id``,
    ``unittest.mock.ANY``) defines a comparison method, and so for everything inside it
    (for the built-in containers, deque and their subclasses). Built-in types' own methods
    are Python's."""
    type_dict = type.__dict__["__dict__"].__get__
    type_mro = type.__dict__["__mro__"].__get__
    type_flags = type.__dict__["__flags__"].__get__
    type_, subclass, str_, dict_items = type, issubclass, str, dict.items
    methods = frozenset(["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                         "__contains__", "__bool__", "__len__", "__iter__", "__hash__"])  # fmt: skip
    heap_type = 1 << 9  # Py_TPFLAGS_HEAPTYPE
    iterable = (list, tuple, set, frozenset, _collections.deque)
    id_ = id
    verdicts, seen = {}, []  # id(type) -> bool; the types, so that their ids stay theirs

    def trusted(kind):
        known = verdicts.get(id_(kind))  # by id: a metaclass may lie in __eq__ and __hash__
        if known is not None:
            return known
        ok = True
        for klass in type_mro(kind):
            if not type_flags(klass) & heap_type:
                continue
            for name in type_dict(klass):  # its keys, each an exact str, or it lies
                if type_(name) is not str_ or name in methods:
                    ok = False
        verdicts[id_(kind)] = ok
        seen.append(kind)
        return ok

    def honest(value, depth=0):
        # by type(), never isinstance(): isinstance reads __class__, which a property of
        # the learner's could answer, running its code here
        kind = type_(value)
        if depth > 100 or not trusted(kind):
            return False
        if subclass(kind, dict):
            for key, item in dict_items(value):
                if not (honest(key, depth + 1) and honest(item, depth + 1)):
                    return False
            return True
        if subclass(kind, iterable):
            for item in value:
                if not honest(item, depth + 1):
                    return False
        return True

    return honest


def _describer(ns, check_codes):
    """describe(error): what P needs to explain a failure, as framed bytes: kind, exception
    type, message, learner frames (line, function, repeats), check line, and the built-in
    exception class it is (or derives from: a class of the learner's could
    carry any name). The learner's code it may run (the exception's __str__, a property)
    runs first, while this frame holds nothing but the exception: the walk of the frames,
    which reads code objects, comes after and calls nothing of the learner's."""
    type_, str_, len_, base, subclass = type, str, len, BaseException, issubclass
    type_dict = type.__dict__
    qualname, module_of = type_dict["__qualname__"].__get__, type_dict["__module__"].__get__
    mro_of, flags_of = type_dict["__mro__"].__get__, type_dict["__flags__"].__get__
    traceback_of = BaseException.__traceback__.__get__
    exit_code = SystemExit.code.__get__
    heap_type = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by Python code, not built in
    id_ = id

    def is_check(code):  # by id: the check's code objects are not held here
        wanted = id_(code)
        for known in check_codes:
            if known == wanted:
                return True
        return False

    def describe(error):
        try:
            kind_type = type_(error)
            try:
                if subclass(kind_type, SystemExit):
                    code = exit_code(error)
                    message = "" if code is None else repr(code)
                else:
                    message = str_(error)
                if type_(message) is not str_:
                    message = ""
            except base:
                message = "<the exception's message could not be shown>"
            built_in = "BaseException"
            for klass in mro_of(kind_type):
                if not flags_of(klass) & heap_type:
                    built_in = qualname(klass)
                    break
            name = qualname(kind_type)
            module = module_of(kind_type)
            if type_(name) is not str_ or type_(module) is not str_:
                name, module = built_in, "builtins"
            if module not in ("builtins", "__main__", "main"):
                name = f"{module}.{name}"
            frames, check_line = [], 0
            tb = traceback_of(error)
            while tb is not None:
                frame = tb.tb_frame
                if is_check(frame.f_code):
                    check_line = tb.tb_lineno
                elif frame.f_globals is ns and frame.f_code.co_filename == LEARNER_FILE:
                    place = (tb.tb_lineno, frame.f_code.co_name)
                    if frames and frames[-1][0] == place:
                        frames[-1][1] += 1
                    else:
                        frames.append([place, 1])
                tb = tb.tb_next
            frame = tb = None
            if len_(frames) > 2 * FRAMES_KEPT:
                frames = frames[:FRAMES_KEPT] + frames[-FRAMES_KEPT:]
            kind = "raised"
            if subclass(kind_type, TooSlow):
                kind = "too_slow"
            elif subclass(kind_type, SystemExit):
                kind = "exit"
            packed_frames = pack([text(f"{line} {count} {name_}")
                                  for (line, name_), count in frames])  # fmt: skip
            details = pack([text(kind), text(name), text(message[:DETAILS_CAP // 4]),
                            packed_frames, b"%d" % check_line, text(built_in)])  # fmt: skip
            return details[:DETAILS_CAP]
        except base:
            return b""

    return describe


def _seal(protected, describe_code, setting_up):
    """The audit hook that stays for the rest of this process, in force once ``setting_up``
    is emptied: no reaching the driver's or the check's code objects (the token, the
    expected values) but from describe, no tracing, no looking through the garbage
    collector, no new processes, no ctypes or sub-interpreters, no reading this process's
    memory through /proc, no code objects from bytes or built by hand."""
    getframe, get_ident, stat, fspath = sys._getframe, _thread.get_ident, os.stat, os.fspath
    type_, str_, bytes_, int_, getattr_ = type, str, bytes, int, getattr
    stdlib = os.path.dirname(os.__file__) + "/"
    importer = sys.modules["_frozen_importlib_external"]._compile_bytecode.__code__
    # types.coroutine sets a flag on a generator's code (code.replace, then __code__ =):
    # asyncio does so as it is imported; the one place either is let through
    coroutine = __import__("types").coroutine.__code__
    proc = stat("/proc").st_dev if os.path.isdir("/proc") else None
    busy = set()
    denied = frozenset([
        "sys.settrace", "sys.setprofile", "sys._current_frames", "sys._current_exceptions",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "os.fork", "os.forkpty",
        "os.exec", "os.posix_spawn", "os.spawn", "os.system", "subprocess.Popen",
        "sys.addaudithook", "cpython.PyInterpreterState_New", "os.symlink",
        "marshal.load",
    ])  # fmt: skip
    denied_prefixes = ("ctypes.", "sys.monitoring")
    # _posixsubprocess is imported before (_guard_modules): importing it again would bring
    # back its fork_exec
    modules = frozenset(["ctypes", "_ctypes", "_posixsubprocess", "_xxsubinterpreters",
                         "_xxinterpchannels", "_interpreters", "_interpchannels",
                         "_interpqueues", "_ctypes_test"])  # fmt: skip
    code_names = frozenset(["f_code", "__code__", "gi_code", "cr_code", "ag_code"])

    def refuse(event):
        raise NotAllowedWhileGrading(f"grading does not allow this ({event})")

    def in_proc(path):
        if proc is None:
            return False
        if type_(path) not in (str_, bytes_):
            if type_(path) is int_:
                return False
            path = fspath(path)
        try:
            return stat(path).st_dev == proc
        except (OSError, ValueError):
            return False

    def is_protected(code):
        for item in protected:
            if item is code:
                return True
        return False

    def hook(event, args):
        if setting_up:
            return
        if event in denied or event.startswith(denied_prefixes):
            refuse(event)
        ident = get_ident()
        if ident in busy:  # the hook's own attribute reads
            return
        busy.add(ident)
        try:
            if event == "object.__getattr__":
                if args[1] in code_names:
                    code = getattr_(args[0], args[1])
                    if is_protected(code) and getframe(1).f_code is not describe_code:
                        refuse("reading the grader's code")
            elif event == "import":
                name = args[0]
                if type_(name) is not str_ or name.partition(".")[0] in modules or \
                        name.startswith("_test"):  # fmt: skip
                    refuse("import " + str_(name))
            elif event == "open" or event == "os.chdir":
                if in_proc(args[0]):
                    refuse("/proc")
            elif event == "object.__setattr__":
                if args[1] == "__code__" and getframe(1).f_code is not coroutine:
                    refuse("replacing a function's code")
            elif event == "code.__new__":
                if getframe(1).f_code is not coroutine:
                    refuse("code.__new__")
            elif event == "compile":
                filename = args[1]
                if type_(filename) is bytes_:
                    filename = filename.decode("utf-8", "replace")
                if type_(filename) is not str_ or filename.startswith((stdlib, "<frozen")):
                    refuse("compiling as the standard library")
            elif event == "marshal.loads":
                if getframe(1).f_code is not importer:
                    refuse("marshal.loads")
        finally:
            busy.discard(ident)

    sys.addaudithook(hook)


# Built once, where this module's body runs: in the fork server (the harness is a preload
# there, whose body the server runs once), so that every grading's children find them made;
# otherwise in P, before it forks anything. Either way before any learner code ran.
PREPARED = _prepared()
