# ruff: noqa: UP031 -- JSON is written with %-formatting: braces stay readable, and it is fast
"""The tracing harness: the program tutor.sandbox.tracing runs in the sandbox.

Compiled once per worker by the sandbox's own interpreter and sent as bytecode at the head
of stdin behind a bootstrap (tracing.BOOTSTRAP), as the grading harness is. ``main`` then
reads the size of the log, forks, reads its job from the rest of stdin (the run's nonce, the
learner's code, its input and the caps), and writes one report to stdout framed with the
nonce. docs/tracing.md says why it is built this way. Two processes:

  P  this one: maps the log (shared memory) and forks C before it reads the job, then
     compiles the learner's code (a syntax error ends it here), sends C the code and its
     input, reads C's output under its cap, stops C when its time is up, and once C is gone
     writes the report: its output and its log as they are. It never runs learner code;
     only P holds the run's stdout.
  C  runs the learner's code under sys.settrace, recording a step for each line, call,
     return and exception of the learner's own frames ("main.py"), and appends each step to
     the log as soon as it is recorded (a memory write: a crash, os._exit or P's SIGKILL
     loses nothing recorded). Its stdout and stderr are a pipe to P. It seals itself with an
     audit hook (no replacing the tracer, no new processes, no /proc, no signals to P)
     before the learner's code runs.

Objects are read without running learner code: no repr, str, ==, hash or attribute lookup
on the learner's objects; an instance's attributes are read through the type's own
``__dict__`` and slot descriptors. It must stay runnable by any Python 3.9+ and import only
built-in modules: its start-up time is paid by every trace.
"""

import _io
import _operator
import _weakref
import gc
import marshal
import os
import select
import sys
from itertools import islice, repeat
from time import monotonic

LEARNER_FILE = "main.py"
STR_CAP = 100  # characters of a string (or bytes) shown; longer ones carry "len"
ITEMS_CAP = 50  # elements of a container (or attributes) shown; the rest are counted in "more"
HEAP_CAP = 200  # objects described in full per step; further ones are summarised (items left out)
# A deep stack shows its FRAMES_OUTER outermost frames (the module's among them) and its
# FRAMES_INNER innermost ones; the step counts the calls in between (a step's size stays
# bounded however deep a correct recursion goes: the steps and size caps stop a runaway one)
FRAMES_OUTER = 5
FRAMES_INNER = 15
SIGNATURE_CAP = 20  # characters of a plain default value shown in a function's signature
TEXT_CAP = 100  # characters of the short text of a C-level object (a range, a re.Match...)
BIG_INT_BITS = 13000  # past this, an int is not converted to decimal (3.11 refuses 4300 digits)
VALUE_CACHE = 4096  # ints and short strings whose value numbers are remembered
GC_THRESHOLD = 10000  # allocations between two collections of the young generation in C
END_WAIT = 2.0  # seconds P waits for C to go once it has stopped it
LOG_SLACK = 1 << 20  # the log's room beyond the size cap, for records (C stops itself first)

CO_OPTIMIZED = 0x1
CO_VARARGS = 0x4
CO_VARKEYWORDS = 0x8
TPFLAGS_IMMUTABLETYPE = 1 << 8  # every type made in C has it (3.10+), no class statement's
TPFLAGS_HEAPTYPE = 1 << 9


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
    import mmap

    capacity = int(_read_item(0))  # the log's size: the job's only part C may know
    log = mmap.mmap(-1, capacity)  # shared: C writes its records here, P reads them after
    output_r, output_w = os.pipe()  # C's stdout and stderr
    job_r, job_w = os.pipe()
    kit = _kit()
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        for fd in (output_r, job_w):
            os.close(fd)
        child(job_r, log, output_w, kit)  # never returns
    for fd in (output_w, job_r):
        os.close(fd)
    del kit
    job = unpack(_read_all(0))  # only now: C holds none of it
    nonce, code, stdin = job[0], job[1], job[2]
    max_steps, max_bytes, output_cap, budget_ms, cpu_seconds = (int(n) for n in job[3:8])
    del job
    try:
        learner = compile(code.decode("utf-8"), LEARNER_FILE, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, UnicodeDecodeError) as error:
        os.close(job_w)  # C reads an empty job and leaves
        _kill(pid)
        _write_report(nonce, [b"syntax", *_syntax_error(error)])
        return
    try:
        _write_all(job_w, pack([marshal.dumps(learner), stdin, b"%d" % max_steps,
                                b"%d" % max_bytes]))  # fmt: skip
    except OSError:
        pass  # C is gone already: its end says how
    os.close(job_w)
    del learner, code, stdin
    report = watch(pid, log, output_r, budget_ms / 1000, output_cap, cpu_seconds)
    _write_report(nonce, report)


def _write_report(nonce, report):
    framed = nonce + b"\n" + pack(report) + b"\n" + nonce
    _write_all(1, framed)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_item(fd):
    """One framed item, read from ``fd`` without reading past it."""
    size = b""
    while not size.endswith(b":"):
        byte = os.read(fd, 1)
        if not byte or len(size) > 12:
            raise SystemExit("the tracer's job was cut short")
        size += byte
    data = b""
    while len(data) < int(size[:-1]):
        chunk = os.read(fd, int(size[:-1]) - len(data))
        if not chunk:
            raise SystemExit("the tracer's job was cut short")
        data += chunk
    return data


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _syntax_error(error):
    line = getattr(error, "lineno", None) or 0
    message = getattr(error, "msg", None) or str(error)
    return [text(type(error).__name__), text(message), b"%d" % line]


def _kill(pid):
    try:
        os.kill(pid, 9)
    except OSError:
        pass


