"""Reading a user function without parsing it: the lines of its ``def`` in its file, and its
closure by name.

Kept apart from `vectorize.source` (which parses with libcst) because the disk cache
(`vectorize.diskcache`) needs both to check an entry, and a cache hit must not import libcst.
"""

from __future__ import annotations
import __future__

import builtins
import inspect
import types


def lookup(func, name: str):
    """Resolve a free name of ``func`` as Python would: closure, then globals, then builtins.
    Returns (found, value, scope), scope one of "closure", "global", "builtin"."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    if name in cells:
        try:
            return True, cells[name].cell_contents, "closure"
        except ValueError:       # empty cell: not assigned yet
            pass
    if name in func.__globals__:
        return True, func.__globals__[name], "global"
    b = func.__globals__.get("__builtins__", builtins)
    bdict = b if isinstance(b, dict) else vars(b)
    if name in bdict:
        return True, bdict[name], "builtin"
    return False, None, None


def python_function_of(obj):
    """The Python function a JIT compiler compiled, for a callable that keeps it, else ``obj``.

    A numba ``@njit`` dispatcher keeps its function as ``py_func``, a ``@numba.vectorize``
    ufunc (``DUFunc``) as ``_dispatcher.py_func``: real libraries hand these out instead of
    their functions (PsychroLib compiles every function of its module when numba is
    installed). The engine reads and vectorizes the Python source they were compiled from;
    what numba changes (globals frozen at compile time, integer overflow wrapping) is not
    what a NumPy batch computes anyway. Anything else is returned as it is."""
    module = type(obj).__module__ or ""
    if not module.startswith("numba"):
        return obj
    func = getattr(obj, "py_func", None)
    if func is None:
        func = getattr(getattr(obj, "_dispatcher", None), "py_func", None)
    return func if isinstance(func, types.FunctionType) else obj


def forwarded_target(func):
    """The function ``func`` forwards every call to, where its whole body is (after its
    docstring and ``import``/``from ... import`` statements) ``return target(*args,
    **kwargs)`` with its own ``*args``/``**kwargs`` and no other parameter: the lazy-import
    wrapper libraries write (fluids: ``def lambertw(*args, **kwargs): from scipy.special
    import lambertw; return lambertw(*args, **kwargs)``). None for anything else, or where
    the target is not a Python function (after `python_function_of`)."""
    import ast
    import importlib
    import textwrap

    code = getattr(func, "__code__", None)
    if code is None or code.co_argcount or code.co_kwonlyargcount or \
            not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.decorator_list:
        return None
    star = node.args.vararg.arg if node.args.vararg else None
    double = node.args.kwarg.arg if node.args.kwarg else None
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]         # the docstring
    imported = {}
    while body and isinstance(body[0], (ast.Import, ast.ImportFrom)):
        stmt = body.pop(0)
        if isinstance(stmt, ast.ImportFrom) and (stmt.level or stmt.module is None):
            return None         # a relative import: resolved against the package below
        for alias in stmt.names:
            imported[alias.asname or alias.name.split(".")[0]] = (stmt, alias)
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    call = body[0].value
    expected = ([ast.Starred] if star else [])
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and [type(a) for a in call.args] == expected
            and all(isinstance(a.value, ast.Name) and a.value.id == star for a in call.args)
            and len(call.keywords) == (1 if double else 0)
            and all(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == double
                    for k in call.keywords)):
        return None
    name = call.func.id
    try:
        if name in imported:
            stmt, alias = imported[name]
            if isinstance(stmt, ast.ImportFrom):
                target = getattr(importlib.import_module(stmt.module), alias.name)
            else:
                return None     # `import m; return m(*args)`: a module is not called
        else:
            found, target, _ = lookup(func, name)
            if not found:
                return None
    except Exception:   # noqa: BLE001 -- not importable here: not a forwarding we can follow
        return None
    target = python_function_of(target)
    return target if isinstance(target, types.FunctionType) and target is not func else None


class ClosureView:
    """Live read access to a function's closure cells, by name (for cache guards)."""

    def __init__(self, func):
        self._cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))

    def get(self, name, default=None):
        cell = self._cells.get(name)
        try:
            return cell.cell_contents if cell is not None else default
        except ValueError:
            return default


