"""Dtypes as NumPy gives them, where ``jax.numpy`` promotes narrow integers differently.

With x64 enabled JAX promotes as NumPy does, except for one family: an inexact function
(``sqrt``, ``sin``, ``mean``, ``/``...) of a bool or of an integer narrower than 64 bits
computes in float32 in JAX (``jnp.sqrt(int32)`` is float32), where NumPy computes in float64
(float16 for int8, uint8 and bool) and Python in float64. The batched code must give the
per-example code's dtype, and its precision: converting the float32 result afterwards would
keep float32's rounding. So where a rule's site has such an operand and JAX's result dtype
(``jax.eval_shape`` of JAX's function on the operands' dtypes) is not the analysis' (NumPy's,
on the examples), the narrow operands are converted to the analysis' dtype first
(``jnp.sqrt(jnp.asarray(k, dtype=jnp.float64))``): the function then computes in the dtype
NumPy computes in. So are the narrow operands of an integer function whose JAX result is
narrower than NumPy's (``np.cumsum`` of an int32 or a bool accumulates in int64, ``jnp.cumsum``
in int32): converted to int64 first, the sums are NumPy's. A 64-bit integer array or NumPy
integer meeting a float is converted the same way: JAX computes ``float16 - int64`` in
float16, NumPy in float64.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
import numpy as np

from ...abstract import TupleValue, Value
from ...syntax.templates import expr

_OPERATORS = {cst.Add: "add", cst.Subtract: "subtract", cst.Multiply: "multiply",
              cst.Divide: "true_divide", cst.FloorDivide: "floor_divide",
              cst.Modulo: "remainder", cst.Power: "power"}


# builtins whose batched form is a ufunc's (`max(x, r)` of an int64 and a float16 array:
# NumPy's maximum computes float64, jnp's float16; `divmod(x, y)` of an int64 and a float16:
# NumPy's pair is float64, jnp's float16)
_BUILTINS = {max: "maximum", min: "minimum", pow: "power", divmod: "divmod"}


# ufuncs whose float16 loop NumPy computes in float32 (one rounding to float16), and
# `jax.numpy` in float16, rounding each step of its formula (`jnp.hypot`, `jnp.log2` as
# `log(x) / log(2)`, `jnp.degrees` as `x * (180 / pi)`): up to an ulp of float16 apart on
# 3% to 30% of the float16 numbers (every float16 number, and 60,000 drawn pairs, against
# NumPy's; the other float16 ufuncs' results agree but for a few ulps of NumPy's float32
# functions). The JAX backend computes these in float64 and rounds through float32.
HALF_IN_FLOAT32 = frozenset({
    "arccos", "arccosh", "arcsin", "arcsinh", "arctanh", "cbrt", "cosh", "sinh", "deg2rad",
    "radians", "rad2deg", "degrees", "exp2", "expm1", "hypot", "log10", "log2", "logaddexp",
    "logaddexp2"})


def _example_dtype(value):
    example = getattr(value, "example", None)
    if example is None or isinstance(example, (tuple, list, str, bytes)):
        return None
    try:
        return np.asarray(example).dtype
    except Exception:       # noqa: BLE001 -- an example with no dtype (UNKNOWN, an object)
        return None


def _narrow(value) -> bool:
    dtype = _example_dtype(value) if isinstance(value, Value) else None
    return dtype is not None and (dtype.kind == "b" or dtype.kind in "iu" and dtype.itemsize < 8)


def _elementwise(func) -> bool:
    """A NumPy function whose Python-number operands are values (not shapes, axes or
    counts, which must stay Python numbers under ``jit``): the ufuncs, ``where``, ``clip``."""
    return isinstance(func, np.ufunc) or func is np.where or func is np.clip


def _python_number(value) -> bool:
    return type(getattr(value, "example", None)) in (int, float, complex)


def _jax_weak(function, args) -> bool:
    """Whether JAX's result of ``function`` on these operands is weakly typed."""
    return bool(getattr(_jax_out(function, args), "weak_type", False))


def _converted(value, operator: bool = False) -> bool:
    """Whether an operand is converted where JAX's result dtype is not NumPy's: a narrow
    one, or a 64-bit integer that is no Python number (``x - np.floor(255)`` on float16:
    NumPy computes float16 and int64 in float64, JAX in float16)."""
    example = getattr(value, "example", None)
    if operator and isinstance(example, (bool, int, float, complex)) and not isinstance(
            example, np.generic) and not getattr(value, "batched", True):
        # an operand of an operator that is a Python number the same for every example:
        # Python computes it (`r * r` of a Python bool is the int 1), and beside an array
        # it is weak, as in NumPy (NumPy's functions of Python bools are converted: the
        # float16 of `np.sqrt(True)`)
        return False
    if _narrow(value):
        return True
    if isinstance(example, (bool, int, float, complex)) and not isinstance(example, np.generic):
        return False
    dtype = _example_dtype(value) if isinstance(value, Value) else None
    return dtype is not None and dtype.kind in "iu"


