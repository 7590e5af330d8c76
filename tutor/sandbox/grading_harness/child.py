# The grading harness, part 7 of 7: C, the child that runs the tests, and what every
# child starts from (the kit, the slots): built last, once every function exists.

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


# Built once, where this module's body runs: in the fork server (the harness is a preload
# there, whose body the server runs once), so that every grading's children find them made;
# otherwise in P, before it forks anything. Either way before any learner code ran.
PREPARED = _prepared()
