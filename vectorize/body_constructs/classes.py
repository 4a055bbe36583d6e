"""A small class of the user's constructed on per-example values (meteocalc's ``Temp(x, 'c')``
shape): its ``__init__`` read as a function that returns the instance's fields.

``Temp(t, "c")`` where ``Temp.__init__`` only binds attributes of ``self`` (``self.unit =
unit.lower()``, ``self.value = float(t)``), at the top level of its body, and checks its
arguments (``if ...: raise ValueError(...)``), is called as ``Temp__fields(t, "c")``: the same
body with each ``self.a`` a local variable, returning an instance of a subclass of ``Temp``
whose ``__init__`` stores the fields as they are (`record_class`). The analysis then tracks the
instance field by field (`abstract.TupleValue` with the field names as keys and the subclass
as its kind), and its methods and properties are the class's, specialized as helpers with
``self`` the record (`analysis.calls.record_member`).

Only where that is what Python computes: `fields_function` gives None (the call is refused as
before, with its location) for an ``__init__`` that reads ``self`` otherwise than an attribute
of it (hands it to a function, calls its methods), binds an attribute in a branch or a loop,
reads an attribute before it is bound, returns early, or for a class that makes its instances
otherwise (``__new__``, ``__slots__``, ``__setattr__``, a metaclass's ``__call__``).
"""

from __future__ import annotations

import inspect
import itertools
import linecache
import textwrap
import types

import libcst as cst

from ..syntax.traversal import walk

_FIELDS: dict = {}      # class -> (function, record class) or None
WHY_NOT: dict = {}      # class -> why `fields_function` gave None
_COUNTER = itertools.count()


def fields_function(cls):
    """``(function, record class)`` for the class ``cls`` (cached), or None."""
    if cls not in _FIELDS:
        try:
            made = _make(cls)
        except Exception:       # noqa: BLE001 -- anything unexpected: refused as before
            made = "its `__init__` could not be read"
        _FIELDS[cls] = made if type(made) is tuple else None
        if type(made) is str:
            WHY_NOT[cls] = made
    return _FIELDS[cls]


def is_record(kind) -> bool:
    """A record class `fields_function` made."""
    return isinstance(kind, type) and "__vectorize_record_of__" in kind.__dict__


def record_of(kind):
    """The user's class of a record class (`is_record`), else ``kind`` itself."""
    return kind.__dict__["__vectorize_record_of__"] if is_record(kind) else kind


def _plain_class(cls) -> bool:
    if not isinstance(cls, type) or issubclass(cls, (tuple, BaseException)) or \
            cls.__module__ == "builtins" or type(cls).__call__ is not type.__call__:
        return False
    if any(k.__module__ == "builtins" for k in cls.__mro__ if k is not object):
        return False    # (a subclass of dict, list, an exception...: made by C code)
    if any(k.__dict__.get("__new__") is not None for k in cls.__mro__ if k is not object):
        return False
    if any(name in k.__dict__ for k in cls.__mro__ if k is not object
           for name in ("__setattr__", "__getattr__", "__getattribute__",
                        "__init_subclass__", "__class_getitem__")):
        return False
    # an empty ``__slots__`` (``abc.ABC``'s) where another class of the MRO has none: the
    # instances keep a ``__dict__``, attributes bind as anywhere else
    slots = [k.__dict__["__slots__"] for k in cls.__mro__ if "__slots__" in k.__dict__]
    if any(s != () for s in slots) or \
            all("__slots__" in k.__dict__ for k in cls.__mro__ if k is not object):
        return False
    if getattr(cls, "__abstractmethods__", None):
        return False    # (instantiating it raises TypeError)
    init = cls.__init__
    return isinstance(init, types.FunctionType) and not init.__code__.co_filename.startswith(
        "<")


def _not_plain(cls) -> str | None:
    """Why a class of the user's (or a library's Python code) is not `_plain_class`, as a
    phrase, or None (not a class of Python code: a builtin, a tuple, an exception)."""
    if not isinstance(cls, type) or cls.__module__ == "builtins" or issubclass(
            cls, (tuple, BaseException)):
        return None
    base = next((k for k in cls.__mro__[1:] if k is not object and
                 k.__module__ == "builtins"), None)
    if base is not None:
        return (f"it subclasses the built-in `{base.__name__}`, whose instances the "
                "engine does not model per example")
    for k in cls.__mro__:
        if k is not object and k.__dict__.get("__new__") is not None:
            return f"`{k.__name__}` makes its instances in `__new__`"
        for name in ("__setattr__", "__getattr__", "__getattribute__"):
            if k is not object and name in k.__dict__:
                return f"`{k.__name__}` defines `{name}`"
    if type(cls).__call__ is not type.__call__:
        return "its metaclass makes its instances (`__call__`)"
    if getattr(cls, "__abstractmethods__", None):
        return "it is abstract (making an instance raises TypeError)"
    return None


