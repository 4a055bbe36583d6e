"""Python builtins on batched values: ``abs``, ``min``, ``max``, ``round``, ``float``, ``int``,
``bool``, ``pow``, ``divmod``, each with the exact value Python gives per example."""

from __future__ import annotations

import builtins
import dataclasses
import warnings

import libcst as cst
import numpy as np

from ...abstract import UNKNOWN, TupleValue, Value, batched_like, note_mixed_parts, note_mixed_types
from ...errors import Unsupported
from ...rules.dict_tables import dict_get, dict_get_checked, is_dict_get
from ...rules.families import elementwise, padded_args, real_operands, same_shaped_choices
from ...rules.operators import narrow_weak_operands, scalar_power
from ...rules.registry import Registry, Rule, Site, default_infer, evaluate, result_value
from ...syntax.templates import expr


def _fold_minmax(site: Site, op: str) -> cst.BaseExpression:
    real_operands(site, f"`{site.func.__name__}`")
    if site.kwargs:
        raise Unsupported(f"`{site.func.__name__}(..., {', '.join(site.kwargs)}=...)` on "
                          "per-example values", suggestion="drop the keyword arguments")
    if len(site.args) == 1 and isinstance(site.args[0], TupleValue) and site.args[0].keys \
            is None and len(site.args[0].items) > 1 and all(
                isinstance(v, Value) for v in site.args[0].items):
        # max(t) of a tuple of per-example values (vmap's *args): max(t[0], t[1], ...)
        items = site.args[0].items
        site = dataclasses.replace(site, args=list(items), nodes=[
            expr(f"{{t}}[{i}]", t=site.nodes[0]) for i in range(len(items))])
    if len(site.args) < 2:
        return _over_vector(site, op)
    same_shaped_choices(site, f"`{site.func.__name__}`")
    args = padded_args(site)
    strong = _strong_numbers(site)
    inexact = [k for k in strong if not _held_by_operands(site, site.args[k].example)]
    if len(args) > 2 and inexact:
        # (after the first choice a lane holds the Python number or the NumPy value, and
        # the next comparison's type is that lane's: not one batched comparison; one the
        # operands hold exactly compares alike either way)
        raise Unsupported(
            f"`{site.func.__name__}` of more than two arguments, one a Python number that "
            "the narrower NumPy operands cannot hold (NEP 50: compared in their type, "
            "kept as itself on the lanes it wins)",
            suggestion=f"nest the calls: {site.func.__name__}({site.func.__name__}(a, b), c)"
                       " or convert the number with np.float64(...)")
    weak = args
    args = [expr(site.spelled.scalar("{x}", strong[k]), x=a) if k in strong else a
            for k, a in enumerate(args)]
    if inexact:
        # Per example Python compares the number weakly (NEP 50: `np.float16(inf) >
        # 1e300` is float16 inf > inf, False) and keeps the number itself where it wins:
        # the comparison reads the number as written, the choice the strong number. (A
        # number the operands hold exactly compares alike either way: `np.maximum` below.)
        return expr("np.where({wb} " + op + " {wa}, {b}, {a})", wb=weak[1], wa=weak[0],
                    b=args[1], a=args[0])
    # Python keeps the earlier argument unless a later one is strictly smaller (larger):
    # this is what decides NaN and -0.0 / 0.0 results, so it is kept exactly.
    # np.maximum(b, a) is that same choice (it keeps its second argument on ties and
    # propagates NaN) whenever b cannot be NaN: integers, or a constant that is not NaN.
    ufunc = "np.minimum" if op == "<" else "np.maximum"
    # a number literal against floats: the backend's faster spelling (`merge.maximum`), not
    # in code for a file (which must not need this package)
    spelled = site.spelled.extremum(ufunc[3:], "{b}", "{a}") if not site.standalone and \
        isinstance(site.args[0], Value) and site.args[0].kind == "f" else None
    out = args[0]
    for nxt, value, node in zip(args[1:], site.args[1:], site.nodes[1:]):
        if _never_nan(value, node):
            literal = spelled is not None and _literal(node) and node not in [
                site.nodes[k] for k in strong]
            out = expr(spelled if literal else ufunc + "({b}, {a})", a=out, b=nxt)
        else:
            out = expr("np.where({b} " + op + " {a}, {b}, {a})", a=out, b=nxt)
    return out