CONTENTS_GUARD_ITEMS = 256
"""The most items of a list, dict or set a guard compares on every call (`ContentsGuard`)."""


class ContentsGuard:
    """Live read access to a name of ``namespace`` (a function's globals, a `ClosureView`, a
    body's imports) bound to a list, dict or set ``value`` the generated code depends on the
    items of (``x in TABLE`` written out as comparisons, the items' types a lookup was
    checked for): ``get`` gives the value while the name still holds it with the items it
    had when the code was made (equal, each of the same type), else ``default``, so that
    ``TABLE.add(3.0)`` between calls makes a new specialization, as rebinding ``TABLE``
    does. At most `CONTENTS_GUARD_ITEMS` items (`guarded_contents`); one level deep: the
    copy holds the same item objects, which ``==`` finds equal by identity first (an array
    item left in place compares without asking the array; one replaced by another array,
    whose ``==`` has no truth value, counts as a change)."""

    __slots__ = ("namespace", "value", "items", "types")

    def __init__(self, namespace, value):
        self.namespace, self.value = namespace, value
        self.items, self.types = value.copy(), _item_types(value)

    def get(self, name, default=None):
        # (on every warm call of a specialization: an `==` and a tuple of types)
        value = self.namespace.get(name, default)
        if value is self.value:
            try:
                same = value == self.items and _item_types(value) == self.types
            except Exception:   # noqa: BLE001 -- an item's `==` with no truth value
                same = False
            if not same:
                return default
        return value


def _item_types(value) -> tuple:
    if type(value) is dict:
        return (*map(type, value), *map(type, value.values()))
    return tuple(map(type, value))


def guarded_contents(value) -> bool:
    """Whether a name bound to ``value`` is guarded by its items (`ContentsGuard`): a list,
    dict or set of at most `CONTENTS_GUARD_ITEMS` items, which may change in place."""
    return type(value) in (list, dict, set) and len(value) <= CONTENTS_GUARD_ITEMS


def name_guard(namespace, name: str, value) -> tuple:
    """The guard (mapping, name, value) that ``name`` of ``namespace`` still gives ``value``
    (by identity; a small list, dict or set also by its items: `ContentsGuard`)."""
    if guarded_contents(value):
        return ContentsGuard(namespace, value), name, value
    return namespace, name, value


class AttributePath:
    """Live read access to ``root.a.b`` (``attrs``: ``("a", "b")``), the root a name of
    ``namespace`` (a function's globals, or a `ClosureView`): a guard on a value the code
    reached through attributes (``helpers.h``, ``Cls.h``, ``obj.h``), so that rebinding
    the attribute (``mock.patch("helpers.h")``) makes a new specialization. ``get`` ignores
    the name it is given (the guard's label) and gives `stable_attribute` of the last
    attribute, ``default`` where some link is missing."""

    __slots__ = ("namespace", "root", "attrs")

    def __init__(self, namespace, root: str, attrs: tuple):
        self.namespace, self.root, self.attrs = namespace, root, attrs

    def get(self, _label, default=None):
        # (on every warm call of a specialization: kept to a few bytecodes)
        value = self.namespace.get(self.root, default)
        try:
            for attr in self.attrs:
                owner, value = value, getattr(value, attr)
        except Exception:   # noqa: BLE001 -- missing, or a property that raises
            return default
        if type(value) is types.MethodType:
            return stable_attribute(owner, value)
        return value


def attribute_guard(namespace, root: str, attrs: tuple, value) -> tuple:
    """The guard (mapping, key, value) that ``root.a.b`` (``attrs``) still gives ``value``:
    where ``b`` is found in the namespace of the module or class ``root.a``, that namespace
    itself (as cheap as a global's guard: ``root.a`` has a guard of its own), else an
    `AttributePath`."""
    owner = namespace.get(root)
    try:
        for attr in attrs[:-1]:
            owner = getattr(owner, attr)
    except Exception:   # noqa: BLE001 -- the path as it was read must resolve
        owner = None
    if isinstance(owner, types.ModuleType) and vars(owner).get(attrs[-1], _NONE) is value:
        return vars(owner), attrs[-1], value
    if type(owner) is type and attrs[-1] in vars(owner):
        # a class's own attribute (not inherited: setting it on the class would then hide the
        # base's without changing the base's namespace): what its namespace holds
        raw = vars(owner)[attrs[-1]]
        if value is (raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw):
            return vars(owner), attrs[-1], raw
    return AttributePath(namespace, root, attrs), ".".join((root, *attrs)), value