def _make(cls):
    """``(function, record class)``, or why not (a phrase), or None (not a plain class)."""
    if not _plain_class(cls):
        return _not_plain(cls)
    init = cls.__init__
    text = textwrap.dedent(inspect.getsource(init))
    module = cst.parse_module(text)
    func = module.body[0]
    if type(func) is not cst.FunctionDef or func.decorators or func.asynchronous or \
            not func.params.params:
        return None
    me = func.params.params[0].name.value
    stmts = _expand(list(func.body.body), me, cls, init, 0)
    if stmts is None:
        return ("its `__init__` calls `super().__init__(...)` of an `__init__` that cannot be "
                "inlined (arguments that do not bind by position or keyword, or one that "
                "defines functions, reads other globals or uses `self` otherwise)")
    func = func.with_changes(body=func.body.with_changes(body=stmts))
    fields = _fields_bound(func.body.body, me)
    if fields is None:
        return ("its `__init__` binds no attribute of `self`, or binds one in a branch, a "
                "loop or a tuple target")
    locals_ = {f: f"{me}__{f}" for f in fields}
    taken = {n.value for n in walk(func) if type(n) is cst.Name}
    if any(v in taken for v in locals_.values()):
        return None
    seen: set = set()
    body = []
    for stmt in func.body.body:
        new = _rewrite_statement(stmt, me, locals_, seen, cls)
        if new is None:
            return ("its `__init__` uses `self` otherwise than binding and reading its "
                    "attributes (hands it to a function, calls its methods, reads an "
                    "attribute before binding it) or returns early")
        body.append(new)
        seen |= _bound_here(stmt, me)
    record = _record_class(cls, fields)
    name = f"{cls.__name__}__fields"
    holder = f"_vectorize_record_{cls.__name__}_{next(_COUNTER)}"
    if holder in taken or name in taken:
        return None
    ret = cst.SimpleStatementLine([cst.Return(cst.Call(cst.Name(holder), [
        cst.Arg(cst.Name(locals_[f])) for f in fields]))])
    new_func = func.with_changes(name=cst.Name(name), params=func.params.with_changes(
        params=func.params.params[1:]), body=func.body.with_changes(body=[*body, ret]))
    # The record class is a free variable of the function (a closure cell), not a name
    # written into the user's module: its globals stay the module's own, read live, and the
    # module is not changed by vectorizing one of its functions (`dir(module)`, `__all__`,
    # pickling, another thread's call see the module as it was)
    maker = f"_vectorize_make_{holder}"
    outer = cst.FunctionDef(
        name=cst.Name(maker), params=cst.Parameters([cst.Param(cst.Name(holder))]),
        body=cst.IndentedBlock([new_func, cst.SimpleStatementLine([cst.Return(
            cst.Name(name))])]))
    source = cst.Module([outer]).code
    filename = f"<vectorize: fields of {cls.__module__}.{cls.__qualname__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), init.__globals__, namespace)    # noqa: S102
    function = namespace[maker](record)
    function.__defaults__ = init.__defaults__
    function.__kwdefaults__ = init.__kwdefaults__
    function.__module__ = init.__module__
    function.__qualname__ = name
    return function, record


def _record_class(cls, fields):
    """A subclass of ``cls`` whose ``__init__`` stores ``fields`` as they are."""
    def __init__(self, *values):
        for f, v in zip(fields, values):
            object.__setattr__(self, f, v)
    namespace = {"__init__": __init__, "__vectorize_record_of__": cls,
                 "__vectorize_fields__": tuple(fields), "__module__": cls.__module__,
                 "__qualname__": cls.__qualname__}
    return type(cls)(cls.__name__, (cls,), namespace)


def _self_attribute(node, me: str) -> str | None:
    if type(node) is cst.Attribute and type(node.value) is cst.Name and \
            node.value.value == me:
        return node.attr.value
    return None