_KINDS = {bool: "b", int: "i", float: "f", complex: "c"}
# (a NumPy number of these dtypes beside a Python number of its kind makes numpy.vectorize's
# outputs no other type: `max(x, 1.0)` of a float64 `x` is no join of types for
# `vectorize`'s output-type probe, `api._probes`; `vmap` still tracks its lanes' parts)
_PLAIN_DTYPES = frozenset(np.dtype(c) for c in "?qdD")


def _strong_numbers(site: Site) -> dict:
    """`vmap`: position -> dtype of the Python numbers the same for every example among
    ``min``/``max``'s arguments that meet a NumPy value they would take the narrower type of
    (NEP 50: ``np.maximum(y, 1e300)`` of a float16 ``y`` is float16, inf): per example the
    result is the Python float itself on the lanes it wins, so the batch holds them as
    NumPy's strongly typed number (the loop's results join in float64). Floats only."""
    if site.python_semantics or len(site.args) < 2:
        return {}
    numpy = [np.dtype(v.dtype) for v in site.args if isinstance(v, Value) and v.known
             and v.dtype is not None and not (type(v.example) in _KINDS and not v.batched)]
    out = {}
    for k, v in enumerate(site.args):
        if isinstance(v, Value) and not v.batched and v.known and type(v.example) is int \
                and numpy and all(d.kind in "fc" for d in numpy) and \
                not _held(v.example, np.result_type(*numpy, v.example)):
            # an int the floats it meets cannot hold (`max(x, 2 ** 40)` of a float16 `x`:
            # float16 inf, where the lanes it wins hold the int itself): in the floats'
            # join with an int64, as the loop's results join
            out[k] = np.result_type(*numpy, np.int64)
            continue
        if not isinstance(v, Value) or v.batched or not v.known or type(
                v.example) not in (float, complex) or not numpy or any(
                    d.kind not in "fc" for d in numpy):
            continue    # (a Python int stays weak per example in what it meets next)
        wide = np.asarray(v.example).dtype
        if np.result_type(*numpy, wide) != np.result_type(*numpy, v.example):
            out[k] = wide
    return out


def _held_by_operands(site: Site, number) -> bool:
    """Whether every NumPy number among ``min``/``max``'s arguments has a dtype that holds
    the Python ``number`` exactly (``0.0``, ``0.5`` beside float32: compared weakly or as
    float64, the same answer)."""
    dtypes = [np.dtype(v.dtype) for v in site.args if isinstance(v, Value) and v.known
              and v.dtype is not None and not (type(v.example) in _KINDS and not v.batched)]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return all(complex(np.asarray(number, dtype=d)[()]) == number for d in dtypes)
        except (OverflowError, ValueError, TypeError):
            return False


