# ruff: noqa: UP031 -- JSON is written with %-formatting: braces stay readable, and it is fast
"""The tracing harness: the program tutor.sandbox.tracing runs in the sandbox.

Compiled once per worker by the sandbox's own interpreter and sent as bytecode at the head
of stdin behind a bootstrap (tracing.BOOTSTRAP), as the grading harness is. ``main`` then
reads its job from the rest of stdin (the run's nonce, the learner's code, its input and the
caps), and writes one report to stdout framed with the nonce. docs/tracing.md says why it is
built this way. Two processes:

  P  this one: forks C before it reads anything, then reads the job, compiles the learner's
     code (a syntax error ends it here), sends C the code and its input, reads C's steps and
     output under their caps, stops C when its time is up, and writes the report. It never
     runs learner code; only P holds the run's stdout.
  C  runs the learner's code under sys.settrace, recording a step for each line, call,
     return and exception of the learner's own frames ("main.py"), and sends each step to P
     as soon as it is recorded (so a crash or os._exit loses nothing recorded). Its stdout
     and stderr are a pipe to P. It seals itself with an audit hook (no replacing the
     tracer, no new processes, no /proc, no signals to P) before the learner's code runs.

Objects are read without running learner code: no repr, str, ==, hash or attribute lookup
on the learner's objects; an instance's attributes are read through the type's own
``__dict__`` and slot descriptors. It must stay runnable by any Python 3.9+ and import only
built-in modules: its start-up time is paid by every trace.
"""

import _io
import gc
import marshal
import os
import select
import sys
from itertools import islice
from time import monotonic

LEARNER_FILE = "main.py"
STR_CAP = 100  # characters of a string (or bytes) shown; longer ones carry "len"
ITEMS_CAP = 50  # elements of a container (or attributes) shown; the rest are counted in "more"
HEAP_CAP = 200  # objects described in full per step; further ones are summarised (items left out)
DEPTH_CAP = 100  # learner frames on the stack: deeper, the trace stops ("recursion")
BIG_INT_BITS = 13000  # past this, an int is not converted to decimal (3.11 refuses 4300 digits)
INT_CACHE = 4096  # encodings of ints and short strings remembered across steps
END_WAIT = 2.0  # seconds P waits for C to go once it has stopped it
SLACK = 1 << 16  # bytes beyond the size cap before P stops C itself (C stops itself first)

CO_OPTIMIZED = 0x1
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
    channel_r, channel_w = os.pipe()  # C's steps
    output_r, output_w = os.pipe()  # C's stdout and stderr
    job_r, job_w = os.pipe()
    kit = _kit()
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        for fd in (channel_r, output_r, job_w):
            os.close(fd)
        child(job_r, channel_w, output_w, kit)  # never returns
    for fd in (channel_w, output_w, job_r):
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
    report = watch(pid, channel_r, output_r, budget_ms / 1000, output_cap, max_bytes, cpu_seconds)
    _write_report(nonce, report)


def _write_report(nonce, report):
    framed = nonce + b"\n" + pack(report) + b"\n" + nonce
    _write_all(1, framed)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


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
    """What C printed (stdout and stderr, one pipe), up to the cap, and how many characters
    its first n bytes make: steps carry byte counts, the trace carries characters."""

    def __init__(self, fd, cap):
        self.fd, self.cap = fd, cap
        self.data = bytearray()
        self.flooded = False
        self.open = True
        self.decoded_bytes = 0  # how much of data is counted in chars
        self.chars = 0
        from _codecs import utf_8_decode

        self.decode = utf_8_decode

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

    def drain(self):
        while self.open and not self.flooded:
            before = len(self.data)
            if not self.read() or len(self.data) == before:
                return

    def chars_at(self, count):
        """The number of characters in the first ``count`` bytes printed."""
        if count > len(self.data):
            self.drain()
            count = min(count, len(self.data))
        if count > self.decoded_bytes:
            chunk = bytes(self.data[self.decoded_bytes : count])
            decoded, used = self.decode(chunk, "replace", False)
            self.chars += len(decoded)
            self.decoded_bytes += used
        return self.chars

    def text(self):
        return text(bytes(self.data))


