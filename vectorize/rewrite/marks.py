"""Which functions of a file are marked for rewriting, and for what.

A mark is a decorator that resolves (in the file's skeleton, `skeleton.py`) to this package's
``vectorize`` or ``vmap``, however it was imported: ``@vectorize``, ``@vectorize(...)``,
``@vz.vectorize``, ``@vmap(in_axes=(0, None))``, ``@functools.partial(vmap, in_axes=1)``.
Its options must be written as constants.

A mark and the function's annotations say which parameters carry a batch and what one example
of each is (`Plan`): the engine specializes the function for exactly that, as the decorator
would for a call with such arguments.

- ``@vectorize`` (numpy.vectorize): every parameter that is not ``excluded`` is batched (as
  numpy.vectorize broadcasts every argument it is given), one number per example, or per
  ``signature=`` an array of its core dimensions; ``excluded`` ones are passed as they are.
- ``@vmap``: ``in_axes`` says which positional parameters are mapped (``None``: not mapped);
  parameters with default values are passed as they are.

What one example is comes from the annotation: ``float``, ``int``, ``bool``, ``complex``, a
NumPy scalar type (``np.float32``), or a string naming a per-example array as numba does, its
dtype and a ``:`` or a size per dimension: ``"float[:]"`` (a vector), ``"int[:, :]"`` (a
matrix), ``"np.float32[:]"``, ``"float[3]"`` (a vector of 3). The string holds no names of
its own, so linters read it as a valid forward reference. An unannotated batched
parameter of ``@vectorize`` is a float64 number (or array of the signature's rank), or of its
default value's type; a parameter passed as it is takes the type of its default value. Where
the rank is needed and nothing says it, the error names the parameter.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field

import numpy as np

from ..abstract import Value
from ..errors import VectorizeError
from .skeleton import evaluate, is_constant, resolve

VECTORIZE_OPTIONS = {"otypes", "doc", "excluded", "cache", "signature", "fallback",
                     "chunk_size"}
VMAP_OPTIONS = {"in_axes", "out_axes", "fallback", "chunk_size"}
_SCALARS = {"float": np.float64, "int": np.int64, "bool": np.bool_, "complex": np.complex128}
ANNOTATION_HINT = ('annotate it: `x: float` for one number per example, `x: "float[:]"` for a '
                   'vector, `x: "float[:, :]"` for a matrix (numba\'s spelling)')


def _targets():
    from ..api import vectorize
    from ..vmap import vmap
    return {id(vectorize): "vectorize", id(vmap): "vmap"}


def mark_of(decorator: ast.expr, namespace: dict):
    """(kind, positional option nodes, keyword option nodes) if ``decorator`` is a mark of
    the file rewriter, else None."""
    targets = _targets()
    node, args, keywords = decorator, [], []
    if isinstance(node, ast.Call):
        found, callee = resolve(node.func, namespace)
        if not found:
            return None
        args, keywords = list(node.args), list(node.keywords)
        if callee is functools.partial and args:
            found, callee = resolve(args[0], namespace)
            args = args[1:]
            if not found:
                return None
        kind = targets.get(id(callee))
        return (kind, args, keywords) if kind else None
    found, value = resolve(node, namespace)
    kind = targets.get(id(value)) if found else None
    return (kind, [], []) if kind else None


def is_mark(decorator: ast.expr, namespace: dict) -> bool:
    return mark_of(decorator, namespace) is not None


@dataclass
class Plan:
    """How one marked function is specialized and called."""

    name: str
    kind: str                              # "vectorize" or "vmap"
    decorator: ast.expr
    params: dict                           # parameter name -> abstract value
    batched: list                          # batched parameters, in order
    moves: dict = field(default_factory=dict)   # vmap: parameter -> its batch axis (not 0)
    out_axes: int = 0
    signature: tuple | None = None         # ([input core dims], [output core dims])
    fallback: str = "warn"
    otypes: list | None = None
    keyword_only: list = field(default_factory=list)
    result: object = None                  # abstract value of what it returns, once built
    new_result: bool = False               # its result is never an argument or a view of one
    raises: frozenset = frozenset()        # the exception types its generated code raises
    texts: dict = field(default_factory=dict)   # its generated functions: name -> text
    # vectorize: a parameter `excluded` only by name (numpy.vectorize broadcasts it passed by
    # position) or only by position (broadcast passed by keyword) -> its position
    excluded_by_name: dict = field(default_factory=dict)
    excluded_by_position: dict = field(default_factory=dict)


class Located:
    """Builds located errors in one file."""

    def __init__(self, filename: str, lines: list[str]):
        self.filename = filename
        self.lines = lines

    def error(self, node: ast.AST, message: str, suggestion: str = "") -> VectorizeError:
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", 0)
        source = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        # ast columns count UTF-8 bytes; the caret goes under characters
        col = len(source.encode("utf-8")[:col].decode("utf-8", "replace"))
        return VectorizeError(message, filename=self.filename, line=line, col=col,
                              source_line=source, suggestion=suggestion)


def plan(fdef: ast.FunctionDef, func, mark, namespace: dict, where: Located) -> Plan:
    """The specialization a marked function is rewritten for (raises a located
    `VectorizeError` where the mark or the annotations do not say enough)."""
    kind, args, keywords = mark
    decorator = next(d for d in fdef.decorator_list if mark_of(d, namespace) is not None)
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise where.error(fdef, f"`{fdef.name}` is an `async def`; coroutines cannot be "
                                "vectorized", "make it a plain `def`")
    if args:
        raise where.error(args[0], f"pass the options of `@{kind}` by keyword (e.g. "
                                   f"`{'excluded=' if kind == 'vectorize' else 'in_axes='}`)")
    allowed = VECTORIZE_OPTIONS if kind == "vectorize" else VMAP_OPTIONS
    options = {}
    for keyword in keywords:
        if keyword.arg is None or keyword.arg not in allowed:
            raise where.error(keyword, f"`@{kind}` has no option "
                                       f"`{keyword.arg or '**'}`",
                              f"its options are {', '.join(sorted(allowed))}")
        if not is_constant(keyword.value, namespace):
            raise where.error(keyword.value, f"the file rewriter reads `{keyword.arg}=` of "
                                             f"`@{kind}` only when it is written as a constant",
                              "write the value itself (a literal, a tuple, a set of names)")
        try:
            options[keyword.arg] = evaluate(keyword.value, namespace, where.filename)
        except Exception as exc:
            raise where.error(keyword.value, f"`{keyword.arg}=` raised {type(exc).__name__}: "
                                             f"{exc}") from None
    a = fdef.args
    if a.vararg or a.kwarg:
        star = a.vararg or a.kwarg
        raise where.error(star, f"`{fdef.name}` takes *args or **kwargs; the file rewriter "
                                "needs named parameters", "give it explicit parameters")
    positional = a.posonlyargs + a.args
    defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):],
                        func.__defaults__ or ()))
    defaults.update(func.__kwdefaults__ or {})
    names = [p.arg for p in positional]
    fallback = options.get("fallback", "warn" if kind == "vectorize" else "error")
    if fallback not in ("error", "warn", "loop"):
        raise where.error(decorator, f"fallback must be 'error', 'warn' or 'loop', got "
                                     f"{fallback!r}")
    result = Plan(fdef.name, kind, decorator, {}, [], fallback=fallback,
                  keyword_only=[p.arg for p in a.kwonlyargs])
    axes: dict[str, int | None] = {}
    if kind == "vectorize":
        excluded = options.get("excluded") or ()
        if isinstance(excluded, (str, int)):
            excluded = {excluded}
        for item in excluded:
            if isinstance(item, int) and not 0 <= item < len(names) or isinstance(
                    item, str) and item not in names + result.keyword_only:
                raise where.error(decorator, f"`excluded` names {item!r}, which is not a "
                                             f"parameter of `{fdef.name}`")
        for name in names:
            position = names.index(name)
            if name in excluded and position not in excluded:
                result.excluded_by_name[name] = position
            elif position in excluded and name not in excluded:
                result.excluded_by_position[name] = position
        excluded = {names[i] if isinstance(i, int) else i for i in excluded}
        for name in names + result.keyword_only:
            axes[name] = None if name in excluded else 0
        if options.get("signature") is not None:
            from ..gufunc import parse_signature
            try:
                result.signature = parse_signature(options["signature"])
            except ValueError as exc:
                raise where.error(decorator, str(exc)) from None
            inputs = [n for n in names if axes[n] == 0]
            if len(inputs) != len(result.signature[0]):
                raise where.error(decorator, f"the signature has {len(result.signature[0])} "
                                             f"inputs but `{fdef.name}` has {len(inputs)} "
                                             "batched parameters",
                                  "exclude the others (excluded=...) or give them defaults")
        if options.get("otypes") is not None:
            result.otypes = [np.dtype(t) for t in options["otypes"]]
    else:
        in_axes = options.get("in_axes", 0)
        out_axes = options.get("out_axes", 0)
        if not isinstance(out_axes, int) or isinstance(out_axes, bool):
            raise where.error(decorator, f"the file rewriter supports out_axes as one int, "
                                         f"got {out_axes!r}", "use out_axes=0")
        result.out_axes = out_axes
        required = [n for n in names if n not in defaults]
        if isinstance(in_axes, (tuple, list)):
            if len(in_axes) > len(names) or len(in_axes) < len(required):
                raise where.error(decorator, f"in_axes has {len(in_axes)} entries but "
                                             f"`{fdef.name}` has {len(required)} parameters "
                                             "without defaults")
            for name, axis in zip(names, in_axes):
                axes[name] = axis
        else:
            for name in names:
                axes[name] = in_axes if name not in defaults else None
        for name, axis in axes.items():
            if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
                raise where.error(decorator, f"in_axes entry {axis!r} for `{name}`: the file "
                                             "rewriter supports an int or None per parameter")
    for name in names:
        axes.setdefault(name, None)
    sizes: dict[str, int] = {}
    cores = iter(result.signature[0]) if result.signature else None
    for param in positional + a.kwonlyargs:
        name = param.arg
        axis = axes.get(name)
        core = next(cores) if cores is not None and axis is not None else None
        value = _example(param, axis is not None, core, kind, defaults, namespace, sizes, where)
        result.params[name] = value
        if axis is not None:
            result.batched.append(name)
            if axis != 0:
                result.moves[name] = axis
    if not result.batched:
        raise where.error(decorator, f"no parameter of `{fdef.name}` carries a batch",
                          "map at least one parameter (in_axes) or exclude fewer")
    return result


def _example(param: ast.arg, batched: bool, core, kind: str, defaults: dict, namespace: dict,
             sizes: dict, where: Located) -> Value:
    """The abstract value of one parameter."""
    name = param.arg
    spelled = _annotation(param, namespace, where) if param.annotation is not None else None
    if spelled is None:
        if batched and kind == "vectorize":
            default = defaults.get(name)
            dtype = np.asarray(default).dtype if isinstance(
                default, (bool, int, float, complex, np.number, np.bool_)) else np.float64
            spelled = (np.dtype(dtype), tuple(core or ()))
        elif batched:
            raise where.error(param, f"the file rewriter cannot tell what one example of "
                                     f"`{name}` is (a number, a vector...)", ANNOTATION_HINT)
        elif name in defaults:
            return Value(False, defaults[name])
        else:
            raise where.error(param, f"the file rewriter cannot tell what `{name}` (passed as "
                                     "it is, not batched) is", ANNOTATION_HINT)
    dtype, dims = spelled
    if dtype == "str":
        if batched:
            raise where.error(param, f"`{name}` is batched but annotated `str`")
        return Value(False, "a")
    if core is not None and dims is not None and len(dims) != len(core):
        raise where.error(param, f"the annotation of `{name}` gives {len(dims)} dimensions, "
                                 f"the signature {len(core)}")
    if batched and kind == "vectorize" and core is None and dims:
        raise where.error(param, f"`{name}` is annotated as an array, but @vectorize passes "
                                 "one number per example", "give @vectorize a signature= "
                                                           "such as '(n)->()'")
    shape = tuple(_size(d, sizes) for d in (dims if dims is not None else core or ()))
    if batched:
        return Value(True, np.ones(shape, dtype)[()])
    if not shape and isinstance(dtype, type):     # a Python scalar, as the caller passes it
        return Value(False, dtype(1))
    return Value(False, np.ones(shape, dtype)[()])


def _size(dim, sizes: dict) -> int:
    """An example size for a dimension: its own number; one per name of a signature's
    dimensions (3, 4, ...); 3 for ``:`` (None)."""
    if isinstance(dim, int):
        return dim
    if dim is None:
        return 3
    return sizes.setdefault(dim, 3 + len(sizes))


def _annotation(param: ast.arg, namespace: dict, where: Located):
    """(dtype, dims or None) of an annotation; ``dtype`` is a Python scalar type for the
    builtin names (an unbatched value of it is passed as that type), "str" for ``str``.
    Dimensions are None for ``:`` and ints for sizes."""
    node = param.annotation
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            node = None
        dims = None
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            dims = tuple(_dimension(p) for p in parts)
            node = node.value if all(d != "?" for d in dims) else None
        dtype = _dtype(node, namespace) if node is not None else None
        if dtype is not None and dtype != "str":
            if dims is not None and isinstance(dtype, type):
                dtype = np.dtype(_SCALARS[dtype.__name__])
            return dtype, dims
    else:
        dtype = _dtype(node, namespace)
        if dtype is not None:
            return dtype, None
    raise where.error(param.annotation, f"the file rewriter does not understand the annotation "
                                        f"of `{param.arg}`", ANNOTATION_HINT)


def _dimension(node):
    if isinstance(node, ast.Slice) and node.lower is None and node.upper is None \
            and node.step is None:
        return None
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return node.value
    return "?"


def _dtype(node, namespace: dict):
    """A Python scalar type (``float``...), "str", a NumPy dtype (``np.float32``), or
    None."""
    if isinstance(node, ast.Name) and node.id in _SCALARS and node.id not in namespace:
        return {"float": float, "int": int, "bool": bool, "complex": complex}[node.id]
    if isinstance(node, ast.Name) and node.id == "str":
        return "str"
    found, value = resolve(node, namespace)
    if found and isinstance(value, type) and issubclass(value, np.generic) and np.dtype(
            value).kind in "biufc":
        return np.dtype(value)
    return None
