"""JAX: generated code written with ``jax.numpy`` (``jnp``), compiled by XLA with ``jax.jit``.

Chosen for calls whose arguments are ``jax.Array`` s, or explicitly with ``backend="jax"``
(NumPy arrays in, NumPy arrays out, computed by XLA). The generated function is pure: JAX
arrays are immutable, so there are no in-place writes (a scatter is ``x = x.at[i].set(v)``),
no compaction (shapes are fixed under ``jit``) and no chunked or threaded runs (XLA blocks and
threads its own work). What runs is `runtime.Compiled`: the function under ``jax.jit``, with
64-bit types enabled in its scope (``jax.enable_x64``), so results keep the per-example
code's dtypes (float64 included) whatever the process' JAX default is (``docs/jax.md``).

The analysis works on NumPy examples, as for PyTorch: a ``jax.Array`` argument is represented
by NumPy ones of its dtype and per-example shape (``example_of``). The rule tables are
NumPy's, spelled with ``jnp`` (`rules`), and JAX's own functions (``jnp.sin``) map to the rule
of their NumPy twin (`rules.register_twins`).

``jax`` is an optional dependency, imported only when this backend is used.
"""

from __future__ import annotations

import sys

import numpy as np

from ..base import Backend
from . import runtime

# NumPy dtypes JAX computes in under x64 (bfloat16 and the float8s have no NumPy dtype of
# their own: refused)
DTYPE_NAMES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
               "float16", "float32", "float64", "complex64", "complex128")

_DTYPE_KEYS = {np.dtype(name): str(np.dtype(name)) for name in DTYPE_NAMES}


def jax_module():
    import jax
    return jax