def _held(number: int, dtype) -> bool:
    """Whether a float ``dtype`` holds the Python int ``number`` exactly."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return int(np.asarray(number, dtype=dtype).real) == number
        except (OverflowError, ValueError):
            return False


def _infer_minmax(op: str):
    """The value of ``min(a, b, ...)`` of per-example numbers as the batch has it: Python
    returns one of the arguments (an int or a float, per example), the batched
    ``np.minimum`` / ``np.where`` gives every lane the promoted dtype, so an int argument
    against a float one makes a float (``int(min(n, 2.5))`` must keep its ``int``)."""
    ufunc = np.minimum if op == "<" else np.maximum

    def infer(site: Site) -> Value:
        examples = [getattr(v, "example", None) for v in site.args]
        for k, dtype in _strong_numbers(site).items():
            examples[k] = np.asarray(examples[k], dtype)[()]
        if len(site.args) >= 2 and not site.kwargs and all(
                isinstance(v, Value) and v.rank == 0 for v in site.args):
            kinds = {_KINDS.get(type(e)) or np.asarray(e).dtype.kind for e in examples}
            if not (len(kinds) > 1
                    or all(isinstance(e, np.generic) for e in examples) and len(
                        {e.dtype for e in examples}) > 1
                    or any(type(e) in _KINDS for e in examples) and any(
                        isinstance(e, np.generic) for e in examples)):
                return default_infer(site)
            # (NumPy numbers of one kind and different widths, an int32 and an int64: the
            # batch's np.maximum is the wider, not the first argument's type; a NumPy number
            # and a Python one, `min(x, 7)` of an int64 `x`: the lanes that keep 7 hold a
            # Python int, weak where it meets a uint8 next, NEP 50)
            if len(kinds) > 1 or any(isinstance(e, np.generic) and e.dtype not in _PLAIN_DTYPES
                                     for e in examples):
                # (an int on some lanes, a float on others; a narrow NumPy number: not a
                # float64 beside a Python float, one type for numpy.vectorize's outputs)
                note_mixed_types()
            out = examples[0]
            for nxt in examples[1:]:
                out = evaluate(ufunc, nxt, out)
            result = result_value(out)
            if getattr(result, "batched", False):
                note_mixed_parts(result, *site.args)
            return result
        return default_infer(site)
    return infer


def _over_vector(site: Site, op: str) -> cst.BaseExpression:
    """``max(v)`` over a per-example vector, as Python iterates it: integers and booleans
    have no NaN or signed zeros, so ``np.max(v, axis=1)``; floats fold exactly like Python
    (the first element stays unless a later one is strictly larger)."""
    (value,) = site.args
    if value.rank != 1:
        raise Unsupported(f"`{site.func.__name__}` of a per-example value that is not a vector",
                          suggestion="use np.min / np.max with an axis")
    (v,) = site.nodes
    name = "np.min" if op == "<" else "np.max"
    if value.kind in "biu":
        return expr(name + "({v}, axis=1)", v=v)
    return expr("functools.reduce(lambda m, e: np.where(e " + op + " m, e, m), {v}.T)", v=v)


def _literal(node) -> bool:
    """A number literal in the source (``0.0``, ``-1``): one constant per place in the code
    (`merge.maximum` keeps a row of each)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus,
                                                                           cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _never_nan(value, node) -> bool:
    """A value that is never NaN: integer or boolean, or a number literal in the source.
    (An unbatched argument's example is only a representative of its type, so its value
    tells nothing.)"""
    if value.kind in "biu":
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus,
                                                                           cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _round(site: Site) -> cst.BaseExpression:
    real_operands(site, "`round`", numpy_too=True)
    (x, *rest) = site.nodes
    kind = site.args[0].kind
    if kind == "b":
        # NumPy's bool has no `__round__` (with `ndigits` too): TypeError per example under
        # vmap, and in the call on NumPy scalars that numpy.vectorize learns its output
        # types from
        raise Unsupported("`round` of a bool (numpy.bool has no `__round__`: TypeError)",
                          suggestion="use int(b)", kind="raises")
    if rest or "ndigits" in site.kwargs:
        digits = rest[0] if rest else site.kwargs["ndigits"][0]
        if site.python_semantics and kind == "f" and not (
                len(site.args) > 1 and site.args[1].batched):
            # Python rounds the exact decimal value (round(0.0005, 3) is 0.001; np.round
            # scales first and gives 0.0)
            return expr("pymath.round({x}, {n})", x=x, n=digits)
        if site.python_semantics and kind in "iu" and not site.standalone and not (
                len(site.args) > 1 and site.args[1].batched):
            # exactly (np.round goes through float64: round(2**62 + 5, -1) was 2**62)
            return expr("pymath.round_int({x}, {n})", x=x, n=digits)
        return expr("np.round({x}, {n})", x=x, n=digits)   # ints too: round(15, -1) is 20
    if kind in "iu":
        return python_int(x, site.args[0])
    return expr("np.round({x}).astype(int)", x=x)