def _jax_dtype(function, args):
    return _one_dtype(_jax_out(function, args), "dtype")


def _one_dtype(out, attribute):
    """The dtype of a result, or of a pair of results of one dtype (``divmod``, ``np.modf``:
    computed in one dtype), None otherwise; ``attribute``: "dtype" for JAX's abstract
    results, "example" for the analysis' examples."""
    if isinstance(out, (tuple, list)):
        dtypes = {_one_dtype(item, attribute) for item in out}
        return dtypes.pop() if len(dtypes) == 1 else None
    if attribute == "dtype":
        return getattr(out, "dtype", None)
    return np.asarray(out).dtype if isinstance(out, (np.generic, np.ndarray)) else None


def _result_dtype(result):
    """The analysis' dtype of a site's result: of its example, or of the items of a tuple
    of one dtype (``divmod(x, y)``)."""
    if isinstance(result, TupleValue) and result.kind is None and result.items and all(
            isinstance(item, Value) for item in result.items):
        return _one_dtype(tuple(item.example for item in result.items), "example")
    return _example_dtype(result) if isinstance(result, Value) else None


def _jax_out(function, args):
    """JAX's result dtype of ``function`` on operands of the values' dtypes (Python numbers
    as themselves: weakly typed), None where it cannot tell."""
    import jax
    operands, structs = [], []
    for value in args:
        example = getattr(value, "example", None)
        if isinstance(example, (bool, int, float, complex, type, np.dtype)) and \
                not isinstance(example, np.generic):
            # (a type or dtype: the target of ``.astype(np.float64)``, passed as it is)
            operands.append(example)
        else:
            dtype = _example_dtype(value)
            if dtype is None:
                return None
            operands.append(None)
            structs.append(jax.ShapeDtypeStruct(np.shape(example), dtype))

    def call(*traced):
        it = iter(traced)
        return function(*[next(it) if o is None else o for o in operands])
    try:
        with jax.enable_x64(True):
            return jax.eval_shape(call, *structs)
    except Exception:       # noqa: BLE001 -- JAX's function refuses these operands
        return None


class Faithful:
    """Wraps the rules of a registry whose sites may need their narrow operands converted."""

    def __init__(self, backend, twins: dict):
        self.backend = backend
        self.twins = twins          # id(NumPy function) -> JAX function
        self._made: dict[int, object] = {}

    def _function(self, site):
        if isinstance(site.func, str):      # a method rule's site: ``v.mean()``
            name = site.func
            return lambda receiver, *rest: getattr(receiver, name)(*rest)
        if site.func is not None:
            import jax.numpy as jnp
            twin = self.twins.get(id(site.func))
            if twin is None and getattr(site.func, "__module__", "") == "math":
                twin = getattr(jnp, site.func.__name__, None)
            if twin is None and any(site.func is f for f in _BUILTINS):
                twin = getattr(jnp, _BUILTINS[site.func])
            return twin
        if isinstance(site.node, cst.BinaryOperation):
            name = _OPERATORS.get(type(site.node.operator))
            if name is not None:
                import jax.numpy as jnp
                return getattr(jnp, name)
        return None

    def wrap(self, rule):
        made = self._made.get(id(rule))
        if made is not None:
            return made
        original = rule.rewrite

        def rewrite(site):
            site = self.converted(site)
            if not self._in_float32(site):
                return original(site)
            # computed in float64, rounded to float32 (NumPy's float32 function, rounded
            # once) and then to float16, as NumPy's float16 loop rounds its float32 result
            out = original(self._widened(site))
            scalar = self.backend.scalar
            return expr(scalar("{x}", np.float16), x=expr(scalar("{x}", np.float32), x=out))
        made = self._made[id(rule)] = dataclasses.replace(rule, rewrite=rewrite)
        return made

    def _in_float32(self, site) -> bool:
        """Whether the site is a NumPy ufunc of `HALF_IN_FLOAT32` with a float16 result (JAX's
        own function, `jnp.hypot`, computes as JAX does)."""
        func = site.func
        return isinstance(func, np.ufunc) and func.__name__ in HALF_IN_FLOAT32 and \
            not site.kwargs and len(site.nodes) == len(site.args) == func.nin and \
            _result_dtype(site.result) == np.float16

    def _widened(self, site):
        """A `HALF_IN_FLOAT32` site's operands as float64 (a Python number as its float16
        first, as NumPy's loop takes it)."""
        scalar = self.backend.scalar
        nodes = [expr(scalar("{x}", np.float64), x=expr(scalar("{x}", np.float16), x=node))
                 if _python_number(value) else expr(scalar("{x}", np.float64), x=node)
                 for node, value in zip(site.nodes, site.args)]
        args = [dataclasses.replace(value, example=np.asarray(
            np.float16(value.example) if _python_number(value) else value.example,
            dtype=np.float64)[()]) for value in site.args]
        return dataclasses.replace(site, nodes=nodes, args=args)

    def unbatched_nodes(self, site):
        """The operands of an operation on values the same for every example (``np.sin(k)``
        of a shared int32 ``k``, which no rule rewrites: `jnp.sin` would compute it in
        float32 where NumPy's example gives float64), converted as `converted` converts a
        rule's, and those of a `HALF_IN_FLOAT32` ufunc to float64; None where nothing needs
        converting."""
        new = self.converted(site)
        if new is not site and site.python_semantics:
            _python_int_meets_narrow(site, _result_dtype(site.result), self._function(site))
        if self._in_float32(new):
            # (the call's float16 result is written `jnp.asarray(..., dtype=jnp.float16)`,
            # `Backend.strongly_typed`: float64 rounded to float16 at once)
            return self._widened(new).nodes
        return None if new is site else new.nodes

    def converted(self, site):
        wanted = _result_dtype(site.result)
        operator = site.func is None and isinstance(site.node, cst.BinaryOperation)
        if wanted is not None and (_elementwise(site.func) or (
                operator and not site.python_semantics)) and len(site.nodes) == len(
                site.args) and any(_python_number(v) for v in site.args) and isinstance(
                    site.result.example, (np.generic, np.ndarray)):
            # a NumPy function of Python numbers gives a strongly typed NumPy value
            # (np.where(b, 1.5, -0.5) is float64, which a float32 array meets as float64);
            # JAX's result of them is weak (float32 there): the numbers become arrays of
            # NumPy's dtype for them first. So does an operator where the Python number
            # decides the result's kind: NumPy's int64 array times 2.0 is a float64 array,
            # JAX's a weak float64, which a float32 array then meets as float32
            function = self._function(site)
            if function is not None and _jax_weak(function, site.args):
                nodes = [expr(self.backend.scalar("{x}", np.asarray(value.example).dtype),
                              x=node) if _python_number(value) else node
                         for node, value in zip(site.nodes, site.args)]
                site = dataclasses.replace(site, nodes=nodes)
        if wanted is None or wanted.kind not in "fciu" or len(site.nodes) != len(site.args) \
                or not any(_converted(v, operator) for v in site.args):
            return site
        function = self._function(site)
        if function is None or _jax_dtype(function, site.args) in (None, wanted):
            return site
        nodes = [expr(self.backend.scalar("{x}", wanted), x=node) if _converted(value, operator)
                 else node for node, value in zip(site.nodes, site.args)]
        return dataclasses.replace(site, nodes=nodes)