def watch(pid, channel, output_fd, budget, output_cap, max_bytes, cpu_seconds):
    """Collect C's steps and output until C is done or must be stopped; the report:
    [b"trace", stop reason, detail, stdout, step...]."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        pidfd = -1
    os.set_blocking(output_fd, False)
    output = Output(output_fd, output_cap)
    poller = select.poll()
    for fd in (channel, output_fd, pidfd):
        if fd >= 0:
            poller.register(fd, select.POLLIN)
    steps, size, pending = [], 0, b""
    reason, ended, killed = b"", False, False
    channel_open, alive = True, pidfd >= 0
    deadline = monotonic() + budget
    while channel_open or output.open or alive:
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
            if fd == channel:
                data = os.read(channel, 1 << 16)
                if not data:
                    channel_open = False
                    poller.unregister(channel)
                    continue
                pending += data
                records, pending = _records(pending)
                if records is None:  # not a record: something wrote on the tracer's pipe
                    reason, records = reason or b"crash", []
                    pending = b""
                for record in records:
                    kind = record[:1]
                    if kind == b"S" and not reason:
                        count, _, step = record[1:].partition(b" ")
                        if step[:1] != b"{" or not count.isdigit():
                            reason = b"crash"
                            continue
                        step = b'{"stdout_len":%d,' % output.chars_at(int(count)) + step[1:]
                        size += len(step)
                        if size > max_bytes + SLACK:
                            reason = b"size"
                            continue
                        steps.append(step)
                    elif kind == b"Q" and not reason:
                        reason = record[1:16]
                    elif kind == b"E":
                        ended = True
                if reason and not killed:
                    _kill(pid)
                    killed = True
                    deadline = min(deadline, monotonic() + END_WAIT)
            elif fd == output_fd:
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
    status, cpu = _reap(pid)
    if not reason and not ended:
        reason = b"time" if killed or cpu >= cpu_seconds - 0.05 else _why_it_ended(status)
    detail = b"" if status is None else b"%d" % status
    return [b"trace", reason, detail, output.text(), *steps]


def _records(data):
    """The complete records at the head of ``data`` and what is left; None when ``data``
    does not hold records."""
    records, position = [], 0
    try:
        while True:
            colon = data.find(b":", position, position + 12)
            if colon < 0:
                if len(data) - position >= 12:
                    return None, b""
                break
            length = data[position:colon]
            if not length.isdigit():
                return None, b""
            end = colon + 1 + int(length)
            if end > len(data):
                break
            records.append(data[colon + 1 : end])
            position = end
    except ValueError:
        return None, b""
    return records, data[position:]


def _reap(pid):
    """C's wait status (None if unknown) and the CPU seconds it used."""
    try:
        _, status, usage = os.wait4(pid, 0)
        return status, usage.ru_utime + usage.ru_stime
    except OSError:
        return None, 0.0


def _why_it_ended(status):
    """C ended without saying the program was over: why, as far as P can tell."""
    if status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == 24:
        return b"time"  # SIGXCPU: its CPU time ran out
    if status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9:
        return b"memory"  # killed, not by P: the memory cgroup's OOM killer
    return b"crash"


# --- C ------------------------------------------------------------------------------------
class NotAllowedWhileTracing(RuntimeError):
    """What the audit hook raises: the learner's code tried something tracing forbids."""


NotAllowedWhileTracing.__module__ = "builtins"


class _Probe:
    def method(self):
        pass


class Stop(BaseException):
    """Raised inside the tracer to end the trace (never reaches learner code)."""


def _kit():
    """What C needs, made before the fork: the escaping table and the type tests."""
    table = {code: "\\u%04x" % code for code in range(32)}
    table.update({ord('"'): '\\"', ord("\\"): "\\\\"})
    table.update({code: "\ufffd" for code in range(0xD800, 0xE000)})
    return {"table": table}


def child(job_r, channel_w, output_w, kit):
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
        os.closerange(3, channel_w)
        os.closerange(channel_w + 1, 1 << 16)
        run(marshal.loads(code), channel_w, int(max_steps), int(max_bytes), kit)
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