def python_int(node, value) -> cst.BaseExpression:
    """An int or bool operand as the Python int an example gets (`int(n)`, `round(n)`,
    `math.floor(n)`): int64 for every other int type (numpy.vectorize's output type is
    the Python int's, not the argument's; a uint64 beyond int64 is checked before:
    `rules.python_errors`)."""
    if value.dtype is not None and value.dtype.kind in "biu" and value.dtype != np.int64:
        return expr("{x}.astype(int)", x=node) if value.batched else expr("int({x})", x=node)
    return node


def _int(site: Site) -> cst.BaseExpression:
    if len(site.nodes) != 1 or site.kwargs:
        raise Unsupported("`int(x, base)` on per-example values", suggestion="use int(x)")
    real_operands(site, "`int()`")
    (x,) = site.nodes
    if site.args[0].kind in "biu":
        return python_int(x, site.args[0])
    return expr("{x}.astype(int)", x=x)  # truncates toward zero, like int()


_PYTHON_DTYPES = {"b": np.dtype(bool), "i": np.dtype(np.int64), "u": np.dtype(np.int64),
                  "f": np.dtype(np.float64), "c": np.dtype(np.complex128)}


def _item(site: Site) -> cst.BaseExpression:
    """``x.item()`` of a per-example NumPy scalar: its Python number, as an array of the
    dtype NumPy gives such numbers (bool, int64, float64, complex128)."""
    (x,), (value,) = site.nodes, site.args
    if site.python_semantics:
        raise Unsupported("`.item()` of a Python number, which has no such method (`vectorize` "
                          "hands the function Python numbers)", suggestion="drop `.item()`")
    dtype = _PYTHON_DTYPES.get(value.kind)
    if value.rank != 0 or dtype is None or len(site.nodes) != 1 or site.kwargs:
        raise Unsupported("`.item()` of a per-example value that is not a number",
                          suggestion="index the element you mean (`v[0]`)")
    if value.dtype == dtype:
        return x
    return expr("{x}.astype(" + {"b": "bool", "i": "int", "u": "int", "f": "float",
                                 "c": "complex"}[value.kind] + ")", x=x)


def _is_integer(site: Site) -> cst.BaseExpression:
    """``x.is_integer()`` of a per-example float (Python's or NumPy's): finite and equal to
    its truncation (NaN and the infinities are not integers)."""
    (x,), (value,) = site.nodes, site.args
    if value.rank != 0 or len(site.nodes) != 1 or site.kwargs or value.kind != "f":
        raise Unsupported("`.is_integer()` of a per-example value that is not a float",
                          suggestion="compare it with its truncation: `x == math.trunc(x)`")
    return expr("np.isfinite({x}) & (np.trunc({x}) == {x})", x=x)


def _float(site: Site) -> cst.BaseExpression:
    real_operands(site, "`float()`")
    (x,) = site.nodes
    if site.args[0].dtype == np.float64:
        return x
    return expr("{x}.astype(float)", x=x)


def _bool(site: Site) -> cst.BaseExpression:
    (x,) = site.nodes
    if site.args[0].kind == "b":
        return x
    return expr("{x} != 0", x=x)


def _pow(site: Site) -> cst.BaseExpression:
    if len(site.nodes) == 3 and not site.kwargs:
        return _pow_mod(site)
    if len(site.nodes) != 2:
        raise Unsupported("`pow` with keywords on per-example values",
                          suggestion="pass the arguments positionally")
    a, b = padded_args(site)
    power = scalar_power(site, a, b)
    return expr("{a} ** {b}", a=a, b=b) if power is None else power