_NONE = object()


def stable_attribute(owner, value):
    """What identifies an attribute's value across reads: a method bound to its owner (or
    to the owner's class, a classmethod) is a new object at each read, its function is not."""
    if type(value) is types.MethodType and (value.__self__ is owner
                                            or value.__self__ is type(owner)):
        return value.__func__
    return value


def source_lines(func) -> tuple[list[str], int]:
    """``inspect.getsourcelines(func)`` for a function: its lines and the number of the first.

    Where the function is laid out simply (`_block`), the end of its block is found from the
    lines' indentation, as `inspect.getblock` would find it by tokenizing them (a quarter of
    the cost of parsing them); otherwise `inspect.getblock` finds it."""
    # (the function's own lines, found from its code: not those of what its `__wrapped__`
    # names, as `inspect.getsourcelines` would give for a `functools.wraps` wrapper, whose
    # code is the wrapper's: hsluv's `hsluv_to_rgb`, a closure that rounds what it calls)
    lines, start = inspect.findsource(func)
    block = _block(lines, start)
    return (inspect.getblock(lines[start:]) if block is None else block), start + 1


def _block(lines: list[str], start: int) -> list[str] | None:
    """The lines of the ``def`` at ``lines[start]`` (with its decorators) as
    `inspect.getblock` gives them, or None where that needs a tokenizer: a line holds a
    string, a backslash, a bracket it does not close, a tab or form feed in its indentation,
    or a character that is not ASCII; the header takes more than one line or holds the body.

    The rest is what `inspect.BlockFinder` does with the tokens of such lines: the block
    ends before the first line of code indented no deeper than the ``def`` (or indented to
    a level no enclosing block has: tokenize's IndentationError), and takes the comments up
    to there that are indented at least as deep as its body."""
    index = start
    while index < len(lines) and lines[index].lstrip(" ").startswith("@"):
        if _code(lines[index]) is None:
            return None
        index += 1
    if index == len(lines):
        return None
    header = _code(lines[index])
    if header is None or not header.rstrip().endswith(":") or not header.lstrip(
            " ").startswith(("def ", "async def ")):
        return None
    levels = [_indentation(header)]      # the def's, then those of the open blocks
    body = None                          # the body's indentation
    last = index
    for number in range(index + 1, len(lines)):
        line = lines[number]
        if not line.strip(" \t\f\v\r\n"):
            continue                     # a blank line
        indent = _indentation(line)
        if line[indent] == "#":
            if body is not None and indent >= body:
                last = number
            continue
        if _code(line) is None:
            return None
        if indent <= levels[0]:
            break
        if indent > levels[-1]:
            body = indent if body is None else body
            levels.append(indent)
        else:
            while indent < levels[-1]:
                levels.pop()
            if indent != levels[-1]:
                break
        last = number
    return lines[start:last + 1]


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _code(line: str) -> str | None:
    """The code of a physical line that is a whole logical line tokenize reads plainly (no
    string, backslash or unclosed bracket, indented with spaces, ASCII): the line without
    its comment. None for other lines."""
    code = line.split("#", 1)[0]
    first = line.lstrip(" ")[:1]
    if (not line.isascii() or "'" in code or '"' in code or "\\" in code
            or first in ("", "\t", "\f", "\v")):
        return None
    opened = code.count("(") + code.count("[") + code.count("{")
    if opened != code.count(")") + code.count("]") + code.count("}"):
        return None
    return code


_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_CO_NESTED = inspect.CO_NESTED
_matched: dict = {}       # (code, text) -> whether the text compiles to the code


