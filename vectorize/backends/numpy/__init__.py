"""NumPy: the default backend. Its rule tables are this folder's modules, one per family:
`numpy_rules` (ufuncs and NumPy's elementwise functions), `builtins`, `math_rules`, `arrays`
(reductions, attributes, ragged ranges), `shapes`, `linalg`, `sorting`, `scipy_rules`,
`random` and `creation`; they build on the backend-neutral rules of `vectorize.rules`
(`operators`, `lanes`, `axes`, `contractions`, `draws`), which it registers too."""

from __future__ import annotations

import numpy as np

from ..base import Backend


class NumpyBackend(Backend):
    """The NumPy spellings (the module imported as ``np`` in generated code)."""

    name = "numpy"
    alias = "np"
    module_name = "numpy"
    quiet = 'np.errstate(all="ignore")'
    random_hint = "np.random (e.g. np.random.normal(mu, sigma) for random.gauss(mu, sigma))"
    function_modules = ("numpy",)
    string_arrays = True
    sequence_operands = True
    masked_writes = True
    analysed_scalars = True
    weak_python_numbers = True
    scalar_tail = True
    # (NumPy 2 compares int64 with uint64 exactly; NumPy 1.26 in float64)
    unsigned_comparisons = "qQ->?" in np.less.types and "Qq->?" in np.less.types
    float_literals = True
    float_warnings = True

    def build_registry(self):
        from ...rules.registry import Registry
        from .. import refuse_others
        reg = Registry(self)
        register_tables(reg)
        refuse_others(reg, self.name)   # (`jax.lax` of per-example values: the JAX backend's)
        return reg

    def module(self):
        return np

    def claims(self, value) -> bool:
        return isinstance(value, (np.ndarray, np.generic))

    def from_numpy(self, array, like=None):
        return array

    def broadcast_to(self, array, shape: tuple):
        return np.broadcast_to(array, shape)

    def cast(self, array, dtype):
        return np.asarray(array).astype(dtype)

    def example_of(self, array, batched: bool):
        from ...abstract import representative
        if batched and not len(array):      # no example to take: one of its dtype and shape
            return representative(np.zeros(array.shape[1:], array.dtype))
        return representative(array[0] if batched else array)

    def owns_function(self, fn) -> bool:
        return False     # NumPy's functions are the analysis' own (it reads none as user code)

    def names_dtype(self, text) -> bool:
        return False

    def as_result(self, value):
        return np.asarray(value)

    def dtype_key(self, array) -> str:
        return array.dtype.char

    def moveaxis(self, array, source: int, destination: int):
        return np.moveaxis(array, source, destination)

    def take(self, array, index: int, axis: int):
        return np.take(np.asarray(array), index, axis=axis)

    def stack(self, items):
        return np.stack([np.asarray(item) for item in items])

    def concatenate(self, parts):
        return np.concatenate(parts)

    def broadcast_batch(self, value, size: int, like=None):
        arr = np.asarray(value)
        return np.broadcast_to(arr, (size,) + arr.shape).copy()

    def stack_pieces(self, pieces: list[str], batched: tuple) -> str:
        listing = ", ".join(pieces)
        if all(batched):
            return f"np.stack([{listing}], axis=1)"
        return f"np.stack(np.broadcast_arrays({listing}), axis=1)"

    def lanes_of(self, mask: str) -> str:
        return f"np.flatnonzero({mask})"

    def count(self, mask: str) -> str:
        return f"np.count_nonzero({mask})"

    def gather_kept(self, x: str, keep: str) -> str:
        # (`take` skips the checks of a general index: measured on 2 cores, float64 from 1e5
        # lanes, 22 µs against 31 for `x[keep]`; a little slower below ~300 lanes, 0.4 µs)
        return f"{x}.take({keep}, axis=0)"

    def size(self, x: str) -> str:
        return f"{x}.size"

    def empty(self, shape: str, dtype: str, like: str | None = None) -> str:
        return f"np.empty({shape}, dtype={dtype})"

    def full(self, shape: str, value: str, dtype: str | None, like: str | None = None) -> str:
        if dtype is None:
            return f"np.full({shape}, {value})"
        return f"np.full({shape}, {value}, dtype={dtype})"

    def shape(self, x: str) -> str:
        return f"np.shape({x})"

    def astype(self, x: str, dtype: str) -> str:
        return f"{x}.astype({dtype})"

    def result_type(self, *values: str) -> str:
        return "np.result_type(" + ", ".join(values) + ")"

    def masked_write(self, y: str, v: str, mask: str) -> str:
        return f"np.copyto({y}, {v}, where={mask}, casting='unsafe')"

    def repeat(self, x: str, n: str) -> str:
        return f"np.repeat({x}[None], {n}, axis=0)"

    def slice_mask(self, lower, upper, shared: bool = False) -> str:
        # Python's bounds: a negative one counts from the end (one the same for every
        # example: a non-negative int as it is); the comparisons clamp to the vector
        # (`alias`: the JAX backend's `jnp` too)
        ns = self.alias
        size = "len({v})" if shared else "{v}.shape[-1]"
        terms = []
        for key, bound, op in (("lo", lower, ">="), ("hi", upper, "<")):
            if bound is None:
                continue
            if bound == "nonnegative":
                terms.append(f"({ns}.arange({size}) {op} {{{key}}})")
                continue
            where = f"{ns}.where({{{key}}} < 0, {{{key}}} + {size}, {{{key}}})"
            terms.append(f"({ns}.arange({size}) {op} {where}" + ("[:, None])" if bound else ")"))
        return " & ".join(terms)

    def array_of(self, items: str) -> str:
        return f"np.array({items})"

    def lanes_index(self, x: str) -> str:
        return f"np.arange(len({x}))"

    def where(self, cond: str, a: str, b: str) -> str:
        return f"np.where({cond}, {a}, {b})"

    def blend(self, cond: str, a: str, b: str) -> str | None:
        # `np.where` without its per-lane branch where the mask is in no order (`merge`)
        return f"merge.blend({cond}, {a}, {b})"

    def blend_pass(self, cond: str, a: str, b: str) -> str | None:
        # `np.where` without its branch per lane on wide masks in no order, sampled each
        # call (`merge.blend_pass`)
        return f"merge.blend_pass({cond}, {a}, {b})"

    def in_place_step(self, target: str, op: str, operand: str) -> str | None:
        # `merge.update`: ``np.add(target, operand, out=target)`` where it fits
        return f'merge.update({target}, "{op}", {operand})'

    def extremum(self, ufunc: str, c: str, a: str) -> str | None:
        # a number first runs NumPy's slower loop; `merge.maximum` compares with a row of it
        return f"merge.{ufunc}({c}, {a})"

    helper_ufuncs = frozenset({("merge", "maximum"), ("merge", "minimum")})

    helper_reductions = {("merge", "all_lanes"): "all"}

    fresh_helpers = frozenset({("merge", "rows_dot")})

    def logical_not(self, a: str) -> str:
        return f"np.logical_not({a})"

    def scalar(self, x: str, dtype) -> str:
        return f"{self.dtype_named(dtype)}({x})"

    def einsum(self, subscripts: str, operands: list[str], matrix_product: bool) -> str:
        optimize = ", optimize=True" if matrix_product else ""
        return f'np.einsum("{subscripts}", {", ".join(operands)}{optimize})'

    def matmul(self, subscripts: str, operands: list[str]) -> str | None:
        # vectors and matrices only: `@` of a stack of small matrices loops over them one
        # by one, where the einsum's path makes one BLAS call of them all
        from ...rules.contractions import as_matmul
        spelled = as_matmul(subscripts, operands,
                            lambda x, rank: f"{x}.T" if rank == 2 else None, stacks=False)
        inputs, _, out = subscripts.partition("->")
        specs = inputs.split(",")
        if spelled is not None and len(specs) == 2 and len(out) == 1:
            # a batch of rows times a shared vector: `merge.rows_dot`, which computes long
            # batches of rows by the einsum where BLAS's matrix-vector product is slower
            for rows, vector in ((0, 1), (1, 0)):
                if len(specs[rows]) == 2 and specs[rows][0] == out and \
                        specs[vector] == specs[rows][1]:
                    return f"merge.rows_dot({operands[rows]}, {operands[vector]})"
        return spelled

    def dtype_code(self, dtype) -> str:
        """The dtype exactly: its scalar type when NumPy names it so, else ``np.dtype(...)``."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return "np.bool_"
        if getattr(np, dtype.name, None) is dtype.type:
            return f"np.{dtype.name}"
        return f'np.dtype("{dtype}")'

    def dtype_named(self, dtype) -> str:
        dtype = np.dtype(dtype)
        return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"

    settles_lane_kinds = True

    def settle_kinds(self, value: str, kinds: str, table: str) -> str:
        return f"merge.settle({value}, {kinds}, {table})"

    def any_lane(self, mask: str) -> str:
        return f"{mask}.any()" if mask.isidentifier() else f"np.any({mask})"

    def zero_lane(self, value: str) -> str:
        # one pass with no temporary: `all` is false exactly where a lane is 0 or -0.0
        # (NaN is true), the lanes `value == 0` marks (`merge.all_lanes`: a count on small
        # arrays, where `x.all()` costs its call)
        return f"not merge.all_lanes({value})"

    def first_lane(self, mask: str) -> str:
        return f"np.argmax({mask})"

    warns_per_lane = True

    def warn_lanes(self, mask: str) -> str:
        return f"np.flatnonzero({mask})"

    def copy(self, x: str) -> str:
        return f"{x}.copy()"

    def makes_new_array(self, function: str) -> bool:
        made = getattr(np, function, None)
        return function == "where" or (isinstance(made, np.ufunc) and made.nout == 1)

    def scalar_power(self, a: str, b: str | None, dtype, once: bool) -> str | None:
        # NumPy's array power with an exponent of 0.5 the same for every item is np.sqrt
        # (sqrt(-inf) nan, sqrt(-0.0) -0.0), its scalars' `**` the C library's pow (inf, 0.0),
        # as np.float_power's float64 loop is (slower: where `a` is written once)
        if once:
            power = f"np.float_power({a}, {'0.5' if b is None else b})"
            return power if np.dtype(dtype) == np.float64 else \
                self.astype(power, self.dtype_code(dtype))
        root = f"np.where({a} == -np.inf, np.inf, np.sqrt({a} + 0.0))"
        return root if b is None else f"({root} if {b} == 0.5 else {a} ** {b})"

    def python_complex(self, operator: str) -> str | None:
        return {"*": "pymath.complex_mul", "/": "pymath.complex_div"}.get(operator)

    def lookup(self, table: str, key: str, default: str | None = None) -> str:
        # a binary search of the sorted keys
        return f"pymath.lookup({table}, {key})" if default is None else \
            f"pymath.lookup({table}, {key}, {default})"

    def constant_array(self, items: str, dtype, like: str | None = None) -> str:
        return f"np.asarray({items})"     # NumPy makes Python's numbers' dtype itself

    def with_batch(self, batch: str, shape: str) -> str:
        return f"({batch}, *np.atleast_1d({shape}))"


def register_tables(reg) -> None:
    """NumPy's rule tables and the shared ones, in order, into ``reg`` (also the JAX
    backend's, which spells them with ``jnp``)."""
    from ...rules import lane_copies, lanes, lists, operators, strings
    from . import (
        arrays,
        builtins,
        creation,
        linalg,
        math_rules,
        numpy_rules,
        picking,
        random,
        scipy_rules,
        shapes,
        sorting,
    )
    for table in (operators, builtins, math_rules, numpy_rules, lanes, arrays, linalg,
                  shapes, sorting, picking, scipy_rules, random, creation, strings, lists,
                  lane_copies):
        table.register(reg)