def is_jax_array(value) -> bool:
    """Whether ``value`` is a ``jax.Array`` (without importing jax)."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, jax.Array)


def numpy_dtype(dtype) -> np.dtype:
    """The NumPy dtype of a JAX array's dtype; TypeError where JAX's has no NumPy twin."""
    dtype = np.dtype(dtype)
    if dtype.name not in DTYPE_NAMES:
        raise TypeError(f"JAX arrays of dtype {dtype} are not supported (no NumPy dtype to "
                        "represent them in the analysis)")
    return dtype


class JaxBackend(Backend):
    """The ``jax.numpy`` spellings (the module imported as ``jnp`` in generated code)."""

    name = "jax"
    alias = "jnp"
    module_name = "jax.numpy"

    def refuse_in(self, reg) -> None:
        from .lax_rules import refuse_jax
        refuse_jax(reg)
    quiet = None            # XLA never warns about floating-point errors: nothing to silence
    weak_python_numbers = True
    big_int_results = False     # (no jax.Array holds a Python int beyond int64)
    int_power_checks = True     # jnp's integer powers never raise
    in_place_writes = True   # written as functional updates (`x = x.at[i].set(v)`: `writes`)
    owned_temporaries = False  # (no in-place updates of temporaries: nothing to gain)
    views = False           # a subscript is a new array, never a view of its array
    compaction = False      # gathers of a data-dependent number of lanes have no fixed shape
    unjitted_compaction = True   # (`jnp.flatnonzero` and `.at[lanes].set` run eagerly)
    chunked_runs = False    # one call: XLA blocks and threads its own work
    threads = False
    takes_numpy = True      # `jax.jit` puts NumPy arguments on the device itself, once
    eager_raises = False    # what traced code raises is not a per-example raise
    warm_by_dtype = True    # a jax.Array: its type, dtype and rank (jit keys on its shape)
    dtypes = frozenset(DTYPE_NAMES)
    random_hint = ("jax.random with an explicit key, drawn for the whole batch outside the "
                   "function and passed in")
    function_modules = ("jax", "numpy")
    extra_modules = {"lax": "jax.lax", "jax": "jax"}

    def build_registry(self):
        from . import rules
        return rules.build(self)

    def claims(self, value) -> bool:
        return is_jax_array(value)

    def rule_examples(self):
        from . import rule_examples
        return rule_examples.JAX_EXAMPLES, rule_examples.RANDOM, rule_examples.REFUSED

    def rule_example_arguments(self, args, written):
        """NumPy arrays as ``jax.Array`` s of JAX's default types (float32, int32)."""
        import jax.numpy as jnp
        narrow = {"f": np.float32, "i": np.int32, "c": np.complex64}
        return tuple(jnp.asarray(a.astype(narrow.get(a.dtype.kind, a.dtype)))
                     if isinstance(a, np.ndarray) else a for a in args)

    # ------------------------------------------------------- code generation and running
    def file_setup(self):
        """A rewritten file computes in 64 bits, as the per-example code does: the generated
        code names int64/float64, which JAX gives only with x64 enabled."""
        return {"jax": jax_module()}, [
            'jax.config.update("jax_enable_x64", True)  # 64-bit types, as the per-example '
            'code computes']

    def finish_function(self, func_def, ctx):
        """Generated code made valid for ``jit`` (`finish.finish`)."""
        from . import finish
        return finish.finish(func_def, ctx)

    def runnable(self, function, source: str):
        """The generated function under ``jax.jit`` with x64 (`runtime.Compiled`)."""
        from .runtime import Compiled
        return Compiled(function, source)

    # ------------------------------------------------------------ examples, runtime
    def example_of(self, array, batched: bool):
        """NumPy ones of the array's dtype and (per-example) shape."""
        shape = tuple(array.shape[1:] if batched else array.shape)
        return np.ones(shape, numpy_dtype(array.dtype))[()]

    def from_numpy(self, array, like=None):
        from .runtime import as_array
        return as_array(array)

    def broadcast_to(self, array, shape: tuple):
        with jax_module().enable_x64(True):
            return self.module().broadcast_to(array, shape)

    def cast(self, array, dtype):
        with jax_module().enable_x64(True):
            return self.module().asarray(array).astype(numpy_dtype(dtype))

    # A NumPy array of its own, writable, as NumPy's and the other backends' results are:
    # ``np.asarray`` of a ``jax.Array`` is a read-only view of XLA's buffer, so a result is
    # copied, or, where it is a large one a jitted call has just made, handed out as a
    # writable array over that buffer (`runtime.to_numpy`, ``docs/jax.md``)
    to_numpy = staticmethod(runtime.to_numpy)

    def numpy_runner(self, function):
        """`runtime.Compiled.runner` on NumPy arguments: a warm call is the jitted function
        and its result's buffer handed out (no `mark_fresh`, no copy)."""
        runner = getattr(function, "runner", None)
        return runner(numpy_out=True) if runner is not None else None

    def warm_runner(self, function):
        """`runtime.Compiled.runner`: a warm call is the jitted function itself."""
        runner = getattr(function, "runner", None)
        return runner(numpy_out=False) if runner is not None else function

    def as_result(self, value):
        if self.claims(value):
            return value
        from .runtime import as_array
        return as_array(value)

    def dtype_key(self, array) -> str:
        dtype = array.dtype
        return _DTYPE_KEYS.get(dtype) or str(dtype)     # (str of a dtype is slow Python)

    def moveaxis(self, array, source: int, destination: int):
        with jax_module().enable_x64(True):
            return self.module().moveaxis(array, source, destination)

    def take(self, array, index: int, axis: int):
        with jax_module().enable_x64(True):
            return self.module().take(array, index, axis=axis)

    def stack(self, items):
        from .runtime import as_array
        with jax_module().enable_x64(True):
            return self.module().stack([as_array(item) for item in items])

    def concatenate(self, parts):
        with jax_module().enable_x64(True):
            return self.module().concatenate(list(parts))

    def broadcast_batch(self, value, size: int, like=None):
        from .runtime import as_array
        with jax_module().enable_x64(True):
            arr = as_array(value)
            return self.module().broadcast_to(arr, (size,) + arr.shape)

    # ---------------------------------------------------------- what the passes write
    def stack_pieces(self, pieces: list[str], batched: tuple) -> str:
        listing = ", ".join(pieces)
        if all(batched):
            return f"jnp.stack([{listing}], axis=1)"
        return f"jnp.stack(jnp.broadcast_arrays({listing}), axis=1)"

    def lanes_of(self, mask: str) -> str:
        return f"jnp.flatnonzero({mask})"

    def count(self, mask: str) -> str:
        return f"jnp.count_nonzero({mask})"

    def size(self, x: str) -> str:
        return f"jnp.size({x})"

    def empty(self, shape: str, dtype: str, like: str | None = None) -> str:
        return f"jnp.zeros({shape}, dtype={dtype})"

    def full(self, shape: str, value: str, dtype: str | None, like: str | None = None) -> str:
        if dtype is None:
            return f"jnp.full({shape}, {value})"
        return f"jnp.full({shape}, {value}, dtype={dtype})"

    def shape(self, x: str) -> str:
        return f"jnp.shape({x})"

    def astype(self, x: str, dtype: str) -> str:
        return f"jnp.asarray({x}).astype({dtype})"

    def result_type(self, *values: str) -> str:
        return "jnp.result_type(" + ", ".join(values) + ")"

    def repeat(self, x: str, n: str) -> str:
        return f"jnp.repeat({x}[None], {n}, axis=0)"

    def slice_mask(self, lower, upper, shared: bool = False) -> str:
        from ..numpy import NumpyBackend
        return NumpyBackend.slice_mask(self, lower, upper, shared)     # (as `jnp`, `alias`)

    def array_of(self, items: str) -> str:
        return f"jnp.array({items})"

    def lanes_index(self, x: str) -> str:
        return f"jnp.arange(len({x}))"

    def where(self, cond: str, a: str, b: str) -> str:
        return f"jnp.where({cond}, {a}, {b})"

    def logical_not(self, a: str) -> str:
        return f"jnp.logical_not({a})"

    def scalar(self, x: str, dtype) -> str:
        return f"jnp.asarray({x}, dtype={self.dtype_code(dtype)})"

    def joined(self, a: str, b: str, a_dtype, b_dtype) -> tuple[str, str]:
        # JAX joins an integer with a float in the float's type (int32 and float16: float16),
        # NumPy in one that holds both (float64)
        import jax.numpy as jnp
        wanted = np.result_type(a_dtype, b_dtype)
        if jnp.promote_types(a_dtype, b_dtype) == wanted:
            return a, b
        return tuple(x if d == wanted else self.scalar(x, wanted)
                     for x, d in ((a, a_dtype), (b, b_dtype)))

    def strongly_typed(self, x: str, dtype) -> str | None:
        return self.scalar(x, dtype)

    def einsum(self, subscripts: str, operands: list[str], matrix_product: bool) -> str:
        return f'jnp.einsum("{subscripts}", {", ".join(operands)})'

    def dtype_code(self, dtype) -> str:
        dtype = np.dtype(dtype)
        if not self.supports_dtype(dtype):
            from ...errors import Unsupported
            raise Unsupported(f"JAX has no dtype for NumPy's {dtype}",
                              suggestion="compute in a dtype JAX has (float32, float64, "
                                         "int64...)")
        return "jnp.bool_" if dtype == np.bool_ else f"jnp.{dtype.name}"

    dtype_named = dtype_code

    def any_lane(self, mask: str) -> str:
        return f"jnp.any({mask})"

    def first_lane(self, mask: str) -> str:
        return f"jnp.argmax({mask})"

    def checked_index(self, index: str, size: int | str) -> str:
        # a gather clamps an index out of bounds, a scatter drops it: checked (`writes`)
        return f"in_bounds({index}, {size})"

    def gather(self, x: str, lanes: str) -> str:
        return f"{x}[{lanes}]"

    def scatter(self, x: str, lanes: str, values: str) -> str:
        return f"{x} = {x}.at[{lanes}].set({values})"

    def copy(self, x: str) -> str:
        return f"jnp.array({x}, copy=True)"

    def lookup(self, table: str, key: str, default: str | None = None) -> str:
        # the binary search in `jnp`; a missing key checked as an index is (`lookups`)
        from .lookups import DICT_LOOKUP
        return f"{DICT_LOOKUP}({table}, {key})" if default is None else \
            f"{DICT_LOOKUP}({table}, {key}, {default})"

    def constant_array(self, items: str, dtype, like: str | None = None) -> str:
        return f"jnp.asarray({items}, dtype={self.dtype_code(dtype)})"

    def with_batch(self, batch: str, shape: str) -> str:
        # shapes are static under `jit`: Python ints, never traced
        return f"({batch}, *({shape} if isinstance({shape}, tuple) else ({shape},)))"