class Output:
    """What C printed (stdout and stderr, one pipe), up to the cap."""

    def __init__(self, fd, cap):
        self.fd, self.cap = fd, cap
        self.data = bytearray()
        self.flooded = False
        self.open = True

    def read(self):
        """Read what is there now; False at the end of the pipe."""
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return True
        if not data:
            self.open = False
            return False
        room = self.cap - len(self.data)
        if len(data) > room:
            self.flooded = True
        self.data += data[:room]
        return True


def watch(pid, log, output_fd, budget, output_cap, cpu_seconds):
    """Wait until C is done or must be stopped, reading its output. The report: [b"trace",
    P's reason to stop it ("time", "output", "cpu" when it used up its CPU time, or ""), C's
    wait status, its output (bytes), its log (the records it wrote, as they are)]."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        pidfd = -1
    os.set_blocking(output_fd, False)
    output = Output(output_fd, output_cap)
    poller = select.poll()
    for fd in (output_fd, pidfd):
        if fd >= 0:
            poller.register(fd, select.POLLIN)
    reason, killed, alive = b"", False, pidfd >= 0
    deadline = monotonic() + budget
    while output.open or alive:
        remaining = deadline - monotonic()
        if remaining <= 0:
            if killed:
                break
            _kill(pid)
            killed = True
            reason = reason or b"time"
            deadline = monotonic() + END_WAIT
            continue
        for fd, _event in poller.poll(remaining * 1000):
            if fd == output_fd:
                if not output.read():
                    poller.unregister(output_fd)
                if output.flooded and not killed:
                    reason = reason or b"output"
                    _kill(pid)
                    killed = True
                    deadline = min(deadline, monotonic() + END_WAIT)
            elif fd == pidfd:
                alive = False
                poller.unregister(pidfd)
                deadline = min(deadline, monotonic() + 0.5)  # for what is left to read
    if alive:
        _kill(pid)
    status, cpu = _reap(pid)  # C is gone: nothing writes the log any more
    end = log.find(b"\0")  # the log starts zeroed, and no record holds a NUL byte
    if cpu >= cpu_seconds - 0.05:
        reason = reason or b"cpu"
    return [b"trace", reason, b"" if status is None else b"%d" % status, text(bytes(output.data)),
            text(log[: end if end >= 0 else len(log)])]  # fmt: skip


def _reap(pid):
    """C's wait status (None if unknown) and the CPU seconds it used."""
    try:
        _, status, usage = os.wait4(pid, 0)
        return status, usage.ru_utime + usage.ru_stime
    except OSError:
        return None, 0.0


# --- C ------------------------------------------------------------------------------------
class NotAllowedWhileTracing(RuntimeError):
    """What the audit hook raises: the learner's code tried something tracing forbids."""


NotAllowedWhileTracing.__module__ = "builtins"


class _Probe:
    def method(self):
        pass


def _cell():
    """A closure's cell, for its type."""
    captured = None
    return (lambda: captured).__closure__[0]


class Stop(BaseException):
    """Raised inside the tracer to end the trace (never reaches learner code)."""


def _kit():
    """What C needs, made before the fork: the table that makes any string a JSON string."""
    table = {code: "\\u%04x" % code for code in range(32)}
    table.update({ord('"'): '\\"', ord("\\"): "\\\\"})
    # not in a trace: lone surrogates (no UTF-8 for them) and NUL (PostgreSQL's jsonb refuses it)
    table.update({code: "\ufffd" for code in (0, *range(0xD800, 0xE000))})
    return {"table": table}


def child(job_r, log, output_w, kit):
    """C: never returns."""
    try:
        os.dup2(output_w, 1)
        os.dup2(output_w, 2)
        os.close(output_w)
        job = _read_all(job_r)
        os.close(job_r)
        if not job:
            os._exit(0)
        code, stdin, max_steps, max_bytes = unpack(job)
        del job
        memfd = os.memfd_create("stdin")
        _write_all(memfd, stdin)
        os.lseek(memfd, 0, 0)
        os.dup2(memfd, 0)
        os.close(memfd)
        del stdin
        os.closerange(3, 1 << 16)
        send = _sender(log)
        run(marshal.loads(code), send, int(max_steps), int(max_bytes), kit)
    finally:
        os._exit(0)


class _Counted(_io.FileIO):
    """fd 1 or 2, counting every byte written through sys.stdout and sys.stderr."""

    count = [0]

    def write(self, data):
        written = _io.FileIO.write(self, data)
        if written:
            self.count[0] += written
        return written


def _streams(count):
    _Counted.count = count
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = _io.TextIOWrapper(_Counted(fd, "w", closefd=False), encoding="utf-8",
                                   errors="backslashreplace", write_through=True)  # fmt: skip
        setattr(sys, name, stream)
        setattr(sys, "__%s__" % name, stream)
    stdin = _io.TextIOWrapper(_io.BufferedReader(_io.FileIO(0, "r", closefd=False)),
                              encoding="utf-8", errors="replace")  # fmt: skip
    sys.stdin = sys.__stdin__ = stdin


def run(learner, send, max_steps, max_bytes, kit):
    """Run the learner's code under the tracer; send "E" when it is over."""
    module = type(sys)("__main__")
    ns = module.__dict__
    ns.update(__builtins__=sys.modules["builtins"], __spec__=None, __package__=None,
              __file__=LEARNER_FILE)  # fmt: skip
    sys.modules["__main__"] = module
    sys.argv = [LEARNER_FILE]
    count = [0]
    _streams(count)
    tracer = _tracer(ns, learner, send, count, max_steps, max_bytes, kit["table"])
    setting_up = [True]
    _neutered()
    _seal(setting_up)
    del kit
    # the tracer makes many short-lived containers: collect the young generation less often
    # (it only holds what was made since; cyclic garbage is still collected)
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, 10, 10)
    sys.settrace(tracer)
    del setting_up[:]
    try:
        exec(learner, ns)
    except BaseException:  # noqa: S110 -- its exception steps are recorded already
        pass
    _finish()
    send(b"E\n", True)
    os._exit(0)