def _python_int_meets_narrow(site, wanted, function) -> None:
    """`vectorize`: refuse converting an operand the analysis holds as a 64-bit NumPy int
    (its stand-in for an int argument) where per example it may be a Python int, which meets
    a narrow NumPy float as that float (NEP 50: ``max(a, 0.5) + np.float16(1)`` is a float16,
    inf for ``a`` = 2**63 - 1), where the int64 meets it in float64: on values the same for
    every example, computed by Python as each example does, except where a JAX array takes
    part (then in JAX's dtype), which the conversion to the analysis' dtype is for."""
    if wanted is None or wanted.kind not in "fc" or function is None:
        return
    examples = [getattr(v, "example", None) for v in site.args]
    if not any(isinstance(e, np.floating) and e.dtype.itemsize < 8 for e in examples):
        return
    name = getattr(function, "__name__", None)
    numpy_function = getattr(np, name, None) if name else None
    if not isinstance(numpy_function, np.ufunc):
        return
    for i, e in enumerate(examples):
        if not (isinstance(e, np.integer) and e.dtype.itemsize == 8):
            continue
        as_python = list(examples)
        as_python[i] = int(e)
        try:
            with np.errstate(all="ignore"):
                dtype = np.asarray(numpy_function(*as_python)).dtype
        except Exception:       # noqa: BLE001 -- no result to compare
            continue
        if dtype != wanted:
            from ...errors import Unsupported
            raise Unsupported(
                f"this operation meets a NumPy {dtype} value with an int that per example may "
                f"be a Python int (then the result is a {dtype}) or a NumPy int64 (then "
                f"{wanted}); the JAX backend cannot tell which here", site.original,
                "convert the int explicitly (float(...) or np.int64(...)) before it meets "
                "the narrow float")


def make_faithful(reg, twins: dict) -> None:
    """The registry's call rules and arithmetic operators wrapped by `Faithful` (the rules
    listed in ``all_rules`` replaced by their wrapped selves, in place)."""
    faithful = Faithful(reg.backend, twins)
    for func, rule in reg.call_rules():
        reg.replace_call(func, faithful.wrap(rule))
    for name, rule in list(reg.methods.items()):
        reg.methods[name] = faithful.wrap(rule)
    if "binary" in reg.operators:
        reg.operators["binary"] = faithful.wrap(reg.operators["binary"])
    reg.all_rules[:] = [faithful._made.get(id(rule), rule) for rule in reg.all_rules]
    reg.unbatched = faithful.unbatched_nodes