def dedent_margin(raw: str, text: str) -> str:
    """The margin `textwrap.dedent` took off every line of ``raw`` to give ``text``."""
    for before, after in zip(raw.split("\n"), text.split("\n")):
        if before.strip():
            return before[:len(before) - len(after)]
    return ""


def _as_dedented(value: str, margin: str) -> str:
    """A string constant of the function as it reads in its text dedented by ``margin``
    (`textwrap.dedent` works on lines, those inside a multi-line string too: a docstring
    loses the margin from its later lines, and its lines of blanks become empty)."""
    lines = value.split("\n")
    out = lines[:1]
    for k, line in enumerate(lines[1:], 2):
        if not line.strip(" \t") and k < len(lines):   # (the last goes on to the quotes)
            line = ""
        elif line.startswith(margin):
            line = line[len(margin):]
        out.append(line)
    return "\n".join(out)


def source_matches_code(func, text: str, margin: str = "") -> bool:
    """Whether ``text`` (the dedented ``def`` of ``func`` as its file has it now, decorators
    included, or a parenthesized ``lambda``) compiles to ``func.__code__``: the bytecode,
    constants (nested functions' code compared the same way), names, local, free and cell
    variables, arguments and flags, line numbers aside. A file edited after its module was
    imported gives the new text, while the function runs the old code. ``margin``: what
    dedenting took off its lines (`dedent_margin`), off the lines of its multi-line strings
    too (a method's docstring), so that its string constants are compared as dedented.

    The text is compiled where the function was (``__qualname__``): inside classes of the
    same names (private names are mangled alike) and functions, the innermost binding the
    function's free variables (so that they compile to closure reads). Text Python cannot
    parse is not judged (True): reading it fails on its own."""
    import ast
    code = func.__code__
    key = (code, text, margin)
    found = _matched.get(key)
    if found is not None:
        return found
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    body = tree.body
    free = [name for name in code.co_freevars if name != "__class__"]
    parts = func.__qualname__.split(".")[:-1]
    scopes = []       # (kind, name) from the outside in
    while parts:
        name = parts.pop(0)
        local = bool(parts) and parts[0] == "<locals>"
        if local:
            parts.pop(0)
        if not name.isidentifier():
            local, name = True, "_vectorize_scope"
        scopes.append(("def" if local else "class", name))
    if free:
        last_def = max((i for i, (kind, _) in enumerate(scopes) if kind == "def"), default=-1)
        if last_def < 0:
            scopes.insert(0, ("def", "_vectorize_scope"))
            last_def = 0
        binding = [ast.Assign([ast.Name(n, ast.Store()) for n in free], ast.Constant(None))]
    for index in reversed(range(len(scopes))):
        kind, name = scopes[index]
        if free and index == last_def:
            body = binding + body
        if kind == "class":
            body = [ast.ClassDef(name, [], [], body, [])]
        else:
            body = [ast.FunctionDef(name, ast.arguments([], [], None, [], [], None, []),
                                    body, [], None)]
    module = ast.fix_missing_locations(ast.Module(body, []))
    try:
        compiled = compile(module, code.co_filename, "exec",
                           flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    found = any(_same_code(code, candidate, margin) for candidate in _code_objects(compiled)
                if candidate.co_name == code.co_name)
    if not found and any(isinstance(n, ast.Assert) for n in ast.walk(tree)) and \
            _rewritten_by_pytest(func):
        found = _matches_pytest_rewrite(module, text, code)
    if len(_matched) > 512:
        _matched.clear()
    _matched[key] = found
    return found


def _rewritten_by_pytest(func) -> bool:
    """Whether ``func``'s module was loaded by pytest's assertion rewriting (a test module, a
    conftest), which compiles its ``assert`` statements to other code than Python's."""
    import sys
    module = sys.modules.get(getattr(func, "__module__", None) or "")
    return type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"


def _matches_pytest_rewrite(module, text: str, code) -> bool:
    """Whether ``module`` (the function's text, wrapped in its scopes) compiles to ``code``
    once pytest has rewritten its ``assert`` statements as it rewrites a test module's
    (the same checks, with messages: the function means what its text says)."""
    import ast
    try:
        from _pytest.assertion.rewrite import rewrite_asserts
        rewrite_asserts(module, text.encode(), None, None)
        compiled = compile(ast.fix_missing_locations(module), code.co_filename, "exec",
                           flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except Exception:   # noqa: BLE001 -- another pytest: the text is not judged the same
        return False
    return any(_same_code(code, candidate) for candidate in _code_objects(compiled)
               if candidate.co_name == code.co_name)


def _code_objects(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


def _same_code(a, b, margin: str = "") -> bool:
    if (a.co_names != b.co_names or a.co_varnames != b.co_varnames
            or a.co_freevars != b.co_freevars or a.co_cellvars != b.co_cellvars
            or a.co_argcount != b.co_argcount or a.co_posonlyargcount != b.co_posonlyargcount
            or a.co_kwonlyargcount != b.co_kwonlyargcount
            or (a.co_flags ^ b.co_flags) & ~_CO_NESTED
            or len(a.co_consts) != len(b.co_consts)):
        return False
    if a.co_code != b.co_code and _instructions(a) != _instructions(b):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) or isinstance(y, types.CodeType):
            if not (isinstance(x, types.CodeType) and isinstance(y, types.CodeType)
                    and _same_code(x, y, margin)):
                return False
        elif type(x) is not type(y) or repr(x) != repr(y) and not (
                type(x) is str and _as_dedented(x, margin) == y):
            return False
    return True


_BASE_LOADS = frozenset({"LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME"})


def _null_of_attribute_call(listed, k: int) -> bool:
    """Whether the ``PUSH_NULL`` at ``listed[k]`` comes before the load of a local or
    closure name and an attribute load (CPython 3.11's ``math.sqrt(x)``, where ``math`` is a
    closure's variable and the module imports a `math`: ``PUSH_NULL``, ``LOAD_DEREF``,
    ``LOAD_ATTR``, where the same text compiled elsewhere is ``LOAD_DEREF``,
    ``LOAD_METHOD``)."""
    return k + 2 < len(listed) and listed[k + 1].opname in _BASE_LOADS and \
        listed[k + 2].opname == "LOAD_ATTR"


def _instructions(code) -> list:
    """The instructions of ``code`` with what does not depend on the text alone made equal:
    an attribute call on a name the module binds by ``import`` is ``LOAD_ATTR`` in CPython
    3.11 (``LOAD_METHOD`` otherwise; its inline caches have another size, which moves every
    offset), so method loads count as attribute loads and jumps go to instruction numbers.
    The longer offsets can need an ``EXTENDED_ARG`` prefix in one compilation and not in the
    other: prefixes are left out (``dis`` folds them into the argument they extend), and a
    jump to a prefix goes to the instruction it prefixes. CPython 3.13 writes such a call
    ``LOAD_ATTR`` + ``PUSH_NULL`` where a method load has the NULL in its argument: the
    ``PUSH_NULL`` is left out as the prefixes are, after a ``LOAD_METHOD`` too: the NULL of
    a call of a closure's function that follows (``np.sum(helper(x))``) comes right after
    the attribute load in both compilations."""
    import dis
    found = []
    number = {}
    pending = []        # offsets of the EXTENDED_ARG prefixes of the next instruction
    listed = list(dis.get_instructions(code))
    for k, ins in enumerate(listed):
        if ins.opname == "EXTENDED_ARG" or ins.opname == "PUSH_NULL" and (found and \
                found[-1].opname in ("LOAD_ATTR", "LOAD_METHOD") or _null_of_attribute_call(
                    listed, k)):
            pending.append(ins.offset)
            continue
        for offset in (*pending, ins.offset):
            number[offset] = len(found)
        pending.clear()
        found.append(ins)
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    out = []
    for ins in found:
        if ins.opname == "EXTENDED_ARG":
            continue
        name = "LOAD_ATTR" if ins.opname == "LOAD_METHOD" else ins.opname
        if ins.opcode in jumps:
            out.append((name, "jump", number.get(ins.argval)))
        elif isinstance(ins.argval, types.CodeType):
            out.append((name, "code"))
        else:
            out.append((name, repr(ins.argval)))
    return out