def _target_field(stmt, me):
    """``self.a = ...`` / ``self.a += ...`` (one target): ``a``; else None."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if type(small) is cst.Assign and len(small.targets) == 1:
        return _self_attribute(small.targets[0].target, me)
    if type(small) in (cst.AugAssign, cst.AnnAssign):
        return _self_attribute(small.target, me)
    return None


def _fields_bound(stmts, me) -> list | None:
    """The attributes the top-level statements bind, in order of first binding; None where
    one is bound anywhere else (in a branch, a loop, a tuple target)."""
    fields: list = []
    for stmt in stmts:
        field = _target_field(stmt, me)
        if field is not None:
            if field not in fields:
                fields.append(field)
            continue
        for n in walk(stmt):
            targets = {cst.AssignTarget: lambda t: t.target, cst.AugAssign: lambda t: t.target,
                       cst.AnnAssign: lambda t: t.target, cst.For: lambda t: t.target,
                       cst.CompFor: lambda t: t.target, cst.Del: lambda t: t.target,
                       cst.NamedExpr: lambda t: t.target, cst.AsName: lambda t: t.name}
            get = targets.get(type(n))
            if get is not None and any(_self_attribute(t, me) is not None
                                       for t in walk(get(n))):
                return None
    return fields or None


def _bound_here(stmt, me) -> set:
    field = _target_field(stmt, me)
    return {field} if field is not None else set()


def _rewrite_statement(stmt, me, locals_, seen, cls):
    """``stmt`` with ``self.a`` (a field bound before it, or by it as its target) the local
    variable, and ``self.k`` of a class attribute the class's own (read through the record's
    class at run time: ``type(...)`` is not needed, the value is the same); None where
    ``self`` is read otherwise, an attribute is read before it is bound, or the statement
    returns."""
    target = _target_field(stmt, me)
    bad = False

    class Rewrite(cst.CSTTransformer):
        def leave_Attribute(self, original_node, updated_node):
            nonlocal bad
            attr = _self_attribute(original_node, me)
            if attr is None:
                return updated_node
            if attr in locals_ and (attr in seen or original_node is _target_node):
                return cst.Name(locals_[attr])
            if attr in locals_ or not _class_constant(cls, attr):
                bad = True
                return updated_node
            return cst.Attribute(cst.Name(_class_name(cls)), cst.Name(attr))

        def leave_Name(self, original_node, updated_node):
            nonlocal bad
            if original_node.value == me and id(original_node) not in _attribute_bases:
                bad = True
            return updated_node

        def visit_Return(self, node):
            nonlocal bad
            bad = True

    _attribute_bases = {id(n.value) for n in walk(stmt) if _self_attribute(n, me)}
    _target_node = None
    if target is not None:
        small = stmt.body[0]
        _target_node = small.targets[0].target if type(small) is cst.Assign else small.target
        if type(small) is cst.AugAssign and target not in seen:
            return None
        if type(small) is cst.AnnAssign and small.value is None:
            return None
    new = stmt.visit(Rewrite())
    if bad or _class_name(cls) is None and _uses_class(stmt, me, locals_):
        return None
    return new


def _class_constant(cls, attr) -> bool:
    """An attribute of the class (not of the instance) that holds data: a number, a string,
    a tuple or frozenset of those, a dict (read, never written, by ``__init__``)."""
    try:
        value = inspect.getattr_static(cls, attr)
    except AttributeError:
        return False
    return isinstance(value, (int, float, complex, str, bytes, tuple, frozenset, dict))


def _class_name(cls) -> str | None:
    """The name ``cls`` has in its module (where the ``__init__`` reads it), or None."""
    module = inspect.getmodule(cls)
    name = cls.__name__
    return name if module is not None and getattr(module, name, None) is cls else None


def _uses_class(stmt, me, locals_) -> bool:
    return any(_self_attribute(n, me) not in (None, *locals_) for n in walk(stmt))


def _split_tuple_assign(stmt, me):
    """``self.a, self.b = x, y`` (no ``self`` in ``x, y``, as many values as targets) as
    ``self.a = x`` then ``self.b = y``: the same bindings, the values not reading the fields;
    else ``[stmt]``."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return [stmt]
    small = stmt.body[0]
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return [stmt]
    target, value = small.targets[0].target, small.value
    if type(target) not in (cst.Tuple, cst.List) or type(value) is not cst.Tuple:
        return [stmt]
    if len(target.elements) != len(value.elements) or any(
            type(e) is cst.StarredElement for e in (*target.elements, *value.elements)):
        return [stmt]
    if not all(_self_attribute(e.value, me) for e in target.elements):
        return [stmt]
    if any(type(n) is cst.Name and n.value == me for e in value.elements
           for n in walk(e.value)):
        return [stmt]
    return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(t.value)], v.value)])
            for t, v in zip(target.elements, value.elements)]


