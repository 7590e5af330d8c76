# The grading harness, part 5 of 7: what a check's asserts record (values encoded as plain
# data, the sandbox's own verdict where the host cannot decide) and how a failure is
# described: the functions the learner's code may reach through frames, one copy per slot.

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