def _finish():
    """What the interpreter does when a program ends: wait for its threads, run atexit."""
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:  # noqa: S110
            pass
    try:
        sys.modules["atexit"]._run_exitfuncs()
    except BaseException:  # noqa: S110
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: S110
            pass


def _sender(log):
    """send(data, last=False): append records (lines) to the log shared with P
    (memory writes: no system call, and nothing is lost when C dies). Raises Stop("size")
    when the log is full, keeping room for the record that says so."""
    capacity = len(log)
    write, tell, room, len_ = log.write, log.tell, capacity - 64, len

    def send(data, last=False):
        if tell() + len_(data) > (capacity - 1 if last else room):
            if last:
                return
            raise Stop("size")
        write(data)

    return send


def _tracer(ns, learner, send, count, max_steps, max_bytes, table):
    """The trace function, and everything it needs bound before the learner's code runs.

    What it appends to the log, per step, in one write: the new fragments the step uses, then
    the step, each a line. A fragment is written once and named by its number from then on:
    "V" a value (its JSON as in the trace), "O" an object (its JSON with value numbers in
    place of values), "L" a frame's locals ([[name, value number], ...]); "S<output bytes> "
    the step itself:
    [line, event, exception, [[function, line, locals number, returned value number or -1,
    frame id], ...], [heap id, object number, ...], and only when there are any: [[kept
    frame's function, its frame id, locals number], ...], calls not shown]. So the host reads and checks each distinct value,
    object and set of locals once, however many steps show it. Objects and frames whose
    contents are the same objects as at the step before (compared by identity, never by ==)
    are not described again. The log ends with "Q<reason>" when the tracer stopped the
    program, "E" when the program ran to its end."""
    type_, int_, str_, bool_, float_, complex_, bytes_ = type, int, str, bool, float, complex, bytes
    none_type = type(None)
    list_, tuple_, set_, frozenset_, dict_ = list, tuple, set, frozenset, dict
    # builtins bound here: the learner's code may replace them in the builtins module
    len_, repr_, issubclass_, islice_, all_, map_, zip_, enumerate_, sum_ = \
        len, repr, issubclass, islice, all, map, zip, enumerate, sum  # fmt: skip
    is_ = _operator.is_
    # an object's identity, as id() gives it but without id()'s audit event (one per call:
    # the hook would run for each): the object type's own hash, a rotation of the address
    id_ = object.__hash__
    list_len, list_slice, list_iter = list.__len__, list.__getitem__, list.__iter__
    tuple_len, tuple_slice = tuple.__len__, tuple.__getitem__
    set_len, set_iter, frozenset_len, frozenset_iter = set.__len__, set.__iter__, \
        frozenset.__len__, frozenset.__iter__  # fmt: skip
    dict_len, dict_items, dict_keys, dict_values = dict.__len__, dict.items, dict.keys, dict.values
    proxy_keys, proxy_values = type(type.__dict__).keys, type(type.__dict__).values
    type_name = type.__dict__["__name__"].__get__
    type_dict = type.__dict__["__dict__"].__get__
    type_mro = type.__dict__["__mro__"].__get__
    type_flags = type.__dict__["__flags__"].__get__
    function_type = type(_finish)
    builtin_type = type(len)
    method_type = type(_Probe().method)
    module_type = type(sys)
    module_dict = type.__dict__["__dict__"].__get__(module_type)["__dict__"].__get__
    getset_type = type(type.__dict__["__name__"])
    member_type = type(type.__dict__["__dictoffset__"])
    base_exception = BaseException
    exception_str = BaseException.__str__
    exception_args = BaseException.__dict__["args"].__get__
    memory_error, recursion_error = MemoryError, RecursionError
    function_getters = {name: function_type.__dict__[name].__get__ for name in
                        ("__code__", "__defaults__", "__kwdefaults__", "__closure__")}  # fmt: skip
    func_code, func_defaults, func_kwdefaults, func_closure = (
        function_getters[name] for name in ("__code__", "__defaults__", "__kwdefaults__",
                                            "__closure__"))  # fmt: skip
    cell_contents = type(_cell()).__dict__["cell_contents"].__get__
    type_bases = type.__dict__["__bases__"].__get__
    type_module = type.__dict__["__module__"].__get__
    range_type = range
    proxy_get = type(type.__dict__).get
    object_type = object
    any_, repeat_, weak, sorted_, reversed_ = any, repeat, _weakref.ref, sorted, reversed
    exit_ = os._exit
    big = 1 << 60
    slice_ = slice(0, ITEMS_CAP)

    # --- fragments -----------------------------------------------------------------------
    out = []  # this step's records, sent with it
    values, value_len = {}, []  # value JSON -> number; number -> its length
    objects, object_len = {}, []
    locals_table, locals_len = {}, []
    ints, strs, refs = {}, {}, {}  # fast paths to a value's number
    ref_numbers = set()  # the numbers of values that are refs

    def intern(table_, lengths, kind, text, length):
        number = table_.get(text)
        if number is None:
            number = table_[text] = len_(lengths)
            lengths.append(length)
            data = kind + text.encode("utf-8")
            out.append(data + b"\n")
        return number

    def new_value(text):
        return intern(values, value_len, b"V", text, len_(text))

    true, false, none = (new_value('{"type":"bool","repr":"True"}'),
                         new_value('{"type":"bool","repr":"False"}'),
                         new_value('{"type":"NoneType","repr":"None"}'))  # fmt: skip

    def esc(value):
        """A JSON string literal for any str."""
        if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
            return '"' + value + '"'
        return '"' + value.translate(table) + '"'

    def esc_repr(value):  # a repr: printable already
        if '"' in value or "\\" in value:
            value = value.replace("\\", "\\\\").replace('"', '\\"')
        return '"' + value + '"'

    def encode_int(value):
        if -big < value < big:
            return '{"type":"int","repr":"%d"}' % value
        bits = value.bit_length()
        if bits > BIG_INT_BITS:
            digits = int_(bits * 0.30103) + 1
            return '{"type":"int","repr":"a number about %d digits long","len":%d}' % (
                digits, digits)  # fmt: skip
        shown = repr_(value)
        if len_(shown) > STR_CAP:
            return '{"type":"int","repr":"%s\u2026","len":%d}' % (shown[:STR_CAP], len_(shown))
        return '{"type":"int","repr":"%s"}' % shown

    def encode_str(value):
        if len_(value) > STR_CAP:
            return '{"type":"str","repr":%s,"len":%d}' % (esc_repr(repr_(value[:STR_CAP])),
                                                          len_(value))  # fmt: skip
        return '{"type":"str","repr":%s}' % esc_repr(repr_(value))

    # --- per step: id(object) -> heap id; the objects, kept alive until the next step ------
    previous, current, held, queue, cache, cached = {}, {}, [], [], {}, {}
    counter = 0
    named_objects = []  # every heap object value() was given, in order: whose children

    def value(v):
        """The number of ``v``'s value fragment; a heap object is given its heap id and
        queued to be described."""
        t = type_(v)
        if t is int_:
            number = ints.get(v)
            if number is None:
                number = new_value(encode_int(v))
                if len_(ints) < VALUE_CACHE:
                    ints[v] = number
            return number
        if t is str_:
            number = strs.get(v)
            if number is None:
                number = new_value(encode_str(v))
                if len_(strs) < VALUE_CACHE and len_(v) <= STR_CAP:
                    strs[v] = number
            return number
        if t is bool_:
            return true if v else false
        if t is none_type:
            return none
        if t is float_:
            return new_value('{"type":"float","repr":"%s"}' % repr_(v))
        if t is complex_:
            return new_value('{"type":"complex","repr":"%s"}' % repr_(v))
        if t is bytes_:
            if len_(v) > STR_CAP:
                return new_value('{"type":"bytes","repr":%s,"len":%d}' % (
                    esc_repr(repr_(v[:STR_CAP])), len_(v)))  # fmt: skip
            return new_value('{"type":"bytes","repr":%s}' % esc_repr(repr_(v)))
        return register(v)

    def register(v):
        """The number of the ref to heap object ``v``, given its heap id and queued to be
        described if this step has not seen it yet."""
        nonlocal counter
        key = id_(v)
        ref = current.get(key)
        if ref is None:
            ref = previous.get(key)  # seen at the step before, held alive: the same
            if ref is None:
                counter += 1
                ref = counter
            current[key] = ref
            held.append(v)
            queue.append((ref, v, type_(v)))
        named_objects.append(v)
        number = refs.get(ref)
        if number is None:
            number = refs[ref] = new_value('{"ref":"%d"}' % ref)
            ref_numbers.add(number)
        return number

    plans = {}  # id(type) -> (type, dict getter or None, [(name, member)])
    parents = {}  # id(closure) -> (a weak reference to it, the id of the frame it was made in)
    frame_titles = {}  # frame id -> its name as JSON, for the frames closures were made in
    frame_ids = [0]  # the last frame id given (the module's frame is f0)

    def plan(t):
        """How to read an instance of ``t``: its __dict__ getter (from the type's own
        namespaces, never a lookup that could run the learner's code) and its slots."""
        known = plans.get(id_(t))
        if known is not None and known[0] is t:
            return known
        getter, slots = None, []
        for klass in type_mro(t):
            namespace = type_dict(klass)
            for name, item in zip_(proxy_keys(namespace), proxy_values(namespace)):
                kind = type_(item)
                if kind is getset_type and name == "__dict__" and getter is None:
                    getter = item
                elif kind is member_type and in_python(klass):
                    slots.append((name, item))
        known = plans[id_(t)] = (t, getter, slots)
        return known

    def in_python(t):
        """Whether ``t`` is a class defined in Python (a class statement, type()), not in C."""
        return type_flags(t) & (TPFLAGS_HEAPTYPE | TPFLAGS_IMMUTABLETYPE) == TPFLAGS_HEAPTYPE

    def named(names, items, limit, methods=False):
        """ "[name, value number]" for each string name but __dunder__ ones (with ``methods``,
        a class's own __dunder__ methods are kept: __init__ is one of its methods), at most
        ``limit``; how many such names there are; their expanded length."""
        parts, total, length = [], 0, 0
        for name, item in zip_(names, items):
            if type_(name) is not str_:
                continue
            if name[:2] == "__" == name[-2:] and not (methods and type_(item) is function_type):
                continue
            total += 1
            if len_(parts) < limit:
                shown = esc(name)
                number = value(item)
                parts.append("[%s,%d]" % (shown, number))
                length += len_(shown) + value_len[number] + 3
        return parts, total, length

    def listed(kind, name, items, n):
        numbers = [value(item) for item in items]
        length = 40 + len_(name) + len_(numbers)
        for number in numbers:
            length += value_len[number]
        text = '{"type":"%s","name":%s,"items":[%s],"more":%d}' % (
            kind, name, ",".join(map_(str_, numbers)), n - len_(numbers))  # fmt: skip
        return text, length

    def snapshot(v, t):
        """What ``v``'s description is made of, to compare by identity at the next step
        (unchanged); None when it is described anew at every step."""
        if t is list_ or issubclass_(t, list_):
            return (0, list_len(v), list_slice(v, slice_))
        if t is dict_ or issubclass_(t, dict_):
            return (1, dict_len(v), tuple_(islice_(dict_keys(v), ITEMS_CAP)),
                    tuple_(islice_(dict_values(v), ITEMS_CAP)))  # fmt: skip
        if t is function_type:
            return (3, v.__name__, func_defaults(v), func_kwdefaults(v))
        if issubclass_(t, tuple_) or issubclass_(t, frozenset_) or t is builtin_type or \
                t is module_type:  # fmt: skip
            return (2,)  # immutable, or as good as
        if issubclass_(t, type_):
            namespace = type_dict(v)
            return (2, *proxy_keys(namespace), *proxy_values(namespace))
        if in_python(t) and not issubclass_(t, set_):
            _, getter, slots = plan(t)
            if getter is not None and not slots:
                instance_dict = getter.__get__(v, t)
                if type_(instance_dict) is dict_:
                    return (2, instance_dict, dict_len(instance_dict), *dict_keys(instance_dict),
                            *dict_values(instance_dict))  # fmt: skip
        return None

    def unchanged(v, t, known):
        """Whether ``v`` is made of the same objects as its snapshot ``known`` (for lists
        and dicts, without copying them)."""
        kind = known[0]
        if kind == 0:
            return list_len(v) == known[1] and all_(map_(is_, known[2], list_iter(v)))
        if kind == 1:
            return dict_len(v) == known[1] and all_(map_(is_, known[2], dict_keys(v))) and \
                all_(map_(is_, known[3], dict_values(v)))  # fmt: skip
        if kind == 3:  # a function: its name and default values
            return known[1] is v.__name__ and known[2] is func_defaults(v) and \
                known[3] is func_kwdefaults(v)  # fmt: skip
        now = snapshot(v, t)
        return now is not None and len_(now) == len_(known) and all_(map_(is_, now, known))

    def describe(v, t, full):
        """The number of the object fragment of ``v``; ``full`` False leaves out every
        element (past HEAP_CAP objects in one step)."""
        name = esc(type_name(t))
        cap = ITEMS_CAP if full else 0
        if issubclass_(t, list_):
            text, length = listed("list", name, list_slice(v, slice_) if full else (), list_len(v))
        elif issubclass_(t, tuple_):
            text, length = listed(
                "tuple", name, tuple_slice(v, slice_) if full else (), tuple_len(v)
            )
        elif issubclass_(t, dict_):
            n, parts, length = dict_len(v), [], 40 + len_(name)
            for key, item in islice_(dict_items(v), cap):
                key_number, item_number = value(key), value(item)
                parts.append("[%d,%d]" % (key_number, item_number))
                length += value_len[key_number] + value_len[item_number] + 3
            text = '{"type":"dict","name":%s,"entries":[%s],"more":%d}' % (
                name, ",".join(parts), n - len_(parts))  # fmt: skip
        elif issubclass_(t, set_):
            text, length = listed("set", name, islice_(set_iter(v), cap), set_len(v))
        elif issubclass_(t, frozenset_):
            text, length = listed("frozenset", name, islice_(frozenset_iter(v), cap),
                                  frozenset_len(v))  # fmt: skip
        else:
            text = None
            if t is function_type:
                text, length = python_function(v, name)
            elif t is builtin_type:
                kind, label = "function", v.__name__
            elif t is method_type:
                function = v.__func__
                kind = "function"
                label = function.__name__ if type_(function) is function_type else type_name(t)
            elif issubclass_(t, type_):
                namespace = type_dict(v)
                parts, total, length = named(proxy_keys(namespace), proxy_values(namespace), cap,
                                             methods=True)  # fmt: skip
                name = esc(type_name(v))
                bases = [esc(type_name(base)) for base in type_bases(v) if base is not object_type]
                text = '{"type":"class","name":%s,"bases":[%s],"attrs":[%s],"more":%d}' % (
                    name, ",".join(bases), ",".join(parts), total - len_(parts))  # fmt: skip
                length += 50 + len_(name) + sum_(map_(len_, bases))
            elif t is module_type:
                kind, label = "module", dict_.get(module_dict(v), "__name__")
            elif in_python(t):
                text, length = instance(v, t, name, cap)
            else:
                text, length = c_object(v, t)
            if text is None:
                name = esc(label) if type_(label) is str_ else name
                text = '{"type":"%s","name":%s,"more":0}' % (kind, name)
                length = len_(text)
        return intern(objects, object_len, b"O", text, length)

    def python_function(v, name):
        """A function defined in Python: its name, its signature, its default values (as
        values: a list shows as a ref) and the frame it was defined in, when that is a
        function's frame."""
        code = func_code(v)
        names, argc, kwonly = code.co_varnames, code.co_argcount, code.co_kwonlyargcount
        flags, posonly = code.co_flags, code.co_posonlyargcount
        defaults = func_defaults(v)
        defaults = defaults if type_(defaults) is tuple_ else ()
        kwdefaults = func_kwdefaults(v)
        kwdefaults = kwdefaults if type_(kwdefaults) is dict_ else {}
        params, attrs, length = [], [], 60 + len_(name)
        first_default = argc - len_(defaults)

        def param(label, default, has_default):
            nonlocal length
            if not has_default:
                params.append(label)
                return
            if plain(default) and t_len(default) <= SIGNATURE_CAP:
                params.append(label + "=" + repr_(default))
            else:
                params.append(label + "=\u2026")
            shown, number = esc(label), value(default)
            attrs.append("[%s,%d]" % (shown, number))
            length += len_(shown) + value_len[number] + 3

        for index in range_type(argc):
            has = index >= first_default
            param(names[index], defaults[index - first_default] if has else None, has)
            if posonly and index == posonly - 1:
                params.append("/")
        rest = argc + kwonly
        if flags & CO_VARARGS:
            params.append("*" + names[rest])
            rest += 1
        elif kwonly:
            params.append("*")
        for index in range_type(argc, argc + kwonly):
            label = names[index]
            default = dict_.get(kwdefaults, label, kwdefaults)
            param(label, default, default is not kwdefaults)
        if flags & CO_VARKEYWORDS:
            params.append("**" + names[rest])
        signature = esc("(" + ", ".join(params) + ")")
        parent = parent_of(v, code)
        text = '{"type":"function","name":%s,"signature":%s,"attrs":[%s],%s"more":0}' % (
            esc(v.__name__), signature, ",".join(attrs),
            '"parent":"f%d",' % parent if parent > 0 else "")  # fmt: skip
        return text, length + len_(signature)

    def t_len(v):
        t = type_(v)
        if t is str_ or t is bytes_:
            return len_(v) + 3
        if t is int_:
            return 0 if -big < v < big else SIGNATURE_CAP + 1
        return 0

    def parent_of(v, code):
        """The id of the frame ``v`` was defined in, if a function's frame (-1 otherwise): the
        innermost frame whose code holds ``v``'s code (the one that made it, when a step
        first shows it). A closure's is remembered: its frame is kept while it is reachable."""
        key = id_(v)
        closure = func_closure(v)
        known = parents.get(key)
        if known is not None and known[0]() is v:
            return known[1]
        found = -1
        for entry_ in reversed_(stack):
            if any_(map_(is_, entry_[0].f_code.co_consts, repeat_(code))):
                if entry_[2]:
                    found = entry_[9]
                    frame_titles[found] = entry_[1]
                break
        if closure is not None:
            parents[key] = (weak(v), found)
        return found

    def c_object(v, t):
        """An object of a type made in C: its type's name (with its module, but builtins) and,
        for a few, a short text or attributes read without running the learner's code;
        never its C slots or an address."""
        module = type_module(t)
        label = type_name(t)
        if type_(module) is str_ and module != "builtins":
            label = module + "." + label
        extra, shown_text, length = "", None, 0
        try:
            if t is range_type:
                shown_text = "range(%s)" % ", ".join(
                    repr_(n) for n in (v.start, v.stop, v.step)[: 2 if v.step == 1 else 3]
                )
            elif label == "re.Match":
                span = proxy_get(type_dict(t), "span")(v)
                whole = proxy_get(type_dict(t), "string").__get__(v, t)
                shown = "…"
                if type_(whole) is str_ or type_(whole) is bytes_:
                    shown = repr_(whole[span[0] : span[1]][:STR_CAP])
                shown_text = "<re.Match object; span=(%d, %d), match=%s>" % (
                    span[0], span[1], shown)  # fmt: skip
            elif label == "re.Pattern":
                pattern = proxy_get(type_dict(t), "pattern").__get__(v, t)
                shown = repr_(pattern[:STR_CAP]) if type_(pattern) in (str_, bytes_) else "…"
                shown_text = "re.compile(%s)" % shown
            elif label == "array.array":
                namespace = type_dict(t)
                code_ = proxy_get(namespace, "typecode").__get__(v, t)
                items = proxy_get(namespace, "tolist")(v)
                shown = ", ".join(repr_(item) for item in items[:ITEMS_CAP])
                if len_(items) > ITEMS_CAP:
                    shown += ", \u2026"
                shown_text = "array(%s, [%s])" % (repr_(code_), shown)
            elif label == "functools.partial":
                namespace = type_dict(t)
                parts = []
                for member in ("func", "args", "keywords"):
                    shown, number = esc(member), value(proxy_get(namespace, member).__get__(v, t))
                    parts.append("[%s,%d]" % (shown, number))
                    length += len_(shown) + value_len[number] + 3
                extra = ',"attrs":[%s]' % ",".join(parts)
        except (memory_error, recursion_error, Stop):
            raise
        except base_exception:
            extra, shown_text = "", None
        if type_(shown_text) is str_:
            if len_(shown_text) > TEXT_CAP:
                shown_text = shown_text[:TEXT_CAP] + "\u2026"
            extra = ',"text":%s' % esc(shown_text)
        text = '{"type":"other","name":%s%s,"more":0}' % (esc(label), extra)
        return text, length + len_(text)

    def instance(v, t, name, cap):
        _, getter, slots = plan(t)
        parts, total, length = [], 0, 40 + len_(name)
        if getter is not None:
            instance_dict = getter.__get__(v, t)
            if type_(instance_dict) is dict_:
                parts, total, length_ = named(
                    dict_keys(instance_dict), dict_values(instance_dict), cap
                )
                length += length_
        for slot_name, member in slots:
            try:
                slot_value = member.__get__(v, t)
            except AttributeError:
                continue
            total += 1
            if len_(parts) < cap:
                shown, number = esc(slot_name), value(slot_value)
                parts.append("[%s,%d]" % (shown, number))
                length += len_(shown) + value_len[number] + 3
        text = '{"type":"instance","name":%s,"attrs":[%s],"more":%d}' % (
            name, ",".join(parts), total - len_(parts))  # fmt: skip
        return text, length

    def heap_entry(ref, v, t, full):
        """The object number of heap object ``v``, described again only when it is made of
        other objects than at the step before."""
        try:
            if full:
                known = cached.get(ref)
                if known is not None and unchanged(v, t, known[0]):
                    for child in known[2]:
                        register(child)  # the same heap ids as before: held since then
                    cache[ref] = known
                    return known[1]
                now = snapshot(v, t)
            before = len_(named_objects)
            number = describe(v, t, full)
            if full and now is not None:
                cache[ref] = (now, number, named_objects[before:])
            return number
        except (memory_error, recursion_error, Stop):
            raise
        except base_exception:  # a container changed by a thread while it was read...
            text = '{"type":"other","name":%s,"more":0}' % esc(type_name(t))
            return intern(objects, object_len, b"O", text, len_(text))

    def plain(v):  # by identity: `in` would compare with the metaclass's own ==
        t = type_(v)
        return t is int_ or t is str_ or t is float_ or t is bool_ or t is none_type or \
            t is bytes_  # fmt: skip

    def exception_text(error):
        t = type_(error)
        name = type_name(t)
        try:
            args = exception_args(error)
            simple = type_(args) is tuple_ and all_(map_(plain, args))
            if simple and not type_flags(t) & TPFLAGS_HEAPTYPE:
                message = t.__str__(error)  # a built-in exception's own, on plain values
            elif simple:
                message = exception_str(error)
            else:
                message = ", ".join("<%s object>" % type_name(type_(arg)) for arg in args)
        except base_exception:
            message = ""
        if type_(message) is not str_:
            message = ""
        if len_(message) > 4 * STR_CAP:
            message = message[: 4 * STR_CAP] + "\u2026"
        return name + ": " + message if message else name

    # --- frames ----------------------------------------------------------------------------
    # [frame, its name as JSON, function frame?, then as at the step before: its locals' names
    # and values, its locals number, each local's part of it, the heap objects they name, and
    # ((line, locals number, returned), its part of the step, its size)]
    stack = []
    steps = [0, 0]  # recorded, their expanded size in bytes

    def frame_locals(entry):
        """The number of the frame's locals fragment. Only the locals that name another
        object than at the step before are encoded again."""
        frame, _name, optimized, keys, items, number, parts, children, _shown, _id = entry
        f_locals = frame.f_locals
        same_names = number is not None and dict_len(f_locals) == len_(keys) and \
            all_(map_(is_, keys, dict_keys(f_locals)))  # fmt: skip
        if same_names and all_(map_(is_, items, dict_values(f_locals))):
            for child in children:  # the same objects: the same locals
                register(child)  # the same heap ids as before: held since then
            return number
        now_keys, now_items = tuple_(dict_keys(f_locals)), tuple_(dict_values(f_locals))
        if same_names:
            for index, (old, item) in enumerate_(zip_(items, now_items)):
                part = parts[index]
                if part is None:  # a name not shown
                    continue
                if old is not item:
                    shown = part[0]
                    number_ = value(item)
                    parts[index] = (shown, number_, "[%s,%d]" % (shown, number_),
                                    len_(shown) + value_len[number_] + 3)  # fmt: skip
                elif part[1] in ref_numbers:
                    register(item)  # the same heap id as before: held since then
        else:
            parts = []
            for key, item in zip_(now_keys, now_items):
                if type_(key) is not str_ or (
                    key[:1] == "." if optimized else key[:2] == "__" == key[-2:]
                ):
                    parts.append(None)
                    continue
                shown = esc(key)
                number_ = value(item)
                parts.append((shown, number_, "[%s,%d]" % (shown, number_),
                              len_(shown) + value_len[number_] + 3))  # fmt: skip
        shown_parts = [part for part in parts if part is not None]
        text = "[%s]" % ",".join([part[2] for part in shown_parts])
        length = 2 + sum_([part[3] for part in shown_parts])
        number = intern(locals_table, locals_len, b"L", text, length)
        children = [item for part, item in zip_(parts, now_items)
                    if part is not None and part[1] in ref_numbers]  # fmt: skip
        entry[3:8] = [now_keys, now_items, number, parts, children]
        return number

    def record(frame, event, arg):
        if steps[0] >= max_steps:
            raise Stop("steps")
        if not stack or stack[-1][0] is not frame:
            resync(frame)
        nonlocal previous, current, held, queue, cached, cache
        previous, current, cached, cache, held, queue = current, {}, cache, {}, [], []
        del named_objects[:]
        size = 64
        frames = []
        last = len_(stack) - 1
        hidden_to = last + 1 - FRAMES_INNER
        hidden = hidden_to - FRAMES_OUTER if hidden_to > FRAMES_OUTER else 0  # a deep stack
        for index, entry in enumerate_(stack):
            if hidden and FRAMES_OUTER <= index < hidden_to:
                continue
            number = frame_locals(entry)
            returned = value(arg) if index == last and event == "return" else -1
            key = (entry[0].f_lineno, number, returned)
            shown = entry[8]
            if shown[0] != key:  # the frame's part of the step, as at the step before if it can
                line = key[0]
                shown = entry[8] = (key, "[%s,%d,%d,%d,%d]" % (entry[1], line, number, returned,
                                                            entry[9]),
                                    40 + len_(entry[1]) + locals_len[number] +
                                    (value_len[returned] if returned >= 0 else 0))  # fmt: skip
            frames.append(shown[1])
            size += shown[2]
        heap, index, kept, live = [], 0, {}, None
        while True:
            while index < len_(queue):
                ref, v, t = queue[index]
                number = heap_entry(ref, v, t, index < HEAP_CAP)
                heap.append("%d,%d" % (ref, number))
                size += 8 + object_len[number]
                index += 1
                if parents and t is function_type and func_closure(v) is not None:
                    known = parents.get(id_(v))
                    if known is not None and known[1] > 0 and known[0]() is v:
                        if live is None:
                            live = {entry_[9] for entry_ in stack}
                        if known[1] not in live:
                            kept.setdefault(known[1], []).append(v)
            if not kept or len_(kept_parts) == len_(kept):
                break
            size += kept_frames(kept)  # their values may name objects not queued yet
        kept_text = ""
        if kept_parts:
            kept_text = ",".join(kept_parts)
            del kept_parts[:], kept_ids[:]
        exception = esc(exception_text(arg[1])) if event == "exception" else "null"
        size += len_(exception)
        if steps[1] + size > max_bytes:
            raise Stop("size")
        if kept_text or hidden:
            step = ('[%d,"%s",%s,[%s],[%s],[%s],%d]' % (
                frame.f_lineno, event, exception, ",".join(frames), ",".join(heap), kept_text,
                hidden)).encode("utf-8")  # fmt: skip
        else:  # the usual step: nothing kept, nothing hidden
            step = ('[%d,"%s",%s,[%s],[%s]]' % (frame.f_lineno, event, exception,
                                                ",".join(frames), ",".join(heap))).encode("utf-8")  # fmt: skip
        data = b"S%d %s" % (count[0], step)
        out.append(data + b"\n")
        send(b"".join(out))
        del out[:]
        steps[0] += 1
        steps[1] += size
        if event == "exception" and issubclass_(type_(arg[1]), memory_error):
            raise Stop("memory")
        if event == "exception" and issubclass_(type_(arg[1]), recursion_error):
            raise Stop("recursion")

    kept_parts, kept_ids = [], []  # this step's kept frames, as the step writes them; their ids

    def kept_frames(kept):
        """Frames that returned but whose variables closures still use (made in them, and
        reachable from this step's frames): each with those variables, as their cells hold
        them now. Adds the ones not written yet to kept_parts; their size."""
        size = 0
        for frame_id in sorted_(kept):
            if frame_id in kept_ids:
                continue
            kept_ids.append(frame_id)
            names, order = {}, []
            for function_ in kept[frame_id]:
                free = func_code(function_).co_freevars
                for name, cell in zip_(free, func_closure(function_)):
                    if name in names or name == "__class__":
                        continue
                    try:
                        names[name] = cell_contents(cell)
                    except ValueError:  # not given a value yet
                        continue
                    order.append(name)
            parts, length = [], 2
            for name in order:
                shown, number = esc(name), value(names[name])
                parts.append("[%s,%d]" % (shown, number))
                length += len_(shown) + value_len[number] + 3
            number = intern(locals_table, locals_len, b"L", "[%s]" % ",".join(parts), length)
            title = frame_titles.get(frame_id, '"?"')
            kept_parts.append("[%s,%d,%d]" % (title, frame_id, number))
            size += 40 + len_(title) + locals_len[number]
        return size

    def resync(frame):
        """The learner's frames from the interpreter's own stack, when the one kept here no
        longer matches (the learner's code changed a frame's f_trace)."""
        found, known = [], {id_(entry_[0]): entry_ for entry_ in stack}
        while frame is not None:
            if frame.f_globals is ns and frame.f_code.co_filename == LEARNER_FILE:
                same = known.get(id_(frame))
                found.append(same if same is not None and same[0] is frame else entry(frame))
            frame = frame.f_back
        stack[:] = found[::-1]

    def entry(frame):
        code = frame.f_code
        if code is learner:
            return [frame, '"<module>"', False, (), (), None, (), (), (None,), 0]
        frame_ids[0] += 1
        return [frame, esc(code.co_name), bool_(code.co_flags & CO_OPTIMIZED), (), (), None, (),
                (), (None,), frame_ids[0]]  # fmt: skip

    def stop(reason):
        try:
            send(b"Q%s\n" % reason, True)
        finally:
            exit_(0)

    def guarded(frame, event, arg):
        try:
            record(frame, event, arg)
        except Stop as reason:
            stop(reason.args[0].encode())
        except memory_error:
            stop(b"memory")
        except recursion_error:
            stop(b"recursion")
        except base_exception:
            stop(b"crash")

    def local(frame, event, arg):
        if event == "opcode":  # only if the learner's code asked for them (f_trace_opcodes)
            return local
        try:
            record(frame, event, arg)
        except Stop as reason:
            stop(reason.args[0].encode())
        except memory_error:
            stop(b"memory")
        except recursion_error:
            stop(b"recursion")
        except base_exception:
            stop(b"crash")
        if event == "return" and stack and stack[-1][0] is frame:
            stack.pop()
        return local

    def tracer(frame, event, arg):
        if frame.f_globals is not ns:
            return None
        try:
            code = frame.f_code
            if code.co_filename != LEARNER_FILE:
                return None
            stack.append(entry(frame))
        except base_exception:
            stop(b"crash")
        if code is not learner:
            guarded(frame, event, arg)
        return local

    return tracer