def _python_ints_only(site: Site, what: str, kinds: str = "biu"):
    """Refuse ``what`` unless every operand is an int and, where the method or call needs a
    Python int, surely one wherever the function runs (`Site.python_first`): numpy.vectorize's
    first call and `vmap`'s loop hand the function NumPy scalars, which have no
    ``.bit_length()`` and take no third argument of ``pow``."""
    if any(v.kind not in kinds for v in site.args):
        raise Unsupported(f"{what} of a per-example value that is not an int (Python raises "
                          "TypeError or AttributeError)", suggestion="pass ints, e.g. int(x)",
                          kind="raises")
    if not all(site.python_first) or len(site.python_first) != len(site.args):
        raise Unsupported(f"{what} of a value that is a NumPy int where the function first "
                          "meets it (numpy.vectorize's first call, on NumPy scalars, and "
                          "`vmap`'s examples): NumPy's ints do not have it",
                          suggestion="convert it to a Python int first, e.g. int(x)")
    if site.standalone or site.spelled.name != "numpy":
        raise Unsupported(f"{what} of per-example values on this backend",
                          suggestion="use the NumPy backend")


def _pow_mod(site: Site) -> cst.BaseExpression:
    _python_ints_only(site, "three-argument `pow`")
    a, b, m = site.nodes
    return expr("pymath.pow_mod({a}, {b}, {m})", a=a, b=b, m=m)


def _bit_length(site: Site) -> cst.BaseExpression:
    if len(site.nodes) != 1 or site.kwargs:
        raise Unsupported("`.bit_length()` takes no arguments")
    _python_ints_only(site, "`.bit_length()`")
    return expr("pymath.bit_length({n})", n=site.nodes[0])


def _bit_count(site: Site) -> cst.BaseExpression:
    if len(site.nodes) != 1 or site.kwargs:
        raise Unsupported("`.bit_count()` takes no arguments")
    if site.args[0].kind == "b":
        # (a Python bool has it, NumPy's bool not)
        _python_ints_only(site, "`.bit_count()` of a bool")
    elif site.args[0].kind not in "iu":
        raise Unsupported("`.bit_count()` of a per-example value that is not an int",
                          suggestion="pass ints, e.g. int(x)")
    if site.standalone or site.spelled.name != "numpy":
        raise Unsupported("`.bit_count()` of per-example values on this backend",
                          suggestion="use the NumPy backend")
    return expr("pymath.bit_count({n})", n=site.nodes[0])


def _int_method_result(method: str):
    def infer(site: Site):
        example = site.args[0].example
        if example is UNKNOWN:
            return Value(True, UNKNOWN)
        try:
            return batched_like(getattr(int(example), method)())
        except (TypeError, ValueError, OverflowError):
            return Value(True, UNKNOWN)
    return infer


def _complex(site: Site) -> cst.BaseExpression:
    """``complex(x)``: ``x`` as complex128; ``complex(re, im)``: the pair of float64 parts
    viewed as one complex number (exact for every value, where ``re + 1j * im`` would turn
    ``im = inf`` into a NaN real part and ``re = -0.0`` into ``0.0``)."""
    if site.kwargs:
        raise Unsupported("`complex(real=..., imag=...)` on per-example values",
                          suggestion="pass the parts positionally")
    if len(site.nodes) == 1:
        (x,) = site.nodes
        if site.args[0].dtype == np.complex128:
            return x
        return expr("{x}.astype(complex)", x=x)
    if any(v.kind == "c" for v in site.args):
        raise Unsupported("`complex(a, b)` with a complex part on per-example values",
                          suggestion="write a + b * 1j")
    re, im = site.nodes
    return expr("np.stack(np.broadcast_arrays({re}, {im}), axis=-1).astype(float)"
                ".view(complex)[..., 0]", re=re, im=im)


