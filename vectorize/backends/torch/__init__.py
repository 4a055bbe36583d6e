"""PyTorch: generated code written with ``torch`` for calls whose arguments are tensors.

The code keeps every tensor where it is (device and dtype of the arguments, nothing through
NumPy) and is made of differentiable operations (``torch.where``, ``torch.einsum``, indexing),
so autograd flows through it as through the per-example code. The analysis still works on
NumPy examples (``example_of``): a tensor argument is represented by NumPy ones of the same
dtype and per-example shape, and every rule of the torch tables (registered by `rules.py`)
says what its operation gives on such examples (``Rule.infer`` / ``Rule.shadow``).

``torch`` is an optional dependency, imported only when tensors are passed.
"""

from __future__ import annotations

import numpy as np

from ..base import Backend
from .dtypes import (
    DTYPE_NAMES,
    as_tensor,
    grad_transform,
    is_module,
    is_tensor,
    numpy_dtype,
    torch_module,
)

__all__ = ["DTYPE_NAMES", "TorchBackend", "as_tensor", "is_tensor", "numpy_dtype",
           "torch_module"]


def _as_matmul(subscripts: str, operands: list[str]) -> str | None:
    """A two-operand einsum that is one matrix product, as ``a @ b`` (`as_matmul`). PyTorch's
    ``einsum`` computes such products too, but lays some out transposed and differentiates
    them through extra copies: the MLP of `benchmarks/bench_torch.py` took 1.5 to 1.8 times
    as long forward + backward."""
    from ...rules.contractions import as_matmul
    return as_matmul(subscripts, operands,
                     lambda x, rank: x + (".T" if rank == 2 else ".mT"))