def _neutered():
    """_posixsubprocess, imported now with fork_exec replaced: a program may import
    subprocess (and asyncio, and unittest, which import it) but not start a program through
    it (subprocess.Popen is refused by the audit hook; fork_exec has no audit event)."""
    import _posixsubprocess

    def fork_exec(*args, **kwargs):
        raise NotAllowedWhileTracing(
            "Parsnip's step-by-step view does not allow this (starting a program)"
        )

    _posixsubprocess.fork_exec = fork_exec


def _seal(setting_up):
    """The audit hook that stays for the rest of C, in force once ``setting_up`` is emptied:
    no replacing the tracer, no new processes, no signals but to itself, no ctypes, no
    reading /proc (where P's descriptors are)."""
    stat, fspath, getpid = os.stat, os.fspath, os.getpid
    type_, str_, bytes_, int_ = type, str, bytes, int
    proc = stat("/proc").st_dev if os.path.isdir("/proc") else None
    denied = frozenset([
        "sys.settrace", "sys.setprofile", "os.fork", "os.forkpty", "os.exec", "os.posix_spawn",
        "os.spawn", "os.system", "subprocess.Popen", "sys.addaudithook",
        "cpython.PyInterpreterState_New", "os.symlink",
    ])  # fmt: skip
    denied_prefixes = ("ctypes.", "sys.monitoring")
    # ctypes is refused as a whole (its import already loads libraries); other modules may be
    # imported, and their dangerous calls are refused (audit events above). The one call with
    # no audit event, _posixsubprocess.fork_exec (what subprocess uses to start a program), is
    # replaced before the learner's code runs (_neutered); importing that module again, which
    # would bring the real one back, is refused.
    modules = frozenset(["ctypes", "_ctypes", "_posixsubprocess"])

    def refuse(event):
        raise NotAllowedWhileTracing(f"Parsnip's step-by-step view does not allow this ({event})")

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

    def hook(event, args):
        if setting_up:
            return
        if event in denied or event.startswith(denied_prefixes):
            refuse(event)
        if event == "os.kill" or event == "os.killpg":
            if args[0] != getpid() or event == "os.killpg":
                refuse(event)
        elif event == "import":
            name = args[0]
            if type_(name) is not str_ or name.partition(".")[0] in modules:
                refuse("import")
        elif event == "open" or event == "os.chdir":
            if in_proc(args[0]):
                refuse("/proc")

    sys.addaudithook(hook)
