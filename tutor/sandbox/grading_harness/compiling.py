# The grading harness, part 3 of 7: how P compiles the learner's code (a syntax error ends
# the run) and each check (its asserts made calls of the recorder, its built-ins bound as
# constants).

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