def register(reg: Registry) -> None:
    reg.add_call(builtins.complex, Rule(
        "builtin.complex", "builtins",
        "`complex(x)` is `x.astype(complex)`; `complex(re, im)` views each pair of float64 "
        "parts as one complex number (exact for infinities and signed zeros).",
        "z = complex(x, y)",
        "z = np.stack(np.broadcast_arrays(x, y), axis=-1).astype(float).view(complex)[..., 0]",
        _complex))
    abs_rule = elementwise(reg, [builtins.abs], family="builtins", name="builtin.abs",
                           explanation="`abs(x)` works on arrays lane by lane; `abs(z)` of "
                           "a complex with `vectorize` (Python's complex numbers) is "
                           "`np.hypot(z.real, z.imag)`, as Python computes it (NumPy's complex "
                           "`abs` can differ in the last bit: `abs(-9991+600j)` is 10009.0 in "
                           "Python, 10008.999999999998 in NumPy).",
                           before="d = abs(x - y)", after="d = abs(x - y)")
    lane_abs = abs_rule.rewrite

    def _abs(site: Site) -> cst.BaseExpression:
        value = site.args[0] if len(site.args) == 1 and not site.kwargs else None
        if isinstance(value, Value) and value.kind == "c" and value.rank == 0 and \
                site.python_semantics:
            (z,) = padded_args(site)
            return expr("np.hypot({z}.real, {z}.imag)", z=z)
        return lane_abs(site)
    abs_rule.rewrite = _abs
    reg.add_call(builtins.min, Rule(
        "builtin.min", "builtins",
        "`min(a, b)` keeps `a` unless `b < a`, exactly as Python decides it (NaN and -0.0 "
        "included): `np.minimum(b, a)` when `b` cannot be NaN (it keeps its second argument "
        "on ties), else `np.where(b < a, b, a)`; of floats and a number literal, "
        "`merge.minimum(b, a)` (as `max`). `min(v)` over a per-example vector folds the "
        "same way (`np.min(v, axis=1)` for integers).",
        "lo = min(x, 0.0)\nm = min(x, y)", "lo = merge.minimum(0.0, x)\nm = np.where(y < x, y, x)",
        lambda site: _fold_minmax(site, "<"), infer=_infer_minmax("<")))
    reg.add_call(builtins.max, Rule(
        "builtin.max", "builtins",
        "`max(a, b)` keeps `a` unless `b > a`: `np.maximum(b, a)` when `b` cannot be NaN, "
        "else `np.where(b > a, b, a)`; of floats and a number literal, `merge.maximum(b, a)` "
        "(`np.maximum` against a row of the number: NumPy's loop of a number first is about "
        "three times slower). `max(v)` over a per-example vector folds the same way "
        "(`np.max(v, axis=1)` for integers).",
        "hi = max(x, 0.0)\nm = max(x, y)", "hi = merge.maximum(0.0, x)\nm = np.where(y > x, y, x)",
        lambda site: _fold_minmax(site, ">"), infer=_infer_minmax(">")))
    reg.add_call(builtins.round, Rule(
        "builtin.round", "builtins",
        "`round(x)` of a float is an int (half to even): `np.round(x).astype(int)`; "
        "`round(x, n)` is `np.round(x, n)`, or for `vectorize` (Python floats per example) "
        "`pymath.round(x, n)`, which rounds the exact decimal value as Python does.",
        "k = round(x)", "k = np.round(x).astype(int)", _round, may_warn=True))
    reg.add_call(builtins.int, Rule(
        "builtin.int", "builtins", "`int(x)` truncates toward zero: `x.astype(int)`.",
        "k = int(x)", "k = x.astype(int)", _int, may_warn=True))
    reg.add_method("item", Rule(
        "array.item", "builtins", "`x.item()` of a per-example NumPy scalar (`vmap`) is a "
        "Python number: `x` as bool, int64, float64 or complex128 (`x.astype(float)` for "
        "float32).",
        "y = x.item()", "y = x.astype(float)", _item))
    reg.add_method("bit_length", Rule(
        "int.bit_length", "builtins", "`n.bit_length()` of a per-example Python int (`int(x)`, "
        "`len(v)`: NumPy's ints have no such method, and numpy.vectorize's first call hands "
        "the function NumPy scalars) is `pymath.bit_length`: the bits of `abs(n)`, exact "
        "over int64 and uint64. NumPy backend only.",
        "b = int(x).bit_length()", "b = pymath.bit_length(x.astype(int))", _bit_length,
        infer=_int_method_result("bit_length"), python_operands=True))
    reg.add_method("bit_count", Rule(
        "int.bit_count", "builtins", "`n.bit_count()` of a per-example int is "
        "`pymath.bit_count`: the ones in `abs(n)` (Python's and NumPy's ints alike; a bool "
        "only where it is a Python bool). NumPy backend only.",
        "c = n.bit_count()", "c = pymath.bit_count(n)", _bit_count, python_operands=True))
    reg.add_method("is_integer", Rule(
        "float.is_integer", "builtins", "`x.is_integer()` of a per-example float is whether "
        "it is finite and equal to its truncation: `np.isfinite(x) & (np.trunc(x) == x)` "
        "(NaN and the infinities are not integers).",
        "whole = x.is_integer()", "whole = np.isfinite(x) & (np.trunc(x) == x)",
        _is_integer))
    reg.add_call(builtins.float, Rule(
        "builtin.float", "builtins", "`float(x)` is `x.astype(float)` (nothing for float64).",
        "y = float(k)", "y = k.astype(float)", _float))
    reg.add_call(builtins.bool, Rule(
        "builtin.bool", "builtins", "`bool(x)` is `x != 0` (NaN is true, as in Python).",
        "flag = bool(x)", "flag = x != 0", _bool))
    reg.add_call(builtins.pow, Rule(
        "builtin.pow", "builtins", "`pow(a, b)` is `a ** b`; `pow(a, b, m)` of Python ints "
        "(`int(x)`: NumPy's ints take no third argument) is `pymath.pow_mod`, by squaring "
        "in uint64, exact for |m| <= 2**32 (beyond, and negative exponents: the per-example "
        "loop decides).",
        "y = pow(x, 3)", "y = x ** 3", _pow, may_warn=True, python_operands=True))
    elementwise(reg, [builtins.divmod], family="builtins", name="builtin.divmod",
                explanation="`divmod(a, b)` is `np.divmod(a, b)`, a tuple of arrays.",
                before="q, r = divmod(n, 7)", after="q, r = np.divmod(n, 7)",
                target="np.divmod", may_warn=True, prepare=_weak_divmod_operands)
    reg.add_family(is_dict_get, Rule(
        "builtin.dict_get", "builtins",
        "`TABLE.get(k, default)` on a dict of numbers (the same for every example) keyed by "
        "numbers (or by strings, with a per-example string key): `pymath.lookup`, a binary "
        "search of the sorted keys "
        "(values and default of one type: numpy.vectorize's dtype is the first result's).",
        "p = TABLE.get(k, 0.0)", "p = pymath.lookup(TABLE, k, 0.0)", dict_get,
        infer=_dict_get_infer))


def _weak_divmod_operands(site) -> None:
    """`vmap`: a Python int per example meeting a narrow NumPy int in ``divmod`` takes its
    type, as the operators do (NEP 50): ``divmod(np.uint32(y), int(x))`` is a uint32 pair."""
    if site.weak:
        narrow_weak_operands(site, ints=True)


def _dict_get_infer(site: Site):
    table = dict_get_checked(site)
    values = list(table.values()) or [site.args[1].example]
    return batched_like(np.asarray(values)[0])