class TorchBackend(Backend):
    """The PyTorch spellings (the module imported as ``torch`` in generated code)."""

    name = "torch"
    alias = "torch"
    module_name = "torch"
    arrays = "tensors"
    quiet = None    # PyTorch never warns about floating-point errors: nothing to silence
    chunked_runs = False    # PyTorch blocks and threads its own operations
    scatter_casts = False   # `t[lanes] = v` requires v of t's dtype
    threads = False
    # autograd keeps some operations' outputs for the backward pass (`exp`, `pow`): updating
    # one in place would make `backward()` fail
    owned_temporaries = False
    # a write into a created tensor goes into a copy while autograd records (`writes`): a
    # view bound before it would keep the old items
    views = False
    item_views = True       # `y[0]` is a 0-d view of `y` per example
    dtypes = frozenset(DTYPE_NAMES)
    big_int_results = False     # (no tensor holds a Python int beyond int64)
    random_hint = "torch (e.g. torch.randn(()) for random.gauss(0.0, 1.0))"
    function_modules = ("torch", "numpy")
    broadcast_arrays = "broadcast_tensors"
    converts_arguments = True   # (`result[lanes] = x_lanes` raises for another dtype)
    keys_by_value = False    # (a 0-d tensor hashes by identity: `TABLE[k]` finds no key)
    python_number_items = True  # (`TUP[k]` is a Python number per example: `common.is_weak`)
    python_int_power_raises = True  # (`tensor(2) ** -1` raises, `tensor(2) ** tensor(-1)` not)
    # (`torch.func.vmap` leaves arguments that are not tensors alone)
    unmapped_numpy = ("a NumPy array passed with in_axes=None beside mapped tensors: per "
                      "example it stays NumPy (as torch.func.vmap leaves it), and PyTorch "
                      "meets NumPy scalars as Python numbers, NumPy arrays as tensors of "
                      "their dtype, which the engine does not model")

    def build_registry(self):
        from ...rules.registry import Registry
        from . import creation, dims, functorch, inplace, nn, rules
        reg = Registry(self)
        rules.register(reg)
        known = {id(rule) for rule in reg.all_rules}
        for family in (dims, nn, creation, inplace, functorch):
            family.register(reg)
        from .. import refuse_others
        refuse_others(reg, self.name)   # (`jax.lax` of per-example values: the JAX backend's)
        for rule in reg.all_rules:       # refusals point at the call they are about
            if id(rule) not in known and rule.infer is not None:
                rule.infer = rules._located(rule.infer)
        # rules replaced by a family's (`x.view`, `x.to`) leave the tables
        reg.forget_unused()
        return reg

    def rule_examples(self):
        from . import rule_examples
        return rule_examples.TORCH_EXAMPLES, rule_examples.RANDOM, rule_examples.REFUSED

    def rule_example_arguments(self, args, written):
        torch = torch_module()
        args = tuple(torch.as_tensor(a) if isinstance(a, np.ndarray) else a for a in args)
        if "X0" in written:    # a leaf that requires grad, for autograd examples
            args = tuple(a.requires_grad_() if isinstance(a, torch.Tensor) and a.ndim == 0
                         else a for a in args)
        return args

    def claims(self, value) -> bool:
        return is_tensor(value)

    def owns_instance(self, value) -> bool:
        # (an operator of `torch.ops`, `torch.ops.aten.silu_backward`, is one too)
        return is_module(value) or type(value).__module__ == "torch._ops"

    def in_place_method(self, fn) -> str | None:
        import sys
        torch = sys.modules.get("torch")
        name = getattr(fn, "__name__", "")
        if torch is None or not name.endswith("_") or name.endswith("__"):
            return None
        if getattr(torch, name, None) is fn and callable(getattr(torch.Tensor, name, None)):
            return name
        return None

    def grad_transform(self, fn):
        return grad_transform(fn)

    # ------------------------------------------- the analysis: PyTorch's promotion rules
    def on_examples(self, fn):
        from . import examples
        return examples.on_examples(fn)

    def from_examples(self, value):
        from . import examples
        return examples.to_example(value)

    def example_attribute(self, example, attr: str):
        from . import examples
        return examples.example_attribute(example, attr)

    def analysing(self):
        from . import examples
        return examples.analysing()

    # ------------------------------------------------------------ examples, runtime
    def numpy_call(self, args, kwargs):
        # an int tensor with a Python float is float64 in NumPy, PyTorch's default dtype
        # (float32) otherwise (`dtypes.numpy_defaults`)
        from .dtypes import needs_numpy_defaults, numpy_defaults
        return numpy_defaults() if needs_numpy_defaults(args, kwargs) else None

    def from_numpy(self, array, like=None):
        return torch_module().as_tensor(array, device=like.device if is_tensor(like) else None)

    def broadcast_to(self, array, shape: tuple):
        return array.expand(shape)

    def cast(self, array, dtype):
        torch = torch_module()
        return array.to(torch.from_numpy(np.zeros(0, dtype=np.dtype(dtype))).dtype)

    def to_numpy(self, value):
        return value.detach().cpu().numpy() if is_tensor(value) else np.asarray(value)

    def example_of(self, tensor, batched: bool):
        """NumPy ones of the tensor's dtype and (per-example) shape."""
        shape = tuple(tensor.shape[1:] if batched else tensor.shape)
        return np.ones(shape, numpy_dtype(tensor.dtype))[()]

    def dtype_key(self, tensor) -> str:
        # the default dtype decides what integer tensors with Python floats give: part of
        # every specialization's key
        from .dtypes import numpy_call
        numpy = "/numpy" if numpy_call() else ""
        return f"{tensor.dtype}/{torch_module().get_default_dtype()}{numpy}"

    def state_print(self):
        # the default dtype decides what int tensors meeting Python floats give
        from .dtypes import numpy_call
        return str(torch_module().get_default_dtype()) + ("/numpy" if numpy_call() else "")

    def moveaxis(self, tensor, source: int, destination: int):
        return tensor.movedim(source, destination)

    def take(self, tensor, index: int, axis: int):
        return tensor.select(axis, index)

    def stack(self, items):
        torch = torch_module()
        return torch.stack([as_tensor(item) for item in items])

    def concatenate(self, parts):
        return torch_module().cat(list(parts))

    def broadcast_batch(self, value, size: int, like=None):
        tensor = as_tensor(value, like.device if is_tensor(like) else None)
        return tensor.expand(size, *tensor.shape).clone()

    # ---------------------------------------------------------- what the passes write
    def lanes_of(self, mask: str) -> str:
        return f"torch.nonzero({mask}).flatten()"

    def count(self, mask: str) -> str:
        return f"torch.count_nonzero({mask})"

    def size(self, x: str) -> str:
        return f"{x}.numel()"

    def empty(self, shape: str, dtype: str, like: str | None = None) -> str:
        return f"torch.empty({shape}, dtype={dtype}{self._device(like)})"

    def full(self, shape: str, value: str, dtype: str | None, like: str | None = None) -> str:
        # `as_tensor(...).expand(...)`, not `torch.full`: the value may be a tensor that
        # requires grad (a closed-over parameter), which `torch.full` would not take
        dtype_arg = "" if dtype is None else f", dtype={dtype}"
        return (f"torch.as_tensor({value}{dtype_arg}{self._device(like)})"
                f".expand({shape}).clone()")

    @staticmethod
    def _device(like: str | None) -> str:
        return f", device={like}.device" if like else ""

    def shape(self, x: str) -> str:
        return f"tuple({x}.shape)"

    def astype(self, x: str, dtype: str) -> str:
        return f"{x}.to({dtype}, copy=True)"

    def result_type(self, *values: str) -> str:
        out = values[0]
        for value in values[1:]:
            out = f"torch.result_type({out}, {value})" if out is values[0] else \
                f"torch.promote_types({out}, torch.as_tensor({value}).dtype)"
        return out

    def repeat(self, x: str, n: str) -> str:
        return f"{x}.expand({n}, *{x}.shape).clone()"

    def array_of(self, items: str) -> str:
        return f"torch.stack([torch.as_tensor(item) for item in {items}])"

    def array_of_lanes(self, items: str, lanes: str, dtype) -> str:
        # (torch.stack of no tensors raises: an empty batch gives an empty result)
        if not self.supports_dtype(dtype):
            return self.array_of(items)
        return (f"({self.array_of(items)} if len({lanes}) else "
                f"torch.empty(0, dtype={self.dtype_code(dtype)}, device={lanes}.device))")

    def lanes_index(self, x: str) -> str:
        return f"torch.arange(len({x}), device={x}.device)"

    def where(self, cond: str, a: str, b: str) -> str:
        return f"torch.where({cond}, {a}, {b})"

    def logical_not(self, a: str) -> str:
        return f"torch.logical_not({a})"

    def truth(self, x: str, kind: str) -> str:
        # torch.where takes boolean conditions only; `!= 0` is Python's truth (NaN is true)
        return x if kind == "b" else f"({x} != 0)"

    def scalar(self, x: str, dtype) -> str:
        return f"torch.tensor({x}, dtype={self.dtype_code(dtype)})"

    def einsum(self, subscripts: str, operands: list[str], matrix_product: bool) -> str:
        product = _as_matmul(subscripts, operands)
        if product is not None:
            return product
        return f'torch.einsum("{subscripts}", {", ".join(operands)})'

    def dtype_code(self, dtype) -> str:
        dtype = np.dtype(dtype)
        if not self.supports_dtype(dtype):
            from ...errors import Unsupported
            raise Unsupported(f"PyTorch has no dtype for NumPy's {dtype}",
                              suggestion="compute in a dtype PyTorch has (float32, int64...)")
        return f"torch.{dtype.name}"

    dtype_named = dtype_code

    def any_lane(self, mask: str) -> str:
        return f"{mask}.any()" if mask.isidentifier() else f"torch.any({mask})"

    def first_lane(self, mask: str) -> str:
        # argmax is not defined on booleans
        return f"torch.argmax({mask}.to(torch.uint8))"

    warns_per_lane = True
    narrowing_joins = True  # `torch.where` of an int32 tensor and an int64 one of Python ints

    def warn_lanes(self, mask: str) -> str:
        return f"torch.nonzero({mask}).flatten().tolist()"

    def copy(self, x: str) -> str:
        return f"{x}.clone()"

    def file_setup(self):
        """A rewritten file computes as the per-example code does, which promotes as NumPy:
        a Python float is a float64 tensor and an int tensor meeting one gives float64, under
        PyTorch's default dtype set to float64 (float32 otherwise: `dtypes.numpy_defaults`,
        as the decorator calls on NumPy arguments)."""
        return {"torch": torch_module()}, [
            "torch.set_default_dtype(torch.float64)  # Python floats in float64, as the "
            "per-example code"]

    def finish_function(self, func_def, ctx):
        """Writes into created tensors copied first while autograd records
        (`writes.autograd_safe`)."""
        from . import complexes
        from .lookups import DICT_LOOKUP, dict_lookup
        from .writes import autograd_safe
        ctx.module.runtime_imports.setdefault(DICT_LOOKUP, dict_lookup)    # (where called)
        for name in complexes.FUNCTIONS.values():
            ctx.module.runtime_imports.setdefault(name, getattr(complexes, name))
        return autograd_safe(func_def, ctx)

    def put_back(self, x: str, lanes: str, values: str) -> str:
        # out of place: autograd may have saved ``x`` for a backward pass (a compacted loop's
        # lanes start as the full arrays themselves, ``x * i`` saves ``i``), and an in-place
        # write into a saved tensor fails at ``backward()``
        return f"{x} = {x}.index_put(({lanes},), {values})"

    def python_complex(self, operator: str) -> str | None:
        # PyTorch's complex `+`/`-` make an infinite part of the second operand NaN, its
        # quotients differ in the last bit (`complexes`)
        from .complexes import FUNCTIONS
        return FUNCTIONS.get(operator)

    def lookup(self, table: str, key: str, default: str | None = None) -> str:
        # a binary search of the sorted keys in `torch`, on the key's device (`lookups`)
        from .lookups import DICT_LOOKUP
        return f"{DICT_LOOKUP}({table}, {key})" if default is None else \
            f"{DICT_LOOKUP}({table}, {key}, {default})"

    def constant_array(self, items: str, dtype, like: str | None = None) -> str:
        return f"torch.as_tensor({items}, dtype={self.dtype_code(dtype)}{self._device(like)})"

    def with_batch(self, batch: str, shape: str) -> str:
        return f"({batch}, *torch.atleast_1d(torch.as_tensor({shape})).tolist())"
