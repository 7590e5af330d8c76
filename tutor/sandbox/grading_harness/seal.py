# The grading harness, part 6 of 7: the audit hook a child seals itself with.

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