def _super_init_call(stmt):
    """The ``cst.Call`` of a statement ``super().__init__(...)``, else None."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or \
            type(stmt.body[0]) is not cst.Expr:
        return None
    call = stmt.body[0].value
    if type(call) is cst.Call and type(call.func) is cst.Attribute and \
            call.func.attr.value == "__init__" and type(call.func.value) is cst.Call and \
            type(call.func.value.func) is cst.Name and call.func.value.func.value == "super" \
            and not call.func.value.args:
        return call
    return None


def _owner(cls, init):
    return next((k for k in cls.__mro__ if k.__dict__.get("__init__") is init), None)


def _lookup(globals_, name):
    import builtins
    if name in globals_:
        return globals_[name]
    return getattr(builtins, name, _lookup)


def _expand(stmts, me, cls, init, depth):
    """``stmts`` with tuple assignments to fields split and each top-level
    ``super().__init__(args)`` replaced by the parent ``__init__``'s body (its parameters and
    locals renamed, bound to the arguments first, in order, as the call binds them; its
    ``self`` ``me``); None where that is not what Python does or cannot be shown to be."""
    out = []
    for stmt in stmts:
        call = _super_init_call(stmt)
        if call is None:
            out.extend(_split_tuple_assign(stmt, me))
            continue
        if depth > 8 or "super" in init.__globals__:
            return None
        owner = _owner(cls, init)
        if owner is None:
            return None
        mro = cls.__mro__
        parent = next((k for k in mro[mro.index(owner) + 1:] if "__init__" in k.__dict__),
                      object)
        if parent is object:
            if call.args:
                return None
            continue        # (object.__init__(): nothing)
        p_init = parent.__dict__["__init__"]
        if not isinstance(p_init, types.FunctionType) or p_init.__code__.co_filename.startswith(
                "<"):
            return None
        inlined = _inline(call, p_init, me, cls, init, depth)
        if inlined is None:
            return None
        out.extend(inlined)
    return out


def _inline(call, p_init, me, cls, init, depth):
    p_func = cst.parse_module(textwrap.dedent(inspect.getsource(p_init))).body[0]
    if type(p_func) is not cst.FunctionDef or p_func.decorators or p_func.asynchronous:
        return None
    params = p_func.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None or \
            params.star_kwarg is not None or params.kwonly_params or params.posonly_params or \
            not params.params:
        return None
    p_me = params.params[0].name.value
    names = [p.name.value for p in params.params[1:]]
    bound: dict = {}
    for k, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if any(a.keyword is not None for a in call.args[:k]) or k >= len(names):
                return None
            bound[names[k]] = arg.value
        else:
            key = arg.keyword.value
            if key not in names or key in bound:
                return None
            bound[key] = arg.value
    if set(bound) != set(names):
        return None     # (a default left to bind: refused)
    for n in walk(p_func.body):
        if type(n) in (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp,
                       cst.DictComp, cst.GeneratorExp, cst.Global, cst.Nonlocal):
            return None
    locals_ = set(names)
    for n in walk(p_func.body):
        get = {cst.AssignTarget: lambda t: t.target, cst.AugAssign: lambda t: t.target,
               cst.AnnAssign: lambda t: t.target, cst.For: lambda t: t.target,
               cst.NamedExpr: lambda t: t.target, cst.AsName: lambda t: t.name,
               cst.ExceptHandler: lambda t: t.name}.get(type(n))
        target = get(n) if get is not None else None
        if target is not None:
            locals_ |= {t.value for t in walk(target) if type(t) is cst.Name} - {p_me}
    child = textwrap.dedent(inspect.getsource(init))
    prefix = f"_super{depth}_"
    if prefix in child:
        return None
    rename = {n: f"{prefix}{n}" for n in locals_}
    attrs = {id(n.attr) for n in walk(p_func.body) if type(n) is cst.Attribute} | \
        {id(n.keyword) for n in walk(p_func.body) if type(n) is cst.Arg and n.keyword}
    for n in walk(p_func.body):     # the globals it reads: the same objects in both modules
        if type(n) is cst.Name and id(n) not in attrs and n.value not in rename and \
                n.value != p_me and _lookup(p_init.__globals__, n.value) is not \
                _lookup(init.__globals__, n.value):
            return None

    class Rename(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            if id(original_node) in attrs:
                return updated_node
            if original_node.value == p_me:
                return updated_node.with_changes(value=me)
            if original_node.value in rename:
                return updated_node.with_changes(value=rename[original_node.value])
            return updated_node

    body = p_func.body.visit(Rename())
    # (the arguments evaluated in the call's order, then the body)
    head = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(rename[k]))],
                                                bound[k])]) for k in bound]
    rest = _expand(list(body.body), me, cls, p_init, depth + 1)
    if rest is None:
        return None
    return [*head, *rest]