def run(learner, channel, max_steps, max_bytes, kit):
    """Run the learner's code under the tracer; send "E" when it is over."""
    module = type(sys)("__main__")
    ns = module.__dict__
    ns.update(__builtins__=sys.modules["builtins"], __spec__=None, __package__=None,
              __file__=LEARNER_FILE)  # fmt: skip
    sys.modules["__main__"] = module
    sys.argv = [LEARNER_FILE]
    count = [0]
    _streams(count)
    send = _sender(channel)
    tracer = _tracer(ns, learner, send, count, max_steps, max_bytes, kit["table"])
    setting_up = [True]
    _seal(setting_up)
    del kit
    sys.settrace(tracer)
    del setting_up[:]
    try:
        exec(learner, ns)
    except BaseException:  # noqa: S110 -- its exception steps are recorded already
        pass
    _finish()
    send(b"E")
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


def _sender(fd):
    write = os.write

    def send(record):
        data = memoryview(b"%d:%s" % (len(record), record))
        while data:
            data = data[write(fd, data) :]

    return send


def _tracer(ns, learner, send, count, max_steps, max_bytes, table):
    """The trace function, and everything it needs bound before the learner's code runs."""
    type_, int_, str_, bool_, float_, complex_, bytes_ = type, int, str, bool, float, complex, bytes
    none_type = type(None)
    list_, tuple_, set_, frozenset_, dict_ = list, tuple, set, frozenset, dict
    len_, repr_, id_, issubclass_, islice_ = len, repr, id, issubclass, islice
    list_len, list_slice = list.__len__, list.__getitem__
    tuple_len, tuple_slice = tuple.__len__, tuple.__getitem__
    set_len, set_iter, frozenset_len, frozenset_iter = set.__len__, set.__iter__, \
        frozenset.__len__, frozenset.__iter__  # fmt: skip
    dict_len, dict_items = dict.__len__, dict.items
    type_name = type.__dict__["__name__"].__get__
    type_dict = type.__dict__["__dict__"].__get__
    type_mro = type.__dict__["__mro__"].__get__
    type_flags = type.__dict__["__flags__"].__get__
    function_type = type(_finish)
    builtin_type = type(len)
    method_type = type(_Probe().method)
    module_type = type(sys)
    getset_type = type(type.__dict__["__name__"])
    member_type = type(type.__dict__["__dictoffset__"])
    base_exception = BaseException
    exception_str = BaseException.__str__
    exception_args = BaseException.__dict__["args"].__get__
    memory_error, recursion_error = MemoryError, RecursionError
    exit_ = os._exit
    big = 1 << 60
    slice_ = slice(0, ITEMS_CAP)

    true = '{"type":"bool","repr":"True"}'
    false = '{"type":"bool","repr":"False"}'
    none = '{"type":"NoneType","repr":"None"}'
    ints, strs = {}, {}
    plans = {}  # id(type) -> (type, dict getter or None, [(name, member)])

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
            return '{"type":"int","repr":"%s","len":%d}' % (
                "a number about %d digits long" % digits, digits)  # fmt: skip
        shown = repr_(value)
        if len_(shown) > STR_CAP:
            return '{"type":"int","repr":"%s\u2026","len":%d}' % (shown[:STR_CAP], len_(shown))
        return '{"type":"int","repr":"%s"}' % shown

    def encode_str(value):
        if len_(value) > STR_CAP:
            return '{"type":"str","repr":%s,"len":%d}' % (esc_repr(repr_(value[:STR_CAP])),
                                                          len_(value))  # fmt: skip
        return '{"type":"str","repr":%s}' % esc_repr(repr_(value))

    # per step: id(object) -> heap id, the objects (kept alive until the next step), queue
    state = {"previous": {}, "current": {}, "held": [], "queue": [], "counter": 0}

    def value(v):
        t = type_(v)
        if t is int_:
            s = ints.get(v)
            if s is None:
                s = encode_int(v)
                if len_(ints) < INT_CACHE:
                    ints[v] = s
            return s
        if t is str_:
            s = strs.get(v)
            if s is None:
                s = encode_str(v)
                if len_(strs) < INT_CACHE and len_(v) <= STR_CAP:
                    strs[v] = s
            return s
        if t is bool_:
            return true if v else false
        if t is none_type:
            return none
        if t is float_:
            return '{"type":"float","repr":"%s"}' % repr_(v)
        if t is complex_:
            return '{"type":"complex","repr":"%s"}' % repr_(v)
        if t is bytes_:
            if len_(v) > STR_CAP:
                return '{"type":"bytes","repr":%s,"len":%d}' % (esc_repr(repr_(v[:STR_CAP])),
                                                                len_(v))  # fmt: skip
            return '{"type":"bytes","repr":%s}' % esc_repr(repr_(v))
        key = id_(v)
        current = state["current"]
        ref = current.get(key)
        if ref is None:
            ref = state["previous"].get(key)  # seen in the step before, held alive: the same
            if ref is None:
                state["counter"] += 1
                ref = "%d" % state["counter"]
            current[key] = ref
            state["held"].append(v)
            state["queue"].append((ref, v, t))
        return '{"ref":"%s"}' % ref

    def plan(t):
        """How to read an instance of ``t``: its __dict__ getter (from the type's own
        namespaces, never a lookup that could run the learner's code) and its slots."""
        known = plans.get(id_(t))
        if known is not None and known[0] is t:
            return known
        getter, slots = None, []
        for klass in type_mro(t):
            namespace = type_dict(klass)
            for name, item in dict_items(namespace):
                kind = type_(item)
                if kind is getset_type and name == "__dict__" and getter is None:
                    getter = item
                elif kind is member_type and type_flags(klass) & TPFLAGS_HEAPTYPE:
                    slots.append((name, item))
        known = plans[id_(t)] = (t, getter, slots)
        return known

    def pairs(items, limit):
        """[[name, value], ...] for string-keyed items, at most ``limit`` of them."""
        parts = []
        for name, item in items:
            if type_(name) is not str_ or name[:2] == "__" == name[-2:]:
                continue
            if len_(parts) >= limit:
                break
            parts.append("[%s,%s]" % (esc(name), value(item)))
        return parts

    def describe(v, t, full):
        """The heap entry of one object; ``full`` False leaves every element out."""
        name = esc(type_name(t))
        cap = ITEMS_CAP if full else 0
        if issubclass_(t, list_):
            n = list_len(v)
            items = [value(item) for item in list_slice(v, slice_)] if full else []
            return '{"type":"list","name":%s,"items":[%s],"more":%d}' % (
                name, ",".join(items), n - len_(items))  # fmt: skip
        if issubclass_(t, tuple_):
            n = tuple_len(v)
            items = [value(item) for item in tuple_slice(v, slice_)] if full else []
            return '{"type":"tuple","name":%s,"items":[%s],"more":%d}' % (
                name, ",".join(items), n - len_(items))  # fmt: skip
        if issubclass_(t, dict_):
            n = dict_len(v)
            entries = ["[%s,%s]" % (value(key), value(item))
                       for key, item in islice_(dict_items(v), cap)]  # fmt: skip
            return '{"type":"dict","name":%s,"entries":[%s],"more":%d}' % (
                name, ",".join(entries), n - len_(entries))  # fmt: skip
        if issubclass_(t, set_) or issubclass_(t, frozenset_):
            if issubclass_(t, set_):
                kind, n, iterator = "set", set_len(v), set_iter(v)
            else:
                kind, n, iterator = "frozenset", frozenset_len(v), frozenset_iter(v)
            items = [value(item) for item in islice_(iterator, cap)]
            return '{"type":"%s","name":%s,"items":[%s],"more":%d}' % (
                kind, name, ",".join(items), n - len_(items))  # fmt: skip
        if t is function_type or t is builtin_type:
            return '{"type":"function","name":%s,"more":0}' % esc(v.__name__)
        if t is method_type:
            function = v.__func__
            label = function.__name__ if type_(function) is function_type else type_name(t)
            return '{"type":"function","name":%s,"more":0}' % esc(label)
        if issubclass_(t, type_):
            namespace = type_dict(v)
            attrs = pairs(dict_items(namespace), cap)
            shown = sum(1 for key in namespace if type_(key) is str_ and
                        not (key[:2] == "__" == key[-2:]))  # fmt: skip
            return '{"type":"class","name":%s,"attrs":[%s],"more":%d}' % (
                esc(type_name(v)), ",".join(attrs), shown - len_(attrs))  # fmt: skip
        if t is module_type:
            module_name = dict_.get(type_dict(module_type)["__dict__"].__get__(v), "__name__")
            if type_(module_name) is not str_:
                module_name = "module"
            return '{"type":"module","name":%s,"more":0}' % esc(module_name)
        if type_flags(t) & TPFLAGS_HEAPTYPE:
            _, getter, slots = plan(t)
            attrs, total = [], 0
            if getter is not None:
                instance_dict = getter.__get__(v, t)
                if type_(instance_dict) is dict_:
                    total = dict_len(instance_dict)
                    attrs = pairs(dict_items(instance_dict), cap)
            for slot_name, member in slots:
                try:
                    slot_value = member.__get__(v, t)
                except AttributeError:
                    continue
                total += 1
                if len_(attrs) < cap:
                    attrs.append("[%s,%s]" % (esc(slot_name), value(slot_value)))
            return '{"type":"instance","name":%s,"attrs":[%s],"more":%d}' % (
                name, ",".join(attrs), total - len_(attrs))  # fmt: skip
        return '{"type":"other","name":%s,"more":0}' % name

    def exception_text(error):
        t = type_(error)
        name = type_name(t)
        try:
            args = exception_args(error)
            simple = type_(args) is tuple_ and all(
                type_(arg) in (int_, str_, float_, bool_, none_type, bytes_) for arg in args
            )
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

    stack = []  # [frame, its name as JSON, is it a function frame]
    steps = [0, 0]  # recorded, bytes

    def frames_json(event, arg):
        parts = []
        last = len_(stack) - 1
        for index, (frame, name, optimized) in enumerate(stack):
            if optimized:
                items = [
                    "[%s,%s]" % (esc(key), value(item))
                    for key, item in dict_items(frame.f_locals)
                    if type_(key) is str_ and key[:1] != "."
                ]
            else:
                items = pairs(dict_items(frame.f_locals), 1 << 30)
            returned = ',"returned":%s' % value(arg) if index == last and event == "return" else ""
            parts.append('{"function":%s,"line":%d,"locals":[%s]%s}' % (
                name, frame.f_lineno, ",".join(items), returned))  # fmt: skip
        return ",".join(parts)

    def record(frame, event, arg):
        if steps[0] >= max_steps:
            raise Stop("steps")
        if not stack or stack[-1][0] is not frame:
            resync(frame)
        state["previous"], state["current"] = state["current"], {}
        state["held"], state["queue"] = [], []
        frames = frames_json(event, arg)
        queue, heap, index = state["queue"], [], 0
        while index < len_(queue):
            ref, v, t = queue[index]
            heap.append('"%s":%s' % (ref, describe(v, t, index < HEAP_CAP)))
            index += 1
        exception = esc(exception_text(arg[1])) if event == "exception" else "null"
        step = ('{"line":%d,"event":"%s","frames":[%s],"heap":{%s},"exception":%s}' % (
            frame.f_lineno, event, frames, ",".join(heap), exception)).encode("utf-8")  # fmt: skip
        if steps[1] + len_(step) + 32 > max_bytes:
            raise Stop("size")
        send(b"S%d %s" % (count[0], step))
        steps[0] += 1
        steps[1] += len_(step) + 32
        if event == "exception" and issubclass_(type_(arg[1]), memory_error):
            raise Stop("memory")
        if event == "exception" and issubclass_(type_(arg[1]), recursion_error):
            raise Stop("recursion")

    def resync(frame):
        """The learner's frames from the interpreter's own stack, when the one kept here no
        longer matches (the learner's code changed a frame's f_trace)."""
        found = []
        while frame is not None:
            if frame.f_globals is ns and frame.f_code.co_filename == LEARNER_FILE:
                found.append(entry(frame))
            frame = frame.f_back
        stack[:] = found[::-1]

    def entry(frame):
        code = frame.f_code
        if code is learner:
            return [frame, '"<module>"', False]
        return [frame, esc(code.co_name), bool_(code.co_flags & CO_OPTIMIZED)]

    def stop(reason):
        try:
            send(b"Q" + reason)
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
        if event == "return":
            guarded(frame, event, arg)
            if stack and stack[-1][0] is frame:
                stack.pop()
        elif event != "opcode":
            guarded(frame, event, arg)
        return local

    def tracer(frame, event, arg):
        if frame.f_globals is not ns:
            return None
        try:
            code = frame.f_code
            if code.co_filename != LEARNER_FILE:
                return None
            stack.append(entry(frame))
            if len_(stack) > DEPTH_CAP:
                stop(b"recursion")
        except base_exception:
            stop(b"crash")
        if code is not learner:
            guarded(frame, event, arg)
        return local

    return tracer


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
    modules = frozenset(["ctypes", "_ctypes", "_posixsubprocess", "_xxsubinterpreters",
                         "_interpreters"])  # fmt: skip

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
